/* The directory of the running executable: the tools find their own install,
 * build tree and sibling commands relative to it, so a moved install works. */
#ifndef IOLENS_TOOLS_SELF_DIR_H
#define IOLENS_TOOLS_SELF_DIR_H

#include <stddef.h>

/* The directory of the running executable (symbolic links resolved) into OUT
 * (LEN bytes).  Returns 0, or -1 when /proc/self/exe cannot be read or does not
 * fit. */
int iol_self_dir(char *out, size_t len);

#endif
