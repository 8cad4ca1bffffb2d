/* `--perf` of darshan-parser (log-format spec 9.7; iolens/metrics.h): the job's
 * I/O time as the slowest rank's time on its own files plus the slowest-rank time
 * of every shared file, and the bandwidth that time gives. */
#include <stdlib.h>
#include <string.h>
#include "metrics_internal.h"

typedef struct rank_time { int64_t rank; double io, meta, rw; } rank_time;   /* rank -1: free */

/* Per-rank times in a hash table of the ranks seen: memory follows the records,
 * never a rank or nprocs a hostile log claims (ranks at or above nprocs are
 * ignored, as darshan-parser ignores them). */
struct iolens_perf {
    iol_metric_cols c;          /* first: iol_metric_acc_new fills it */
    int64_t nprocs;
    rank_time *rt;
    size_t cap, used;           /* cap: 0 or a power of two */
    int64_t total_bytes;
    double shared_time;
};

int iolens_perf_new(const iolens_module_info *mi, int64_t nprocs, iolens_perf **out)
{
    int rc = iol_metric_acc_new(mi, sizeof **out, (void **)out);
    if (rc == IOLENS_OK)
        (*out)->nprocs = nprocs;
    return rc;
}

void iolens_perf_free(iolens_perf *p)
{
    if (!p)
        return;
    free(p->rt);
    free(p);
}

static rank_time *rank_find(rank_time *rt, size_t cap, int64_t rank)
{
    size_t i = ((uint64_t)rank * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
    while (rt[i].rank >= 0 && rt[i].rank != rank)
        i = (i + 1) & (cap - 1);
    return &rt[i];
}

static int rank_grow(iolens_perf *p)
{
    size_t cap = p->cap ? p->cap * 2 : 64;
    rank_time *rt = cap < SIZE_MAX / sizeof *rt ? malloc(cap * sizeof *rt) : NULL;
    if (!rt)
        return IOLENS_E_NOMEM;
    for (size_t i = 0; i < cap; i++)
        rt[i].rank = -1;
    for (size_t i = 0; i < p->cap; i++)
        if (p->rt[i].rank >= 0)
            *rank_find(rt, cap, p->rt[i].rank) = p->rt[i];
    free(p->rt);
    p->rt = rt;
    p->cap = cap;
    return 0;
}

int iolens_perf_add(iolens_perf *p, const iolens_record *r)
{
    iol_record_metrics x = iol_record_metrics_get(&p->c, r);
    p->total_bytes = iol_add64(p->total_bytes, iol_add64(x.r, x.w));
    if (r->rank < 0) {
        p->shared_time += x.io;
        return 0;
    }
    if (r->rank >= p->nprocs)
        return 0;
    if (2 * (p->used + 1) > p->cap && rank_grow(p) != 0)
        return IOLENS_E_NOMEM;
    rank_time *q = rank_find(p->rt, p->cap, r->rank);
    if (q->rank < 0) {
        *q = (rank_time){ r->rank, 0, 0, 0 };
        p->used++;
    }
    q->io += x.io;
    q->meta += x.meta;
    q->rw += x.rw;
    return 0;
}

void iolens_perf_result_get(const iolens_perf *p, iolens_perf_result *out)
{
    /* the lowest rank of the largest I/O time, as a scan of ranks 0, 1, ... finds it */
    rank_time slow = { 0, 0, 0, 0 };
    for (size_t k = 0; k < p->cap; k++) {
        const rank_time *q = &p->rt[k];
        if (q->rank >= 0 && (q->io > slow.io || (q->io == slow.io && q->io > 0 &&
                                                  q->rank < slow.rank)))
            slow = *q;
    }
    out->total_bytes = p->total_bytes;
    out->slowest_rank_io_time = slow.io;
    out->slowest_rank_meta_only_time = slow.meta;
    out->slowest_rank_rw_only_time = slow.rw;
    out->slowest_rank = (int)slow.rank;
    out->shared_time_by_slowest = p->shared_time;
    out->agg_time_by_slowest = slow.io + p->shared_time;
    out->agg_perf_by_slowest = out->agg_time_by_slowest != 0
        ? ((double)p->total_bytes / 1048576.0) / out->agg_time_by_slowest : 0;
}
