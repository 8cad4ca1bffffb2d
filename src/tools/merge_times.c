/* Times of a merged log (merge_times.h). */
#include <stdlib.h>
#include <string.h>

#include "iolens/counters.h"
#include "merge_times.h"

char *merge_timestamp_columns(const iolens_module_info *mi)
{
    char *is_stamp = calloc(mi->n_flt + 1, 1);
    for (size_t k = 0; is_stamp && k < mi->n_flt; k++)
        is_stamp[k] = iolens_counter_unit(mi, 1, k) == IOLENS_UNIT_TIMESTAMP;
    return is_stamp;
}

void merge_shift_timestamps(const char *is_stamp, size_t n_flt, double *flts, double shift)
{
    for (size_t k = 0; shift != 0 && k < n_flt; k++)
        if (is_stamp[k] && flts[k] != 0)
            flts[k] += shift;
}

/* Room in `all` for `count` records and `ntail` histogram values in all. */
static int grow(iolens_records *all, size_t count, size_t ntail)
{
    uint64_t *id = realloc(all->id, (count + 1) * 8);
    if (id) all->id = id;
    int64_t *rank = realloc(all->rank, (count + 1) * 8);
    if (rank) all->rank = rank;
    int64_t *ints = realloc(all->ints, (count * all->n_int + 1) * 8);
    if (ints) all->ints = ints;
    double *flts = realloc(all->flts, (count * all->n_flt + 1) * 8);
    if (flts) all->flts = flts;
    size_t *ts = realloc(all->tail_start, (count + 2) * sizeof *ts);
    if (ts) all->tail_start = ts;
    int64_t *tail = realloc(all->tail, (ntail + 1) * 8);
    if (tail) all->tail = tail;
    return id && rank && ints && flts && ts && tail ? IOLENS_OK : IOLENS_E_NOMEM;
}

/* Input records r appended to all, their timestamps + shift. */
static int append(iolens_records *all, const iolens_records *r, const char *is_stamp,
                  double shift)
{
    size_t c = all->count, t = all->tail_start[c];
    size_t rt = r->tail_start ? r->tail_start[r->count] : 0;
    int rc = grow(all, c + r->count, t + rt);
    if (rc)
        return rc;
    memcpy(all->id + c, r->id, r->count * 8);
    memcpy(all->rank + c, r->rank, r->count * 8);
    memcpy(all->ints + c * all->n_int, r->ints, r->count * r->n_int * 8);
    memcpy(all->flts + c * all->n_flt, r->flts, r->count * r->n_flt * 8);
    for (size_t i = 0; i < r->count; i++) {
        merge_shift_timestamps(is_stamp, all->n_flt, all->flts + (c + i) * all->n_flt, shift);
        all->tail_start[c + i + 1] = t + (r->tail_start ? r->tail_start[i + 1] : 0);
    }
    if (rt)
        memcpy(all->tail + t, r->tail, rt * 8);
    all->count = c + r->count;
    return IOLENS_OK;
}

int merge_mdhim(iolens_writer *w, iolens_log *const *logs, const double *shift, size_t n,
                size_t *bad)
{
    const iolens_module_info *mi = iolens_module_info_get(IOL_MOD_MDHIM);
    iolens_records all;
    memset(&all, 0, sizeof all);
    all.module = IOL_MOD_MDHIM;
    all.stored_version = mi->version;
    all.n_int = mi->n_int;
    all.n_flt = mi->n_flt;
    char *is_stamp = merge_timestamp_columns(mi);
    int rc = is_stamp && grow(&all, 0, 0) == IOLENS_OK ? IOLENS_OK : IOLENS_E_NOMEM;
    if (!rc)
        all.tail_start[0] = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        iolens_records *r = NULL;
        if (!iolens_log_header(logs[i])->mod[IOL_MOD_MDHIM].len)
            continue;
        if ((rc = iolens_log_records(logs[i], IOL_MOD_MDHIM, &r)) != IOLENS_OK)
            *bad = i;
        else
            rc = append(&all, r, is_stamp, shift[i]);
        iolens_records_free(r);
    }
    if (!rc && all.count)
        rc = iolens_writer_put_records(w, &all);
    free(all.id), free(all.rank), free(all.ints), free(all.flts);
    free(all.tail_start), free(all.tail), free(is_stamp);
    return rc;
}
