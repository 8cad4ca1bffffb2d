/* Bounded record memory (runtime spec section 4): one MODMEM pool, reserved by
 * each module at first use (min(request, what is left) records), plus a per-module
 * id -> record hash.  Registration follows upstream's order of checks so that the
 * partial flags match. */
#include <sched.h>
#include <string.h>

#include "core_int.h"
#include "safety.h"

iol_module iol_mods[IOL_MAX_MODULES];
static uint8_t *pool;
static size_t pool_size, pool_used;
static size_t pool_mapped;          /* bytes mapped at pool: pool_size, or after
                                       iol_records_detach the records in use */
static uint64_t partial;
__thread uint64_t iol_path_cache[IOL_PATH_CACHE] __attribute__((tls_model("initial-exec")));
static uint32_t records_gen;        /* one more at every start of the records */
/* The seq table (rt.h IOL_REC_HEAD, docs/live.md): after the pool, one word per
 * 2^seq_shift bytes of it.  The shift is that of the smallest record of a module
 * with record locks, so two such records never share a word; the others' words
 * are unused.  In the safety copy it is part of the file (safety.c says where). */
static uint32_t *seqs;
static unsigned seq_shift;
static size_t seq_len;

static size_t page_round(size_t n)
{
    size_t pg = 4096;
    return (n + pg - 1) / pg * pg;
}

static void seq_layout(void)
{
    size_t smallest = 1u << 12;
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        const iol_module_desc *d = iol_module_descs[i];
        if (d->rec_locks && d->rec_size < smallest)
            smallest = d->rec_size;
    }
    for (seq_shift = 0; (2u << seq_shift) <= smallest; seq_shift++)
        ;
    seq_len = page_round(((pool_size >> seq_shift) + 1) * sizeof *seqs);
}

void iol_partial_set(int modid)
{
    __atomic_or_fetch(&partial, (uint64_t)1 << modid, __ATOMIC_RELAXED);
    iol_safety_partial((uint64_t)1 << modid);
}

uint64_t iol_partial_get(void) { return __atomic_load_n(&partial, __ATOMIC_RELAXED); }

