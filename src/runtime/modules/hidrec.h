/* Records reached through a library's handles (PnetCDF ncids and varids): the
 * lookup every event of such a module starts with, and the module hooks that map
 * and drop its handle table (hidmap.h). */
#ifndef IOLENS_RUNTIME_HIDREC_H
#define IOLENS_RUNTIME_HIDREC_H

#include "hidmap.h"

/* Lock m and return the record `key` maps to, *aux set, with the lock held; NULL
 * with the lock not held when the module is off or the handle is untracked. */
static inline void *iol_hidrec_enter(iol_module *m, const iol_hidmap *map, int64_t key, void **aux)
{
    if (!iol_mod_enter(m))
        return NULL;
    uint32_t k = iol_hidmap_get(map, key);
    if (!k) {
        iol_mod_leave(m);
        return NULL;
    }
    void *r = m->recs + (size_t)(k - 1) * m->d->rec_size;
    *aux = iol_rec_aux(m, r);
    return r;
}

/* static activate()/reset() of a module whose one handle table is `map`: the
 * table is mapped on first use (the module fails without it) and dropped after
 * fork or shutdown. */
#define IOL_HIDREC_HOOKS(map)                                                        \
    static void activate(iol_module *m)                                              \
    {                                                                                \
        if (iol_hidmap_init(&(map)) != 0) {                                          \
            m->state = -1;                                                           \
            iol_partial_set(m->d->id);      /* unrecorded: the log says so */         \
        }                                                                            \
    }                                                                                \
    static void reset(iol_module *m)                                                 \
    {                                                                                \
        (void)m;                                                                     \
        iol_hidmap_release(&(map));                                                  \
    }

#endif
