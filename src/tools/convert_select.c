/* Record selection for `iolens convert` (--file, --include-glob, --exclude-glob):
 * a set of kept record ids, and in-place filters of each decoded structure. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "convert.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int name_matches(const conv_select *s, const char *name)
{
    if (s->ninclude) {
        int any = 0;
        for (size_t i = 0; i < s->ninclude && !any; i++)
            any = fnmatch(s->include[i], name, 0) == 0;
        if (!any)
            return 0;
    }
    for (size_t i = 0; i < s->nexclude; i++)
        if (fnmatch(s->exclude[i], name, 0) == 0)
            return 0;
    return 1;
}

/* --file: a record id when the argument is all digits, else a name. */
static int file_id(const conv_select *s, const iolens_log *log, uint64_t *id)
{
    const char *f = s->file;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(f, &end, 10);
    if (*f >= '0' && *f <= '9' && !*end && !errno) {
        *id = v;
        return 0;
    }
    for (size_t i = 0; i < iolens_log_name_count(log); i++) {
        const char *name;
        if (iolens_log_name_at(log, i, id, &name) == 0 && !strcmp(name, f))
            return 0;
    }
    return IOLENS_E_INVALID_ARG;
}

int conv_select_build(conv_select *s, const iolens_log *log)
{
    s->active = s->file || s->ninclude || s->nexclude;
    if (!s->active)
        return 0;
    size_t n = iolens_log_name_count(log);
    s->keep = malloc((n + 1) * sizeof *s->keep);
    if (!s->keep)
        return IOLENS_E_NOMEM;
    s->nkeep = 0;
    uint64_t fid = 0;
    if (s->file && file_id(s, log, &fid))
        return IOLENS_E_INVALID_ARG;
    if (s->file)
        s->keep[s->nkeep++] = fid;
    else
        for (size_t i = 0; i < n; i++) {
            uint64_t id;
            const char *name;
            if (iolens_log_name_at(log, i, &id, &name) == 0 && name_matches(s, name))
                s->keep[s->nkeep++] = id;
        }
    qsort(s->keep, s->nkeep, sizeof *s->keep, cmp_u64);
    return 0;
}

int conv_select_keeps(const conv_select *s, uint64_t id)
{
    if (!s->active)
        return 1;
    return bsearch(&id, s->keep, s->nkeep, sizeof id, cmp_u64) != NULL;
}

void conv_select_free(conv_select *s)
{
    free(s->keep);
    s->keep = NULL;
}

/* Compaction moves record i to slot j <= i, so memmove within one array is safe;
 * empty moves are skipped because an empty array may be NULL. */
static void mv(void *dst, const void *src, size_t n)
{
    if (n)
        memmove(dst, src, n);
}

#define MOVE(arr, j, i, per) mv((arr) + (j) * (per), (arr) + (i) * (per), (per) * sizeof *(arr))

void conv_filter_records(const conv_select *s, iolens_records *r)
{
    if (!s->active)
        return;
    size_t j = 0, tail_at = 0;
    for (size_t i = 0; i < r->count; i++) {
        if (!conv_select_keeps(s, r->id[i]))
            continue;
        MOVE(r->id, j, i, 1);
        MOVE(r->rank, j, i, 1);
        if (r->file_rec_id)
            MOVE(r->file_rec_id, j, i, 1);
        if (r->n_int)
            MOVE(r->ints, j, i, r->n_int);
        if (r->n_flt)
            MOVE(r->flts, j, i, r->n_flt);
        if (r->aux)
            MOVE(r->aux, j, i, r->aux_size);
        if (r->tail_start && r->tail) {       /* MDHIM: move this record's histogram */
            size_t a = r->tail_start[i], len = r->tail_start[i + 1] - a;
            mv(r->tail + tail_at, r->tail + a, len * sizeof *r->tail);
            r->tail_start[j] = tail_at;
            tail_at += len;
        }
        j++;
    }
    if (r->tail_start)
        r->tail_start[j] = tail_at;
    r->count = j;
}

