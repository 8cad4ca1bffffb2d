/* Shared by `iolens recover` and `iolens merge`. */
#ifndef IOLENS_TOOLS_RECOVER_H
#define IOLENS_TOOLS_RECOVER_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* Recover the safety copy `in` into a log in `logdir` (NULL: where the process's
 * own log would have gone) and delete it (unless `keep`), as `iolens recover`
 * does; a copy whose process still runs is refused unless `force`.  `quiet`
 * leaves out the success lines on stdout (errors still go to stderr).  0 = done
 * or nothing to do, 1 = failed; made (when given) receives the new log's path,
 * or "" when none was written. */
int iol_recover_one(const char *in, const char *logdir, int keep, int force, int quiet,
                    char *made, size_t madelen);

/* Does the process whose safety copy this is (the pid in its name) still run? */
int iol_safety_copy_running(const char *path);

/* Is this log a safety copy (uncompressed, job end time 0)? */
int iol_is_safety_copy(iolens_log *log);
/* Regions to add to a recovered log for modules it does not hold (the DXT traces
 * recovered from the store files), with their record versions. */
typedef struct iol_extra_regions {
    void *data[IOL_MAX_MODULES];
    size_t len[IOL_MAX_MODULES];
    int version[IOL_MAX_MODULES];
} iol_extra_regions;

/* Write `log` with job `job` as a zlib log at `out` (idle standard streams
 * dropped, partial flags kept), adding `extra` (NULL: none).  0, or an
 * iolens_status with err filled. */
int iol_write_recovered(iolens_log *log, const char *out, const iolens_job *job,
                        const iol_extra_regions *extra, char *err, size_t errlen);

/* recover_dxt.c: the DXT region of module `modid` decoded from the store file the
 * runtime kept beside safety copy `copy` (<copy>.dxt-posix / .dxt-mpiio).  Returns
 * 0 when there is no such file, else 1 with x's data[modid] (malloc'd, NULL when
 * nothing decodes), len and record version set, the segments' regions appended to
 * x's DXT_REGION region, and note set to a message when the trace is lost. */
int iol_recover_dxt(const char *copy, int modid, iol_extra_regions *x, char *note, size_t notelen);
/* The latest segment end (seconds) in a DXT region as iol_recover_dxt made it,
 * whose segments are seg_size (32 or 40) bytes. */
double iol_dxt_region_last_end(const void *region, size_t len, size_t seg_size);
/* Delete the store files beside `copy` (DXT and LUSTRE; regular files of the
 * copy's owner only). */
void iol_recover_dxt_remove(const char *copy);

/* Is `path`, a store file beside safety copy `copy`, one the copy's owner made?  A
 * regular file (not a symbolic link) with the copy's owner: a name someone else
 * took is neither read nor removed.  1 yes, 0 no, -1 absent. */
int iol_sidecar_ours(const char *copy, const char *path);
/* Read the store file `path` beside `copy` whole (malloc'd into *store, NULL when
 * empty).  -1: absent; 0: not the owner's or unreadable, with a note ending
 * "<loss> not recovered"; 1: read. */
int iol_sidecar_load(const char *copy, const char *path, const char *loss, uint8_t **store,
                     size_t *size, char *note, size_t notelen);

/* recover_lustre.c: the LUSTRE region decoded from the store file the runtime
 * kept beside safety copy `copy` (<copy>.lustre).  Returns 0 when there is no
 * such file, else 1 with *region (malloc'd, NULL when no record decodes) and
 * *len, and note set to a message when the records are lost. */
int iol_recover_lustre(const char *copy, void **region, size_t *len, char *note, size_t notelen);

#endif
