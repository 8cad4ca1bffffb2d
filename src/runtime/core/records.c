/* Bounded record memory (runtime spec section 4): one MODMEM pool, reserved by
 * each module at first use (min(request, what is left) records), plus a per-module
 * id -> record hash.  Registration follows upstream's order of checks so that the
 * partial flags match. */
#include <string.h>

#include "core_int.h"
#include "safety.h"

iol_module iol_mods[IOL_MAX_MODULES];
static uint8_t *pool;
static size_t pool_size, pool_used;
static uint64_t partial;

/* iol_on() when the state is not IOL_ON or the thread is busy. */
__attribute__((noinline)) int iol_on_slow(void)
{
    if (iol_vfork_child())        /* shares the parent's memory: record nothing */
        return 0;
    int s = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (s == IOL_ON)
        return !iol_busy;
    if (s == IOL_UNINIT && !iol_busy) {
        /* Init does I/O of its own; a successful wrapped call must leave errno
         * exactly as it was, so init must not change it. */
        int saved_errno = errno;
        iol_core_init_lazy();
        errno = saved_errno;
        return __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE) == IOL_ON;
    }
    return 0;
}

void iol_partial_set(int modid)
{
    __atomic_or_fetch(&partial, (uint64_t)1 << modid, __ATOMIC_RELAXED);
    iol_safety_partial((uint64_t)1 << modid);
}

uint64_t iol_partial_get(void) { return __atomic_load_n(&partial, __ATOMIC_RELAXED); }

int iol_records_init(void)
{
    iol_clock_setup();
    pool_size = iol_cfg.modmem;
    pool_used = 0;
    partial = 0;
    pool = iol_safety_open(pool_size, iol_cfg.namemem);   /* file-backed, or NULL */
    if (!pool)
        pool = iol_map(pool_size);
    if (!pool)
        return -1;
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        const iol_module_desc *d = iol_module_descs[i];
        iol_module *m = &iol_mods[d->id];
        memset(m, 0, sizeof *m);
        m->d = d;
        if ((iol_cfg.mod_disabled >> d->id) & 1)
            m->state = -1;
    }
    return iol_names_init(iol_cfg.namemem);
}

static size_t hash_cap(size_t n)
{
    size_t c = 16;
    while (c < 2 * n)
        c <<= 1;
    return c;
}

void iol_records_release(void)
{
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        iol_unmap(m->aux, m->cap * m->d->aux_size);
        iol_unmap(m->slots, (m->hmask + 1) * sizeof *m->slots);
        memset(m, 0, sizeof *m);
    }
    if (iol_safety_owns(pool))
        iol_safety_forget();          /* a fork child: the file is the parent's */
    else
        iol_unmap(pool, pool_size);
    pool = NULL;
    iol_names_release();
}

/* First use: reserve records from the pool (section 4).  Module lock held. */
void iol_mod_activate(iol_module *m)
{
    const iol_module_desc *d = m->d;
    if (d->own_memory) {
        m->state = 1;
        if (d->activate)
            d->activate(m);       /* may set state -1 when its memory is not there */
        return;
    }
    int64_t want = d->default_records;
    if (!d->fixed_records && iol_cfg.max_records[d->id] > 0)
        want = iol_cfg.max_records[d->id];
    size_t room = (pool_size - pool_used) / d->rec_size;
    m->cap = (size_t)want < room ? (size_t)want : room;
    m->recs = pool + pool_used;
    pool_used += m->cap * d->rec_size;
    m->hmask = hash_cap(m->cap) - 1;
    m->slots = iol_map((m->hmask + 1) * sizeof *m->slots);
    m->aux = d->aux_size ? iol_map(m->cap * d->aux_size) : NULL;
    if (!m->slots || (d->aux_size && m->cap && !m->aux)) {
        m->state = -1;
        return;
    }
    m->state = 1;
    if (m->cap)
        iol_safety_module(d->id, d->version, m->recs);
    if (d->activate)
        d->activate(m);
}

static inline size_t slot_of(const iol_module *m, uint64_t id)
{
    return (size_t)(id ^ (id >> 29)) & m->hmask;
}

void *iol_rec_find(iol_module *m, uint64_t id, void **aux)
{
    for (size_t s = slot_of(m, id);; s = (s + 1) & m->hmask) {
        uint32_t v = m->slots[s];
        if (!v)
            return NULL;
        uint8_t *rec = m->recs + (size_t)(v - 1) * m->d->rec_size;
        if (*(uint64_t *)rec == id) {
            if (aux)
                *aux = m->aux + (size_t)(v - 1) * m->d->aux_size;
            return rec;
        }
    }
}

void *iol_rec_register(iol_module *m, const char *name, uint64_t id, void **aux)
{
    const iol_module_desc *d = m->d;
    if (m->count >= m->cap) {
        iol_partial_set(d->id);
        return NULL;
    }
    if (d->path_names && iol_name_excluded(d->id, name))
        return NULL;
    int rc = iol_name_store(id, name, d->id);
    if (rc != 0) {
        if (rc == -1)
            iol_partial_set(d->id);
        return NULL;
    }
    size_t i = m->count++;
    uint8_t *rec = m->recs + i * d->rec_size;
    void *a = m->aux ? m->aux + i * d->aux_size : NULL;
    memset(rec, 0, d->rec_size);
    if (a)
        memset(a, 0, d->aux_size);
    memcpy(rec, &id, 8);
    int64_t rank = iol_rank;
    memcpy(rec + 8, &rank, 8);
    size_t s = slot_of(m, id);
    while (m->slots[s])
        s = (s + 1) & m->hmask;
    m->slots[s] = (uint32_t)(i + 1);
    if (d->rec_init)
        d->rec_init(m, name, rec, a);
    iol_safety_region_len(d->id, (uint64_t)m->count * d->rec_size);
    if (aux)
        *aux = a;
    return rec;
}

void iol_modules_freeze(void)
{
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        int locked = iol_trylock_own(&m->lock);   /* 0: we are in a signal handler that
                                                     interrupted this module's update */
        m->frozen = 1;
        if (locked)
            iol_unlock(&m->lock);
    }
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (m->state == 1 && m->d->finish)
            m->d->finish(m);
    }
}

/* Shutdown: the output callbacks rewrite records in place, so they get a private
 * copy and the safety file stays a valid log until the real one is written. */
void iol_records_detach(void)
{
    if (!iol_safety_owns(pool) || pool_used == 0)
        return;
    uint8_t *copy = iol_map(pool_size);
    if (!copy)
        return;                       /* outputs then edit the file; still readable */
    for (size_t i = 0; i < iol_module_ndescs; i++) {   /* the records in use, not the
                                                         reservations (untouched pages) */
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (!m->recs)
            continue;
        uint8_t *to = copy + (m->recs - pool);
        memcpy(to, m->recs, m->count * m->d->rec_size);
        m->recs = to;
    }
    pool = copy;
}
