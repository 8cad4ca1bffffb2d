/* Every lock of the runtime taken at once, and every module frozen, with a bounded wait (exitwrite.c):
 * the forked copy that writes the log at exit must not find a lock held by a
 * thread that does not exist in it.  The runtime's locks spin and yield
 * (rt.h), so a lock held by a vanished thread would spin for ever there. */
#include <time.h>

#include "core_int.h"
#include "locks_all.h"

static iol_lock_t *taken[IOL_MAX_MODULES + 1];
static int ntaken;

/* 1 = taken now, 0 = already ours (a signal interrupted an update on this
 * thread), -1 = still held by another thread at the deadline. */
static int take(iol_lock_t *l, long deadline)
{
    uintptr_t me = iol_self();
    for (;;) {
        uintptr_t expect = 0;
        if (__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (expect == me)
            return 0;
        if (iol_monotonic_ns() > deadline)
            return -1;
        struct timespec d = { 0, 20000 };
        nanosleep(&d, NULL);
    }
}

static int was_frozen[IOL_MAX_MODULES];

int iol_locks_take_all(long budget_ns)
{
    long deadline = iol_monotonic_ns() + budget_ns;
    size_t nfrozen = 0;
    ntaken = 0;
    /* Other threads record nothing more: the records live in the shared safety
     * copy, which the fork copy reads while this process goes on.  `frozen` is
     * written under each module's lock (readers under the lock read it plainly). */
    for (size_t i = 0; i < iol_module_ndescs; i++, nfrozen++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        int r = take(&m->lock, deadline);
        if (r < 0)
            goto fail;
        if (r > 0)
            taken[ntaken++] = &m->lock;
        was_frozen[i] = m->frozen;
        __atomic_store_n(&m->frozen, 1, __ATOMIC_RELAXED);
    }
    /* Updates of known records take only their record's lock: wait for those in
     * progress (later ones see frozen), before the name lock, which such an
     * update may take inside its record's (order: module -> record -> names).  A
     * holder whose signal handler needs a module lock makes this wait run out:
     * the write then fails (bounded), it does not deadlock. */
    for (size_t i = 0; i < iol_module_ndescs; i++)
        if (iol_rec_locks_wait(&iol_mods[iol_module_descs[i]->id], deadline) < 0)
            goto fail;
    int r = take(iol_names_lock(), deadline);     /* order: modules, then names */
    if (r < 0)
        goto fail;
    if (r > 0)
        taken[ntaken++] = iol_names_lock();
    return 0;
fail:
    for (size_t i = 0; i < nfrozen; i++)          /* their locks are held (ours) */
        __atomic_store_n(&iol_mods[iol_module_descs[i]->id].frozen, was_frozen[i],
                         __ATOMIC_RELAXED);
    iol_locks_give_all();
    return -1;
}

void iol_locks_give_all(void)
{
    while (ntaken > 0)
        iol_unlock(taken[--ntaken]);
}

void iol_locks_reset_in_copy(void)
{
    iol_locks_give_all();
    for (size_t i = 0; i < iol_module_ndescs; i++)
        iol_rec_locks_clear(&iol_mods[iol_module_descs[i]->id]);
}

int iol_locks_mine(void)
{
    uintptr_t me = iol_self();
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (__atomic_load_n(&m->lock, __ATOMIC_RELAXED) == me || iol_rec_locks_mine(m))
            return 1;
    }
    return __atomic_load_n(iol_names_lock(), __ATOMIC_RELAXED) == me;
}
