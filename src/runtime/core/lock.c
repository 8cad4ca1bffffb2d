/* The slow path of the per-module spin lock (rt.h: iol_lock takes the fast path
 * inline): spin briefly with the pause hint (arch.h), then yield, so a preempted holder can run. */
#include <sched.h>

#include "core_int.h"

void iol_lock_slow(iol_lock_t *l, uintptr_t me)
{
    for (unsigned spins = 0;; spins++) {
        uintptr_t expect = 0;
        if (__atomic_load_n(l, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        if (spins < 64)
            iol_arch_pause();
        else
            sched_yield();
    }
}
