/* Internal interface of `iolens dxt` (darshan-dxt-parser's text, log-format spec
 * section 10).  All output goes to `out`; nothing here exits. */
#ifndef IOLENS_TOOLS_DXT_PRINT_H
#define IOLENS_TOOLS_DXT_PRINT_H

#include <stdio.h>
#include "iolens/log.h"

/* Print record i of d (spec section 10, item 4).  `lustre`/`li` give the Lustre
 * record of the file (li < 0: none; only used for DXT_POSIX). */
void iol_dxt_print_record(FILE *out, iolens_log *log, const iolens_dxt *d, size_t i,
                          const iolens_lustre *lustre, long li);

#endif
