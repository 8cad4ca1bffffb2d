/* Record names and ids on the wrapper path (hash.c). */
#ifndef IOLENS_RUNTIME_HASH_H
#define IOLENS_RUNTIME_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "iolens/log.h"     /* iolens_record_id(): the record id of a name */

/* The cleaned name of `path` (runtime spec 2.0.1) and its length.  Returns `path`
 * itself when it is already clean (absolute, no "//" or "/./", shorter than
 * IOL_PATH_LEN: the usual case, found without copying), otherwise the cleaned
 * copy written into buf (IOL_PATH_LEN bytes).  May call getcwd (errno!). */
const char *iol_path_name(const char *path, char *buf, size_t *len);

#endif
