/* HEATMAP records of several processes' logs on one time grid, for `iolens merge`
 * (merge.c).  Every process's heatmap is binned from its own start and widens its
 * bins as it runs, so the logs of one job's processes have different bin widths
 * and counts; readers (PyDarshan's Heatmap) refuse a log whose records differ, as
 * an MPI job's ranks agree on them when they write.  So the records are moved to
 * the job's start and re-binned onto the one grid that holds them all. */
#ifndef IOLENS_MERGE_HEATMAP_H
#define IOLENS_MERGE_HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* Input i's records start `shift[i]` seconds after the job (>= 0) and get rank
 * rank_as[i] when that is >= 0, else wf_rank(rank, offset[i]) (merge_workflow.h).
 * The grid: the widest input bin, doubled until at most 200 bins (the runtime's)
 * reach the last input bin's end.  Bytes are conserved exactly: a source bin
 * split between two target bins gives the second what the first did not get.
 * When an input's region cannot be read, *bad = its index (its log holds the
 * detail). */
int merge_heatmaps(iolens_writer *w, iolens_log *const *logs, const double *shift,
                   const int64_t *rank_as, const int64_t *offset, size_t n, size_t *bad);

#endif