int iol_records_init(void)
{
    pool_size = iol_cfg.modmem;
    pool_used = 0;
    records_gen = (records_gen + 1) & 0xffff;
    if (records_gen == 0)
        records_gen = 1;                  /* path tags are never 0 */
    partial = 0;
    seq_layout();
    pool_mapped = page_round(pool_size) + seq_len;
    pool = iol_safety_open(pool_mapped, iol_cfg.namemem);   /* file-backed, or NULL */
    if (!pool)
        pool = iol_map(pool_mapped);
    if (!pool)
        return -1;
    seqs = (uint32_t *)(pool + page_round(pool_size));
    iol_safety_seqs(page_round(pool_size), seq_shift, seq_len);
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        const iol_module_desc *d = iol_module_descs[i];
        iol_module *m = &iol_mods[d->id];
        memset(m, 0, sizeof *m);
        m->d = d;
        if ((iol_cfg.mod_disabled >> d->id) & 1)
            m->state = -1;
    }
    if (iol_names_init(iol_cfg.namemem) == 0)
        return 0;
    /* Nothing will be recorded: leave no safety copy behind (issue #34). */
    if (iol_safety_owns(pool))
        iol_safety_discard();
    else
        iol_unmap(pool, pool_mapped);
    pool = NULL;
    iol_names_release();
    return -1;
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
        iol_unmap(m->names, m->cap * sizeof *m->names);
        memset(m, 0, sizeof *m);
    }
    if (iol_safety_owns(pool))
        iol_safety_forget();          /* a fork child: the file is the parent's */
    else
        iol_unmap(pool, pool_mapped);
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
    /* Two modules may be activated at once (each under its own lock): the
     * reservation is taken from the pool with a compare-and-swap. */
    size_t used = __atomic_load_n(&pool_used, __ATOMIC_RELAXED), room;
    do {
        room = (pool_size - used) / d->rec_size;
        m->cap = (size_t)want < room ? (size_t)want : room;
    } while (!__atomic_compare_exchange_n(&pool_used, &used, used + m->cap * d->rec_size, 0,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    m->recs = pool + used;
    m->hmask = hash_cap(m->cap) - 1;
    m->slots = iol_map((m->hmask + 1) * sizeof *m->slots);
    m->aux = d->aux_size ? iol_map(m->cap * d->aux_size) : NULL;
    if (!m->slots || (d->aux_size && m->cap && !m->aux)) {
        m->state = -1;
        iol_partial_set(d->id);       /* its I/O goes unrecorded: the log says so */
        return;
    }
    __atomic_store_n(&m->state, 1, __ATOMIC_RELEASE);   /* after recs/aux: holds_top_lock */
    __atomic_store_n(&m->path_tag, records_gen << 8 | (uint32_t)d->id, __ATOMIC_RELAXED);
    __atomic_store_n(&m->names, iol_map(m->cap * sizeof *m->names), __ATOMIC_RELAXED);
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
    const char *stored;
    int rc = iol_name_store(id, name, d->id, &stored);
    if (rc != 0) {
        if (rc == -1)
            iol_partial_set(d->id);
        return NULL;
    }
    size_t i = m->count;
    uint8_t *rec = m->recs + i * d->rec_size;
    void *a = m->aux ? m->aux + i * d->aux_size : NULL;
    memset(rec, 0, d->rec_size);
    if (a)
        memset(a, 0, d->aux_size);
    if (a && d->rec_locks)          /* the aux starts with IOL_REC_HEAD (rt.h) */
        *(uint32_t **)((uint8_t *)a + sizeof(iol_lock_t)) = &seqs[(size_t)(rec - pool) >> seq_shift];
    /* After the aux (its lock) is cleared: holds_top_lock reads the locks of
     * the first `count` records without the module lock. */
    __atomic_store_n(&m->count, i + 1, __ATOMIC_RELEASE);
    memcpy(rec, &id, 8);
    int64_t rank = iol_rank;
    memcpy(rec + 8, &rank, 8);
    size_t s = slot_of(m, id);
    while (m->slots[s])
        s = (s + 1) & m->hmask;
    m->slots[s] = (uint32_t)(i + 1);
    if (m->names)
        m->names[i] = (iol_name_ref){stored, strlen(stored)};
    if (d->rec_init)
        d->rec_init(m, name, rec, a);
    iol_safety_region_len(d->id, (uint64_t)m->count * d->rec_size);
    if (aux)
        *aux = a;
    return rec;
}

/* Remember record i as this thread's most recent path (lock held). */
static void path_cache_put(iol_module *m, size_t i, const char *path, size_t n)
{
    if (i + 1 > IOL_PATH_CACHE_MAX_INDEX || n == 0)
        return;
    uint64_t v = iol_path_cache_key(m->path_tag, path, n) | (uint64_t)(i + 1);
    for (int k = IOL_PATH_CACHE - 1; k > 0; k--)
        iol_path_cache[k] = iol_path_cache[k - 1];
    iol_path_cache[0] = v;
}

void *iol_rec_enter_path_slow(iol_module *m, const char *path, size_t n, void **aux)
{
    char buf[IOL_PATH_LEN];
    size_t len;
    const char *name = iol_path_name_n(path, n, buf, &len);
    uint64_t id = iolens_record_id(name, len);
    if (!iol_mod_enter(m))
        return NULL;
    void *a = NULL;
    void *r = iol_rec_get(m, name, id, &a);
    if (!r) {
        iol_mod_leave(m);
        return NULL;
    }
    size_t i = iol_rec_index(m, r);
    /* Only a path that is its own name can hit (the cache compares the two). */
    if (name == path && m->names && m->names[i].name)
        path_cache_put(m, i, path, len);
    if (aux)
        *aux = a;
    return r;
}

/* Whether this thread holds a module lock or a record lock: every module lock
 * and every record lock, read atomically.  The fields read here are published
 * before they are used: state 1 with release after recs/aux exist, count with
 * release after the new record's aux (its lock) is cleared.  Here, beside
 * iol_mods, so that the core's files keep using each other one way only. */
static int holds_top_lock(uintptr_t me)
{
    for (size_t k = 0; k < iol_module_ndescs; k++) {
        iol_module *m = &iol_mods[iol_module_descs[k]->id];
        if (__atomic_load_n(&m->lock, __ATOMIC_RELAXED) == me)
            return 1;
        if (!m->d || !m->d->rec_locks || __atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != 1)
            continue;
        uint8_t *aux = m->aux;
        size_t n = __atomic_load_n(&m->count, __ATOMIC_ACQUIRE), step = m->d->aux_size;
        for (size_t i = 0; aux && i < n; i++)
            if (__atomic_load_n((iol_lock_t *)(aux + i * step), __ATOMIC_RELAXED) == me)
                return 1;
    }
    return 0;
}

/* The slow path of iol_trylock_top (rt.h): spin as iol_lock_slow does, then,
 * before the first yield, give up when this thread holds a module or record
 * lock.  The scan is made once: what this thread holds cannot change while it
 * waits here (a signal handler that interrupts the wait gives back what it
 * takes before it returns). */
/* Wait until l looks free: 1; or 0 at once after 64 spins when this thread
 * holds a module or record lock (a signal handler of a thread inside another
 * record's update: no wait, rt.h iol_trylock_top). */
static int wait_free_unless_nested(iol_lock_t *l, uintptr_t me)
{
    for (unsigned spins = 0; __atomic_load_n(l, __ATOMIC_RELAXED) != 0; spins++) {
        if (spins < 64) {
            iol_arch_pause();
            continue;
        }
        if (spins == 64 && holds_top_lock(me))
            return 0;
        sched_yield();
    }
    return 1;
}

int iol_lock_slow_nested(iol_lock_t *l, uintptr_t me)
{
    for (;;) {
        if (!wait_free_unless_nested(l, me))
            return 0;
        uintptr_t expect = 0;
        if (__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
    }
}

int iol_rec_lock_frozen(iol_lock_t *l)
{
    iol_unlock(l);
    iol_exit_hold_if_dying();
    return 0;
}

/* rt.h iol_rec_lock_in_mod: the record is busy.  Waits with the module lock
 * given back. */
int iol_rec_lock_in_mod_slow(iol_module *m, iol_lock_t *l)
{
    uintptr_t me = iol_self();
    for (;;) {
        uintptr_t expect = 0;
        if (__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        iol_mod_leave(m);
        if (expect == me)
            return 0;
        if (!wait_free_unless_nested(l, me))
            return 0;
        if (!iol_mod_enter(m))
            return 0;
    }
}

void iol_modules_freeze(void)
{
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        int locked = iol_trylock_own(&m->lock);   /* 0: we are in a signal handler that
                                                     interrupted this module's update */
        __atomic_store_n(&m->frozen, 1, __ATOMIC_RELAXED);
        if (locked)
            iol_unlock(&m->lock);
        iol_rec_locks_wait(m, -1);   /* updates of known records end or see frozen */
    }
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (m->state == 1 && m->d->finish)
            m->d->finish(m);
    }
}

/* Shutdown: the output callbacks rewrite records in place, so they get a private
 * copy and the safety file stays a valid log until the real one is written.  The
 * copy holds the records in use, packed (not the reservations, nor the pool):
 * address space is scarce under RLIMIT_AS and the log write still needs some. */
static size_t packed_len(const iol_module *m)
{
    return (m->count * m->d->rec_size + 63) & ~(size_t)63;   /* aligned for the next */
}

void iol_records_detach(void)
{
    size_t need = 0;
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        const iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (m->recs)
            need += packed_len(m);
    }
    if (!iol_safety_owns(pool) || need == 0)
        return;
    uint8_t *copy = iol_map(need);
    if (!copy)
        return;                       /* outputs then edit the file; still readable */
    size_t off = 0;
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (!m->recs)
            continue;
        memcpy(copy + off, m->recs, m->count * m->d->rec_size);
        m->recs = copy + off;
        off += packed_len(m);
    }
    pool = copy;
    pool_mapped = need;
}
