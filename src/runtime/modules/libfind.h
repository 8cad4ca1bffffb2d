/* Finding the real definition of a function the runtime wraps, in a library that
 * the runtime does not link and that may be loaded late (PnetCDF; the same need
 * as hdf5_api.c's).
 *
 * iol_find_real(name): the next definition after ours (dlsym RTLD_NEXT) when the
 * library is in the global scope, else the definition in any loaded object other
 * than the runtime itself: a library that a Python extension loaded with
 * RTLD_LOCAL is invisible to RTLD_NEXT, but its callers still reach our exported
 * wrapper first.  NULL when no loaded object defines it.  Thread-safe; may take
 * the dynamic loader's lock, so never call it holding a module lock. */
#ifndef IOLENS_RUNTIME_LIBFIND_H
#define IOLENS_RUNTIME_LIBFIND_H

void *iol_find_real(const char *name);

/* The real function `name` into *slot (release store), for a wrapper's first
 * call: iol_find_real, or, when no loaded object defines it (only possible for a
 * function the application did not call), a stub returning -1 and a counted
 * failure.  errno is kept. */
void *iol_find_real_slot(const char *name, void **slot);

/* Run `resolve` once for a library (thread-safe; later calls are one load) and
 * remember its answer in *state: 1 usable, -1 not (a counted failure).  errno is
 * kept.  Returns 1 when usable. */
typedef struct iol_lib_once {
    int state;               /* 0 not tried, 1 usable, -1 not usable */
    int lock;                /* a spin flag: resolution is rare and short */
} iol_lib_once;
int iol_lib_ready(iol_lib_once *once, int (*resolve)(void));

#endif
