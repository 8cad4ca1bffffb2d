/* The combine engine of `iolens merge` (merge.c), for the verbs that make one
 * log of a job's processes: `iolens merge` itself and `iolens run`. */
#ifndef IOLENS_TOOLS_MERGE_H
#define IOLENS_TOOLS_MERGE_H

#include <stddef.h>

/* Merge the logs (or safety copies) of one job's processes, paths[0..n-1], into
 * a new zlib log at `out`, as `iolens merge` does: launcher and MPI ranks kept,
 * every other process numbered after them, files every rank has reduced into
 * shared records, every process's times counted from the job's start (the
 * earliest process's; docs/convert.md, "What merge does to times").  The inputs are taken in the order their processes started,
 * so without launcher ranks the first process started (the root of a process
 * tree) is rank 0.  Two logs of one process are refused.  Returns 0, or an
 * iolens_status with `err` set and `out` removed. */
int iol_merge_job(const char *const *paths, size_t n, const char *out, char *err, size_t errlen);

#endif
