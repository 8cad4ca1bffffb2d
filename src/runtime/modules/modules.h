/* What modules offer each other (each takes its own lock; never call with another
 * module's lock held). */
#ifndef IOLENS_RUNTIME_MODULES_H
#define IOLENS_RUNTIME_MODULES_H

#include <stddef.h>
#include <stdio.h>

/* POSIX: copy the record name of a tracked fd into out; 0 or -1 (untracked). */
int iol_posix_fd_name(int fd, char *out, size_t len);
/* STDIO: copy the record name of a tracked stream into out; 0 or -1. */
int iol_stdio_stream_name(FILE *fp, char *out, size_t len);

#endif
