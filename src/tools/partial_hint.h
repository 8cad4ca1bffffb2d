/* One line naming a partial module, the likely reason and the setting that fixes it
 * (partial_hint.c).  Printed after darshan-parser's own notice, which stays as is. */
#ifndef IOLENS_PARTIAL_HINT_H
#define IOLENS_PARTIAL_HINT_H

#include <stdio.h>
#include "iolens/log.h"

void iol_partial_hint(FILE *out, const char *tool, const char *path, iolens_log *log,
                      const iolens_module_info *mi);

#endif
