/* Internal interface of the derived figures (metrics_*.c; iolens/metrics.h):
 * the counters --file and --perf read from each record, found once per module
 * from its counter table by name. */
#ifndef IOLENS_FORMAT_METRICS_INTERNAL_H
#define IOLENS_FORMAT_METRICS_INTERNAL_H

#include <stdint.h>
#include "iolens/metrics.h"

/* Wrapping 64-bit addition: sums of hostile counters must not be undefined. */
static inline int64_t iol_add64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Index of the counter named <module prefix>_<suffix> ("BYTES_READ"; in the float
 * table the prefix is followed by "F_"), or -1.  flt selects the float table. */
int iol_counter_index(const iolens_module_info *mi, int flt, const char *suffix);

/* Counter indexes shared by --file and --perf (mbr/mbw are -1 for modules
 * without offsets). */
typedef struct iol_metric_cols {
    int br, bw, mbr, mbw, rt, wt, mt, slow;
} iol_metric_cols;

/* IOLENS_OK, or IOLENS_E_UNSUPPORTED when the module has no summaries or its
 * table lacks a needed counter. */
int iol_metric_cols_get(const iolens_module_info *mi, iol_metric_cols *c);

/* A zeroed accumulator of `size` bytes whose first member is its iol_metric_cols,
 * filled: IOLENS_OK, IOLENS_E_UNSUPPORTED (as above) or IOLENS_E_NOMEM; *out is
 * NULL on failure. */
int iol_metric_acc_new(const iolens_module_info *mi, size_t size, void **out);

/* What one record contributes: bytes read/written, its largest offset (-1:
 * unknown), whether it is one process's (1) or shared (-1), and its I/O,
 * metadata and read+write time (a shared record's io is its SLOWEST_RANK_TIME). */
typedef struct iol_record_metrics {
    int64_t r, w, m, p;
    double io, meta, rw;
} iol_record_metrics;

iol_record_metrics iol_record_metrics_get(const iol_metric_cols *c, const iolens_record *r);

#endif
