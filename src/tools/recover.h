/* Shared by `iolens recover` and `iolens merge`. */
#ifndef IOLENS_TOOLS_RECOVER_H
#define IOLENS_TOOLS_RECOVER_H

#include <stddef.h>
#include "iolens/log.h"

/* Is this log a safety copy (uncompressed, job end time 0)? */
int iol_is_safety_copy(iolens_log *log);
/* Write `log` with job `job` as a zlib log at `out` (idle standard streams
 * dropped, partial flags kept).  0, or an iolens_status with err filled. */
int iol_write_recovered(iolens_log *log, const char *out, const iolens_job *job,
                        char *err, size_t errlen);

#endif
