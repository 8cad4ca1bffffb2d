/* The failure counts: what went wrong inside wrappers, counted lock-free from any
 * thread and reported once at shutdown (report.c).  A file of its own because the
 * lowest layers count failures (wrappers/real.c: a symbol that cannot be
 * resolved) while the reporting writes through those layers: neither uses the
 * other, both use this (ctest iolens-runtime_core_one_way). */
#include "rt.h"

static unsigned long counts[IOL_FAIL_COUNT];

void iol_fail(enum iol_failure what)
{
    __atomic_add_fetch(&counts[what], 1, __ATOMIC_RELAXED);
}

unsigned long iol_failures(enum iol_failure what)
{
    return __atomic_load_n(&counts[what], __ATOMIC_RELAXED);
}
