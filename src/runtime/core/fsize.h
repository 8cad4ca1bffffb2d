/* The runtime's own files under RLIMIT_FSIZE (fsize.c): never SIGXFSZ for the
 * program because of a file of ours. */
#ifndef IOLENS_RUNTIME_FSIZE_H
#define IOLENS_RUNTIME_FSIZE_H

#include <signal.h>
#include <stddef.h>

/* 1 when a file of `len` bytes may be made (no RLIMIT_FSIZE, or within it). */
int iol_fsize_fits(size_t len);

typedef struct iol_fsize_guard_t {
    int on;              /* a limit is set: SIGXFSZ was blocked here */
    int was_pending;     /* a SIGXFSZ was pending before (the program's) */
    sigset_t old;        /* the thread's mask before */
} iol_fsize_guard_t;

/* Around our own writes, on one thread: SIGXFSZ blocked, so a write past the
 * limit fails with EFBIG; unguard takes back the SIGXFSZ the writes raised and
 * restores the mask.  Both keep errno.  May nest (an inner pair sees the outer's
 * pending signal as not its own and leaves it to the outer one). */
void iol_fsize_guard(iol_fsize_guard_t *g);
void iol_fsize_unguard(iol_fsize_guard_t *g);

#endif
