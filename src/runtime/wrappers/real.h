/* Pointers to the real (next) definitions of every intercepted function, expanded
 * from intercept.def.  IOL_REAL(name) yields the pointer, resolving it on first use
 * if init has not run yet.  A symbol that cannot be resolved is counted as a
 * failure and yields a stub that fails with ENOSYS: never exit(). */
#ifndef IOLENS_RUNTIME_REAL_H
#define IOLENS_RUNTIME_REAL_H

#define _GNU_SOURCE 1
#include <aio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct iol_real_table {
#define IOL_FN(mod, ret, name, params) ret (*name) params;
#include "intercept.def"
#undef IOL_FN
} iol_real_table;

extern iol_real_table iol_real;

/* Resolve the entry named `name` into *slot; returns the pointer (never NULL). */
void *iol_real_resolve(const char *name, void **slot);
/* Resolve every entry (called once at init). */
void iol_real_resolve_all(void);

#ifdef IOL_STATIC_WRAP
/* The static --wrap runtime (libiolens-mpi-wrap.a, docs/mpi.md): the wrappers are
 * renamed __wrap_<fn> in the archive and the real functions are GNU ld's
 * __real_<fn>.  The declarations are weak so that a name the C library only has
 * as an old versioned symbol (e.g. __xstat since glibc 2.33) links; such a name
 * falls back to dlsym(RTLD_NEXT) at run time. */
#define IOL_FN(mod, ret, name, params) extern ret __real_##name params __attribute__((weak));
#include "intercept.def"
#undef IOL_FN
#define IOL_REAL(name)                                                          \
    (__builtin_expect(__real_##name != NULL, 1)                                 \
         ? (__typeof__(iol_real.name))__real_##name                             \
         : (__builtin_expect(iol_real.name != NULL, 1)                          \
                ? iol_real.name                                                 \
                : (__typeof__(iol_real.name))iol_real_resolve(#name, (void **)&iol_real.name)))
#define IOL_REAL_ON(name) IOL_REAL(name)
#else
#define IOL_REAL(name)                                                          \
    (__builtin_expect(iol_real.name != NULL, 1)                                 \
         ? iol_real.name                                                        \
         : (__typeof__(iol_real.name))iol_real_resolve(#name, (void **)&iol_real.name))
/* A function of IOL_ALWAYS_REAL once iol_on() holds: init has resolved it
 * (iol_real_resolve_all, before the state becomes on), so no test is needed. */
#define IOL_REAL_ON(name) (iol_real.name)
#endif
/* Functions every C library has, which the hot wrappers call through IOL_REAL_ON:
 * iol_real_resolve_all resolves each of them, or makes it the ENOSYS stub. */
#define IOL_ALWAYS_REAL(X) \
    X(read) X(write) X(pread) X(pwrite) X(pread64) X(pwrite64) X(readv) X(writev) X(lseek) \
    X(lseek64) X(close)

#endif
