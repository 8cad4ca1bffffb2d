/* Rank renumbering and DXT concatenation for `iolens merge --workflow`
 * (merge_workflow.h). */
#include <stdlib.h>
#include <string.h>
#include "merge_workflow.h"

int64_t wf_rank(int64_t rank, int64_t offset)
{
    return rank < 0 ? offset : rank + offset;
}

int64_t wf_offsets(iolens_log *const *logs, size_t n, int64_t *offset)
{
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t np = iolens_log_job(logs[i])->nprocs;
        offset[i] = total;
        total += np > 0 ? np : 1;
    }
    return total;
}

/* The thread ids of `all`'s segments grown to s entries: kept once any input has
 * them (the merged log then has the version with thread ids); segments of
 * inputs without them get 0, "unknown", as upstream prints a missing id. */
static int grow_threads(iolens_dxt *all, const iolens_dxt *d, size_t s)
{
    if (!all->thread_id && !d->thread_id)
        return IOLENS_OK;
    uint64_t *t = realloc(all->thread_id, (s + 1) * 8);
    if (!t)
        return IOLENS_E_NOMEM;
    if (!all->thread_id)
        memset(t, 0, all->nseg * 8);
    all->thread_id = t;
    if (d->thread_id)
        memcpy(t + all->nseg, d->thread_id, d->nseg * 8);
    else
        memset(t + all->nseg, 0, d->nseg * 8);
    return IOLENS_OK;
}

/* Grow-and-append of one decoded DXT module into `all`, its segments' times
 * + shift (every segment is an operation that ran: none is "unset"). */
static int append_dxt(iolens_dxt *all, const iolens_dxt *d, int64_t offset, int64_t rank_as,
                      double shift)
{
    size_t c = all->count + d->count, s = all->nseg + d->nseg;
    uint64_t *id = realloc(all->id, (c + 1) * 8);
    if (id) all->id = id;
    int64_t *rank = realloc(all->rank, (c + 1) * 8);
    if (rank) all->rank = rank;
    char (*host)[65] = realloc(all->hostname, (c + 1) * sizeof *host);
    if (host) all->hostname = host;
    int64_t *wc = realloc(all->write_count, (c + 1) * 8);
    if (wc) all->write_count = wc;
    int64_t *rc = realloc(all->read_count, (c + 1) * 8);
    if (rc) all->read_count = rc;
    size_t *ss = realloc(all->seg_start, (c + 2) * sizeof *ss);
    if (ss) all->seg_start = ss;
    int64_t *off = realloc(all->offset, (s + 1) * 8);
    if (off) all->offset = off;
    int64_t *len = realloc(all->length, (s + 1) * 8);
    if (len) all->length = len;
    double *st = realloc(all->start, (s + 1) * 8);
    if (st) all->start = st;
    double *en = realloc(all->end, (s + 1) * 8);
    if (en) all->end = en;
    if (!id || !rank || !host || !wc || !rc || !ss || !off || !len || !st || !en ||
        grow_threads(all, d, s) != IOLENS_OK)
        return IOLENS_E_NOMEM;
    if (!all->count)
        all->seg_start[0] = 0;
    for (size_t i = 0; i < d->count; i++) {
        size_t k = all->count + i;
        all->id[k] = d->id[i];
        all->rank[k] = rank_as >= 0 ? rank_as : wf_rank(d->rank[i], offset);
        memset(all->hostname[k], 0, sizeof all->hostname[k]);
        if (d->hostname)
            memcpy(all->hostname[k], d->hostname[i], sizeof all->hostname[k]);
        all->write_count[k] = d->write_count[i];
        all->read_count[k] = d->read_count[i];
        all->seg_start[k + 1] = all->nseg + d->seg_start[i + 1];
    }
    if (d->nseg) {
        memcpy(all->offset + all->nseg, d->offset, d->nseg * 8);
        memcpy(all->length + all->nseg, d->length, d->nseg * 8);
        for (size_t k = 0; k < d->nseg; k++) {
            all->start[all->nseg + k] = d->start[k] + shift;
            all->end[all->nseg + k] = d->end[k] + shift;
        }
    }
    all->count = c;
    all->nseg = s;
    return IOLENS_OK;
}

int wf_merge_dxt(iolens_writer *w, int module, iolens_log *const *logs, dxt_place pl, size_t n,
                 size_t *bad)
{
    iolens_dxt all;
    memset(&all, 0, sizeof all);
    all.module = module;
    int rc = IOLENS_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        iolens_dxt *d = NULL;
        if (!iolens_log_header(logs[i])->mod[module].len)
            continue;
        if ((rc = iolens_log_dxt(logs[i], module, &d)) != IOLENS_OK)
            *bad = i;
        else
            rc = append_dxt(&all, d, pl.offset[i], pl.rank_as ? pl.rank_as[i] : -1,
                            pl.shift ? pl.shift[i] : 0);
        iolens_dxt_free(d);
    }
    if (!rc && all.count)
        rc = iolens_writer_put_dxt(w, &all);
    free(all.id), free(all.rank), free(all.hostname), free(all.write_count);
    free(all.read_count), free(all.seg_start), free(all.offset), free(all.length);
    free(all.start), free(all.end), free(all.thread_id);
    return rc;
}
