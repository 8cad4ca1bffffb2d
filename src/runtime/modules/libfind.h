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

#endif
