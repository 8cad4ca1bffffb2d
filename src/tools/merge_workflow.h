/* `iolens merge --workflow`: logs of different jobs (the steps of a workflow) in
 * one log.  Job k's ranks become offset_k + rank, where offset_k is the sum of the
 * nprocs of the jobs before it; the merged job has the sum of all nprocs. */
#ifndef IOLENS_MERGE_WORKFLOW_H
#define IOLENS_MERGE_WORKFLOW_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* The rank a record of a job with `nprocs` processes gets in the workflow log: its
 * own rank moved by `offset`.  A record of a file shared by all of that job's ranks
 * (rank -1) cannot stay -1, which would claim the other jobs' ranks too: it goes to
 * the job's first rank (offset) unless every input holds the file, in which case
 * the records are combined into one shared record (merge.c, reduce). */
int64_t wf_rank(int64_t rank, int64_t offset);

/* Rank offsets of n logs (offset[0] = 0) and the total process count. */
int64_t wf_offsets(iolens_log *const *logs, size_t n, int64_t *offset);

/* Where input i's DXT records go: rank rank_as[i] when rank_as is given and
 * rank_as[i] >= 0 (one process renumbered by `iolens merge`), else
 * wf_rank(rank, offset[i]); segment start and end + shift[i] (seconds from the
 * merged job's start to input i's; shift NULL: none). */
typedef struct dxt_place {
    const int64_t *offset, *rank_as;
    const double *shift;
} dxt_place;

/* DXT module of all inputs: decoded, ranks and times moved (dxt_place), written
 * as one region (the raw regions cannot be concatenated: their stored versions
 * may differ).  Thread ids are kept (the region then has the version with thread
 * ids).  When an input's region cannot be read, *bad = its index (its log holds
 * the detail). */
int wf_merge_dxt(iolens_writer *w, int module, iolens_log *const *logs, dxt_place pl, size_t n,
                 size_t *bad);

#endif
