/* Internal interface of `iolens dxt` (darshan-dxt-parser's text, log-format spec
 * section 10).  All output goes to `out`; nothing here exits. */
#ifndef IOLENS_TOOLS_DXT_PRINT_H
#define IOLENS_TOOLS_DXT_PRINT_H

#include <stdio.h>
#include "iolens/log.h"

/* Items 1-4 of darshan-parser's output (spec 9.1): version warning, job block,
 * region block, mount block. */
void iol_dxt_print_preamble(FILE *out, iolens_log *log);

/* Mount point and fs type of a record name ("UNKNOWN" for both if none): the
 * first entry of the (sorted) mount table that is a byte prefix of the name. */
void iol_dxt_mount_of(const iolens_job *job, const char *name, const char **mnt,
                      const char **fstype);

/* Print record i of d (spec section 10, item 4).  `lustre`/`li` give the Lustre
 * record of the file (li < 0: none; only used for DXT_POSIX). */
void iol_dxt_print_record(FILE *out, iolens_log *log, const iolens_dxt *d, size_t i,
                          const iolens_lustre *lustre, long li);

#endif
