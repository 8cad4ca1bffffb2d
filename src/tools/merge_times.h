/* The times of a merged log (merge.c): every process's log counts its timestamps
 * from its own start; the merged log counts them from the job's start (the
 * earliest input's), so input i's are moved by shift[i], its start's offset from
 * the job's (docs/convert.md, "What merge does to times"). */
#ifndef IOLENS_TOOLS_MERGE_TIMES_H
#define IOLENS_TOOLS_MERGE_TIMES_H

#include <stddef.h>

#include "iolens/log.h"

/* Which of a module's float counters are timestamps (unit IOLENS_UNIT_TIMESTAMP,
 * counter_units.c): n_flt flags, NULL when out of memory.  free() it. */
char *merge_timestamp_columns(const iolens_module_info *mi);

/* A record's timestamps + shift: those that are set (0 means "never" and stays 0). */
void merge_shift_timestamps(const char *is_stamp, size_t n_flt, double *flts, double shift);

/* MDHIM records of all inputs (their counters carry timestamps, their tails the
 * server histograms): decoded, timestamps moved, written in input order with
 * their stored ranks, as one region.  When an input's region cannot be read,
 * *bad = its index (its log holds the detail). */
int merge_mdhim(iolens_writer *w, iolens_log *const *logs, const double *shift, size_t n,
                size_t *bad);

#endif
