/* LUSTRE records of several logs in one, for `iolens merge` (merge.c).  The
 * regions are decoded, not concatenated: inputs may hold different record
 * versions (v1 from runtimes before 3.4.6, v2 after) or byte orders, and each
 * record takes the rank its input's other records get. */
#ifndef IOLENS_MERGE_LUSTRE_H
#define IOLENS_MERGE_LUSTRE_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* How input i's records are placed: rank_as[i] >= 0 renumbers all of them (one
 * more process); else, with workflow set, wf_rank(rank, offset[i])
 * (merge_workflow.h); else their stored ranks.  With `reduce`, a file that each
 * of the member inputs (member[i] != 0, at least two) holds once -- as a shared
 * record (rank -1) when workflow is set -- keeps one record, the first member's,
 * as a shared record: the one an MPI job's rank 0 writes for a file all ranks
 * opened (log-format 7.9).  Shared records are written first.  When an input's
 * region cannot be read, *bad = its index (its log holds the detail). */
typedef struct lustre_place {
    const int64_t *rank_as, *offset;
    const char *member;
    int workflow, reduce;
} lustre_place;

int merge_lustre(iolens_writer *w, iolens_log *const *logs, const lustre_place *pl, size_t n,
                 size_t *bad);

#endif
