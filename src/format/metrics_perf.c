/* `--perf` of darshan-parser (log-format spec 9.7; iolens/metrics.h): the job's
 * I/O time as the slowest rank's time on its own files plus the slowest-rank time
 * of every shared file, and the bandwidth that time gives. */
#include <stdlib.h>
#include <string.h>
#include "metrics_internal.h"

typedef struct rank_time { double io, meta, rw; } rank_time;

/* Per-rank times grow with the largest rank seen (ranks at or above nprocs are
 * ignored, so a hostile nprocs alone cannot drive an allocation). */
struct iolens_perf {
    iol_metric_cols c;
    int64_t nprocs;
    rank_time *rt;
    size_t nrt;
    int64_t total_bytes;
    double shared_time;
};

int iolens_perf_new(const iolens_module_info *mi, int64_t nprocs, iolens_perf **out)
{
    iol_metric_cols c;
    int rc = iol_metric_cols_get(mi, &c);
    *out = NULL;
    if (rc != IOLENS_OK)
        return rc;
    iolens_perf *p = calloc(1, sizeof *p);
    if (!p)
        return IOLENS_E_NOMEM;
    p->c = c;
    p->nprocs = nprocs;
    *out = p;
    return IOLENS_OK;
}

void iolens_perf_free(iolens_perf *p)
{
    if (!p)
        return;
    free(p->rt);
    free(p);
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
    if ((uint64_t)r->rank >= p->nrt) {
        uint64_t want = (uint64_t)r->rank + 1, n = p->nrt ? p->nrt : 64;
        while (n < want)
            n *= 2;
        rank_time *nt = n < SIZE_MAX / sizeof *nt ? realloc(p->rt, n * sizeof *nt) : NULL;
        if (!nt)
            return IOLENS_E_NOMEM;
        memset(nt + p->nrt, 0, (n - p->nrt) * sizeof *nt);
        p->rt = nt;
        p->nrt = n;
    }
    rank_time *q = &p->rt[r->rank];
    q->io += x.io;
    q->meta += x.meta;
    q->rw += x.rw;
    return 0;
}

void iolens_perf_result_get(const iolens_perf *p, iolens_perf_result *out)
{
    double io = 0, meta = 0, rw = 0;
    int slow_rank = 0;
    for (size_t k = 0; k < p->nrt; k++)
        if (p->rt[k].io > io) {
            io = p->rt[k].io;
            meta = p->rt[k].meta;
            rw = p->rt[k].rw;
            slow_rank = (int)k;
        }
    out->total_bytes = p->total_bytes;
    out->slowest_rank_io_time = io;
    out->slowest_rank_meta_only_time = meta;
    out->slowest_rank_rw_only_time = rw;
    out->slowest_rank = slow_rank;
    out->shared_time_by_slowest = p->shared_time;
    out->agg_time_by_slowest = io + p->shared_time;
    out->agg_perf_by_slowest = out->agg_time_by_slowest != 0
        ? ((double)p->total_bytes / 1048576.0) / out->agg_time_by_slowest : 0;
}
