/* What one record contributes to darshan-parser's --file and --perf figures
 * (log-format spec 9.6, 9.7; metrics_internal.h). */
#include <stdlib.h>
#include "metrics_internal.h"

int iol_metric_cols_get(const iolens_module_info *mi, iol_metric_cols *c)
{
    if (!mi || !mi->summaries)
        return IOLENS_E_UNSUPPORTED;
    c->br = iol_counter_index(mi, 0, "BYTES_READ");
    c->bw = iol_counter_index(mi, 0, "BYTES_WRITTEN");
    c->mbr = iol_counter_index(mi, 0, "MAX_BYTE_READ");
    c->mbw = iol_counter_index(mi, 0, "MAX_BYTE_WRITTEN");
    c->rt = iol_counter_index(mi, 1, "READ_TIME");
    c->wt = iol_counter_index(mi, 1, "WRITE_TIME");
    c->mt = iol_counter_index(mi, 1, "META_TIME");
    c->slow = iol_counter_index(mi, 1, "SLOWEST_RANK_TIME");
    return c->br < 0 || c->bw < 0 || c->rt < 0 || c->wt < 0 || c->mt < 0 || c->slow < 0
               ? IOLENS_E_UNSUPPORTED : IOLENS_OK;
}

int iol_metric_acc_new(const iolens_module_info *mi, size_t size, void **out)
{
    iol_metric_cols c;
    int rc = iol_metric_cols_get(mi, &c);
    *out = NULL;
    if (rc != IOLENS_OK)
        return rc;
    iol_metric_cols *acc = calloc(1, size);
    if (!acc)
        return IOLENS_E_NOMEM;
    *acc = c;
    *out = acc;
    return IOLENS_OK;
}

iol_record_metrics iol_record_metrics_get(const iol_metric_cols *c, const iolens_record *r)
{
    const int64_t *iv = r->ints;
    const double *fv = r->flts;
    iol_record_metrics x;
    x.r = iv[c->br];
    x.w = iv[c->bw];
    /* only POSIX and STDIO know offsets (they have MAX_BYTE_* counters) */
    if (c->mbr >= 0 && c->mbw >= 0)
        x.m = iv[c->mbr] > iv[c->mbw] ? iv[c->mbr] : iv[c->mbw];
    else
        x.m = -1;
    if (r->rank < 0) {
        x.p = -1;
        x.io = fv[c->slow];
        x.meta = 0;
        x.rw = 0;
    } else {
        x.p = 1;
        /* darshan-parser's order of the additions (the sums are printed to 6 places) */
        x.io = (fv[c->mt] + fv[c->rt]) + fv[c->wt];
        x.meta = fv[c->mt];
        x.rw = fv[c->rt] + fv[c->wt];
    }
    return x;
}