void conv_filter_dxt(const conv_select *s, iolens_dxt *d)
{
    if (!s->active)
        return;
    size_t j = 0, seg_at = 0;
    for (size_t i = 0; i < d->count; i++) {
        if (!conv_select_keeps(s, d->id[i]))
            continue;
        size_t a = d->seg_start[i], len = d->seg_start[i + 1] - a;
        MOVE(d->id, j, i, 1);
        MOVE(d->rank, j, i, 1);
        if (d->hostname)
            mv(d->hostname[j], d->hostname[i], sizeof d->hostname[0]);
        MOVE(d->write_count, j, i, 1);
        MOVE(d->read_count, j, i, 1);
        mv(d->offset + seg_at, d->offset + a, len * 8);
        mv(d->length + seg_at, d->length + a, len * 8);
        mv(d->start + seg_at, d->start + a, len * 8);
        mv(d->end + seg_at, d->end + a, len * 8);
        if (d->thread_id)
            mv(d->thread_id + seg_at, d->thread_id + a, len * 8);
        d->seg_start[j] = seg_at;
        seg_at += len;
        j++;
    }
    d->seg_start[j] = seg_at;
    d->count = j;
    d->nseg = seg_at;
}

void conv_filter_heatmap(const conv_select *s, iolens_heatmap *h)
{
    if (!s->active)
        return;
    size_t j = 0, at = 0;
    for (size_t i = 0; i < h->count; i++) {
        if (!conv_select_keeps(s, h->id[i]))
            continue;
        size_t a = h->bin_start[i], len = h->bin_start[i + 1] - a;
        MOVE(h->id, j, i, 1);
        MOVE(h->rank, j, i, 1);
        MOVE(h->bin_width, j, i, 1);
        MOVE(h->nbins, j, i, 1);
        mv(h->write_bins + at, h->write_bins + a, len * 8);
        mv(h->read_bins + at, h->read_bins + a, len * 8);
        h->bin_start[j] = at;
        at += len;
        j++;
    }
    h->bin_start[j] = at;
    h->count = j;
}

void conv_filter_lustre(const conv_select *s, iolens_lustre *l)
{
    if (!s->active)
        return;
    size_t j = 0, c_at = 0, o_at = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (!conv_select_keeps(s, l->id[i]))
            continue;
        size_t ca = l->comp_start[i], nc = l->comp_start[i + 1] - ca;
        size_t oa = l->ost_start[i], no = l->ost_start[i + 1] - oa;
        MOVE(l->id, j, i, 1);
        MOVE(l->rank, j, i, 1);
        MOVE(l->num_comps, j, i, 1);
        MOVE(l->num_stripes, j, i, 1);
        mv(l->comp + c_at * LUSTRE_COMP_NUM_INDICES, l->comp + ca * LUSTRE_COMP_NUM_INDICES,
                nc * LUSTRE_COMP_NUM_INDICES * 8);
        if (l->pool_name)
            mv(l->pool_name + c_at, l->pool_name + ca, nc * sizeof l->pool_name[0]);
        mv(l->ost + o_at, l->ost + oa, no * 8);
        l->comp_start[j] = c_at;
        l->ost_start[j] = o_at;
        c_at += nc;
        o_at += no;
        j++;
    }
    l->comp_start[j] = c_at;
    l->ost_start[j] = o_at;
    l->count = j;
}

int conv_annotate(iolens_job *job, const char *kv)
{
    size_t have = strlen(job->metadata), add = strlen(kv);
    if (have && job->metadata[have - 1] != '\n')
        add++;
    if (have + add + 1 >= sizeof job->metadata)
        return IOLENS_E_INVALID_ARG;
    if (have && job->metadata[have - 1] != '\n')
        job->metadata[have++] = '\n';
    strcpy(job->metadata + have, kv);
    strcat(job->metadata, "\n");
    return 0;
}
