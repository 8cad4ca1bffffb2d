/* Waiting for the holders of a module's record locks (rt.h, iol_rec_lock): the
 * shutdown freeze (records.c) and the exit write (locks_all.c) copy records only
 * once no thread is inside an update of one. */
#include <sched.h>
#include <time.h>

#include "core_int.h"

/* Take and give back l: 0 done (or l is ours), -1 still held at the deadline. */
static int pass(iol_lock_t *l, uintptr_t me, long deadline_ns)
{
    for (unsigned spins = 0;; spins++) {
        uintptr_t expect = 0;
        if (__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            iol_unlock(l);
            return 0;
        }
        if (expect == me)
            return 0;
        if (spins < 64) {
            iol_arch_pause();
            continue;
        }
        if (deadline_ns >= 0 && iol_monotonic_ns() > deadline_ns)
            return -1;
        sched_yield();
    }
}

int iol_rec_locks_wait(iol_module *m, long deadline_ns)
{
    if (!m->d || !m->d->rec_locks || m->state != 1 || !m->aux)
        return 0;
    uintptr_t me = iol_self();
    for (size_t i = 0; i < m->count; i++)
        if (pass(iol_rec_lock_of(m, i), me, deadline_ns) < 0)
            return -1;
    return 0;
}

void iol_rec_locks_clear(iol_module *m)
{
    if (!m->d || !m->d->rec_locks || m->state != 1 || !m->aux)
        return;
    for (size_t i = 0; i < m->count; i++)
        __atomic_store_n(iol_rec_lock_of(m, i), 0, __ATOMIC_RELAXED);
}

int iol_rec_locks_mine(const iol_module *m)
{
    if (!m->d || !m->d->rec_locks || m->state != 1 || !m->aux)
        return 0;
    uintptr_t me = iol_self();
    size_t n = __atomic_load_n(&m->count, __ATOMIC_RELAXED);
    for (size_t i = 0; i < n; i++)
        if (__atomic_load_n(iol_rec_lock_of(m, i), __ATOMIC_RELAXED) == me)
            return 1;
    return 0;
}
