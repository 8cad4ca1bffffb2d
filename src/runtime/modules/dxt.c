/* DXT tracing engine: stores, memory budget, triggers and the log payload (see
 * dxt.h for the contracts, include/iolens/dxt_store.h for the store's layout and
 * runtime spec section 5 for the behaviour). */
#include "dxt.h"

#include <pthread.h>
#include <string.h>
#include <sys/utsname.h>

#include "../core/safety.h"

#define DXT_FILE_CHARGE 104          /* bytes upstream charges per traced file */
#define DXT_SEG_CHARGE 32            /* ... and per segment granted */
#define DXT_FIRST_SEGMENTS 64        /* first grant of a direction; then doubling */
#define DXT_DEFAULT_BUDGET (2u << 20)

static iol_dxt stores[2];        /* DXT_POSIX, DXT_MPIIO */

__thread uint32_t iol_dxt_thread[2] __attribute__((tls_model("initial-exec")));

static iol_dxt *store_of(int modid)
{
    return &stores[modid == IOL_MOD_DXT_MPIIO];
}

static iolens_dxt_store_hdr *hdr(iol_dxt *x)
{
    return (iolens_dxt_store_hdr *)x->base;
}

/* Bump allocation from the store, the store's lock held: the object's offset, or 0
 * when the store is used up, which the sizing in activate rules out while the
 * budget holds.  Every object takes whole cache lines, so that two files' lanes,
 * or the segments of two files' chunks, never share a line that two threads
 * write (dxt.h, Locking). */
#define LINE 64
static uint64_t take(iol_dxt *x, size_t len)
{
    iolens_dxt_store_hdr *h = hdr(x);
    len = (len + LINE - 1) & ~(size_t)(LINE - 1);
    if (x->len - h->used < len)
        return 0;
    uint64_t off = h->used;
    h->used += len;
    return off;
}

/* ------------------------------------------------------------ lifecycle */
/* The budget: MAX_RECORDS n <module> gives n KiB (as upstream), else 2 MiB. */
static int64_t budget_of(int modid)
{
    int64_t n = iol_cfg.max_records[modid];
    return n > 0 ? n * 1024 : (int64_t)DXT_DEFAULT_BUDGET;
}

void iol_dxt_activate(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    memset(x, 0, sizeof *x);
    x->modid = m->d->id;
    x->slot = x == &stores[1];
    x->threads = iol_cfg.dxt_thread_ids > 0;
    /* From the start whenever a region can exist, so that the store is decoded
     * the same way at shutdown and by `iolens recover` (dxt_store.h). */
    x->regions = !(iol_cfg.mod_disabled >> IOL_MOD_REGION & 1);
    int64_t budget = budget_of(x->modid);
    /* Whole cache lines (take): a file costs 192 <= 2 x 104 bytes here, and a chunk
     * of k segments 24 + 42k rounded up to 64, which is <= 2 x 32k for every k >= 2.
     * A chunk of one segment (128 bytes for 32 charged) is granted at most once:
     * only a grant cut to what is left can be that small, and it leaves less than
     * one segment's charge.  So twice the budget plus one line holds what the
     * budget admits. */
    _Static_assert(((sizeof(iol_dxt_file) + LINE - 1) & ~(size_t)(LINE - 1)) <= 2 * DXT_FILE_CHARGE,
                   "a file fits twice its charge");
    x->len = IOLENS_DXT_STORE_HDR + 2 * (size_t)budget + LINE;
    x->base = iol_safety_sidecar(x->modid == IOL_MOD_DXT_MPIIO ? "dxt-mpiio" : "dxt-posix", x->len);
    if (!x->base)
        x->base = iol_map(x->len);
    if (!x->base) {
        iol_fail(IOL_FAIL_MEMORY);
        m->state = -1;
        iol_partial_set(x->modid);    /* no trace: the log says it is missing */
        return;
    }
    iolens_dxt_store_hdr *h = hdr(x);
    h->modid = (uint32_t)x->modid;
    h->rank = iol_rank;
    h->len = x->len;
    h->used = IOLENS_DXT_STORE_HDR;
    h->remaining = budget;
    h->flags = (x->threads ? IOLENS_DXT_STORE_THREADS : 0) |
               (x->regions ? IOLENS_DXT_STORE_REGIONS : 0);
    /* The node name as upstream stores it: up to 64 bytes, NUL-padded. */
    struct utsname u;
    if (uname(&u) == 0)
        memcpy(h->host, u.nodename, strnlen(u.nodename, sizeof h->host));
    __atomic_signal_fence(__ATOMIC_RELEASE);
    memcpy(h->magic, IOLENS_DXT_STORE_MAGIC, 8);   /* last: a store is complete */
}

iol_dxt *iol_dxt_attach(int modid)
{
    iol_module *m = iol_mod(modid);
    if (!iol_mod_enter_leaf(m))        /* inside the traced module's activation (rt.h) */
        return NULL;
    iol_dxt *x = store_of(modid);
    iol_mod_leave(m);
    if (x->base && x->regions) {     /* the module that writes the segments' regions */
        iol_module *r = iol_mod(IOL_MOD_DXT_REGION);
        if (iol_mod_enter_leaf(r))
            iol_mod_leave(r);
    }
    return x->base ? x : NULL;
}

void iol_dxt_reset(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    iol_dxt_thread[x->slot] = 0;     /* fork child: its one thread starts afresh */
    iol_unmap(x->base, x->len);
    iol_unmap(x->out, x->out_len);
    memset(x, 0, sizeof *x);
}

/* ------------------------------------------------------------ data path (slow parts) */
/* Also outside the store's lock (a spent budget, a re-entered lock): atomic, and
 * setting the partial bit twice is harmless. */
static void cut(iol_dxt *x)
{
    if (!__atomic_load_n(&hdr(x)->cut, __ATOMIC_RELAXED)) {
        __atomic_store_n(&hdr(x)->cut, 1, __ATOMIC_RELAXED);
        iol_partial_set(x->modid);
    }
}

/* The budget only shrinks, under the store's lock; an atomic store, so that a
 * lane whose budget is spent can see so without the lock (iol_dxt_grow). */
static void charge(iolens_dxt_store_hdr *h, int64_t bytes)
{
    __atomic_store_n(&h->remaining, h->remaining - bytes, __ATOMIC_RELAXED);
}

/* The store's lock for an out-of-line step: 0 when this thread holds it already (a
 * signal handler interrupted that step); the caller then drops its op, which
 * makes the trace partial. */
static int store_lock(iol_dxt *x)
{
    if (iol_trylock_own(&x->lock))
        return 1;
    cut(x);
    return 0;
}

static iol_dxt_file *file_new_locked(iol_dxt *x, uint64_t id);

iol_dxt_file *iol_dxt_file_new(iol_dxt *x, uint64_t id)
{
    const char *name = iol_name_of(id);
    if (name && iol_name_excluded(x->modid, name))
        return IOL_DXT_NONE;
    if (!store_lock(x))
        return NULL;
    iol_dxt_file *f = file_new_locked(x, id);
    iol_unlock(&x->lock);
    return f;
}

static iol_dxt_file *file_new_locked(iol_dxt *x, uint64_t id)
{
    iolens_dxt_store_hdr *h = hdr(x);
    uint64_t off = h->remaining >= DXT_FILE_CHARGE ? take(x, sizeof(iol_dxt_file)) : 0;
    if (!off) {
        cut(x);
        return IOL_DXT_NONE;
    }
    charge(h, DXT_FILE_CHARGE);
    iol_dxt_file *f = (iol_dxt_file *)(x->base + off);
    f->id = id;                  /* the rest is zero: fresh memory */
    /* Linked complete: a reader sees the file whole or not at all. */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    if (h->last)
        ((iol_dxt_file *)(x->base + h->last))->next = off;
    else
        h->first = off;
    h->last = off;
    return f;
}

/* Table entries are written before the count that publishes them, so a log
 * written by a signal handler, or a store left by a killed process, never shows
 * an index whose id is not there yet.  Past the table's end every further thread
 * shares the index IOLENS_DXT_MAX_THREADS, read back as thread id 0 (unknown). */
uint32_t iol_dxt_thread_new(iol_dxt *x)
{
    /* Re-entered inside the lock: this op's thread is written as unknown, and the
     * thread asks again at its next op. */
    if (!iol_trylock_own(&x->lock))
        return IOLENS_DXT_MAX_THREADS + 1;
    iolens_dxt_store_hdr *h = hdr(x);
    uint32_t n = h->nthreads;
    if (n < IOLENS_DXT_MAX_THREADS) {
        h->threads[n] = (uint64_t)pthread_self();
        __atomic_signal_fence(__ATOMIC_RELEASE);
        h->nthreads = n + 1;
    }
    iol_unlock(&x->lock);
    return iol_dxt_thread[x->slot] = n + 1;
}

/* Like the thread table: an entry is written before the count that publishes
 * it.  Past the table's end a region gets the index IOLENS_DXT_MAX_REGIONS + 1
 * (unknown), as does one whose name the REGION module could not record. */
uint32_t iol_dxt_region_new(iol_dxt *x, int s)
{
    if (s < 0 || s >= IOL_REGION_NAMES)
        return IOLENS_DXT_MAX_REGIONS + 1;
    if (!iol_trylock_own(&x->lock))       /* a signal handler inside the lock */
        return IOLENS_DXT_MAX_REGIONS + 1;
    iolens_dxt_store_hdr *h = hdr(x);
    uint32_t k = x->region_index[s];
    if (k == 0 && h->nregions < IOLENS_DXT_MAX_REGIONS) {
        h->regions[h->nregions] = iol_region_slot_id(s);
        __atomic_signal_fence(__ATOMIC_RELEASE);
        k = ++h->nregions;
        __atomic_store_n(&x->region_index[s], (uint8_t)k, __ATOMIC_RELAXED);
    } else if (k == 0) {
        /* The table is full for good: remember "unknown" so that this region's
         * later segments stay on the lock-free path (dxt.h). */
        k = IOLENS_DXT_MAX_REGIONS + 1;
        __atomic_store_n(&x->region_index[s], (uint8_t)k, __ATOMIC_RELAXED);
    }
    iol_unlock(&x->lock);
    return k;
}

static int grow_locked(iol_dxt *x, iol_dxt_lane *l);

int iol_dxt_grow(iol_dxt *x, iol_dxt_lane *l)
{
    /* Spent for good (the budget never grows): every later op of a full lane
     * ends here, so it need not take the lock. */
    if (__atomic_load_n(&hdr(x)->remaining, __ATOMIC_RELAXED) < DXT_SEG_CHARGE) {
        cut(x);
        return 0;
    }
    if (!store_lock(x))
        return 0;
    int ok = grow_locked(x, l);
    iol_unlock(&x->lock);
    return ok;
}

/* The budget and the store's memory are the store's (its lock held); the lane is
 * the file's (its record's lock held by the caller). */
static int grow_locked(iol_dxt *x, iol_dxt_lane *l)
{
    iolens_dxt_store_hdr *h = hdr(x);
    int64_t want = l->room ? l->room : DXT_FIRST_SEGMENTS;
    if (h->remaining < DXT_SEG_CHARGE) {   /* spent: this segment and later ones dropped */
        cut(x);
        return 0;
    }
    if (want * DXT_SEG_CHARGE > h->remaining)
        want = h->remaining / DXT_SEG_CHARGE;
    charge(h, want * DXT_SEG_CHARGE);
    uint64_t off = take(x, sizeof(iolens_dxt_chunk) + (size_t)want * IOLENS_DXT_MAX_ENC);
    if (!off) {
        cut(x);
        return 0;
    }
    /* Every step leaves a state that decodes correctly (a signal handler may write
     * the log, or the process die, between any two of them): the new chunk is
     * linked empty, the full one sealed before it stops being the last, and the
     * new one gets its position and count only once it is the last. */
    iolens_dxt_chunk *c = (iolens_dxt_chunk *)(x->base + off);
    c->end = off + sizeof *c;
    if (l->last) {
        iolens_dxt_chunk *old = (iolens_dxt_chunk *)(x->base + l->last);
        old->nseg = l->n - l->sealed;
        old->end = l->pos;
        __atomic_signal_fence(__ATOMIC_RELEASE);
        old->next = off;
    } else {
        l->first = off;
    }
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->last = off;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->pos = off + sizeof *c;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->sealed = l->n;
    l->room += want;
    return 1;
}

/* ------------------------------------------------------------ shutdown */
/* The triggers of spec 5 on this process's own, unreduced POSIX counters.  A file
 * without a POSIX record has no operations: the ratio is NaN and fails. */
static int passes_triggers(uint64_t id)
{
    double small = iol_cfg.dxt_small_trigger, unaligned = iol_cfg.dxt_unaligned_trigger;
    if (small < 0 && unaligned < 0)
        return 1;
    iol_module *pm = iol_mod(IOL_MOD_POSIX);
    const uint8_t *rec = (pm->d && pm->state == 1) ? iol_rec_find(pm, id, NULL) : NULL;
    if (!rec)
        return 0;
    const int64_t *c = (const int64_t *)(rec + 16);
    double ops = (double)(c[POSIX_READS] + c[POSIX_WRITES]);
    if (small >= 0) {
        double n = (double)(c[POSIX_SIZE_READ_0_100] + c[POSIX_SIZE_READ_100_1K] +
                            c[POSIX_SIZE_READ_1K_10K] + c[POSIX_SIZE_WRITE_0_100] +
                            c[POSIX_SIZE_WRITE_100_1K] + c[POSIX_SIZE_WRITE_1K_10K]);
        if (!(n / ops >= small))
            return 0;
    }
    if (unaligned >= 0 && !((double)c[POSIX_FILE_NOT_ALIGNED] / ops >= unaligned))
        return 0;
    return 1;
}

void iol_dxt_finish(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    size_t kept = 0;
    hdr(x)->rank = iol_rank;
    for (uint64_t off = hdr(x)->first; off;) {
        iol_dxt_file *f = (iol_dxt_file *)(x->base + off);
        f->dropped = !passes_triggers(f->id);
        if (!f->dropped && f->lane[0].n + f->lane[1].n > 0)
            kept++;
        off = f->next;
    }
    m->count = kept;
}

/* The log region: decoded by the same code `iolens recover` uses. */
size_t iol_dxt_output(iol_module *m, void **payload)
{
    iol_dxt *x = store_of(m->d->id);
    size_t cap = iolens_dxt_store_bound(x->base, x->len);
    *payload = NULL;
    if (cap == 0)
        return 0;
    if (!(x->out = iol_map(cap))) {
        iol_partial_set(x->modid);
        return 0;
    }
    x->out_len = cap;
    *payload = x->out;
    return iolens_dxt_store_region(x->base, x->len, iol_rank, x->out, cap);
}

/* With thread ids the newer versions (40-byte segments), else the 3.5.0 ones. */
uint32_t iol_dxt_version(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    return m->d->version + (uint32_t)x->threads;
}

/* ------------------------------------------------------------ DXT_REGION */
/* dxt_region.c's callbacks: its records parallel the records the DXT modules
 * output (their finish ran first: modules finish in id order). */
static int carries_regions(const iol_dxt *x)
{
    iol_module *m = iol_mod(x->modid);
    return x->base && x->regions && m->d && m->state == 1;
}

static void *region_out;
static size_t region_out_len;

void iol_dxt_region_finish(iol_module *m)
{
    m->count = 0;
    for (int k = 0; k < 2; k++)
        if (carries_regions(&stores[k]) && iolens_dxt_store_regions_bound(stores[k].base,
                                                                          stores[k].len))
            m->count += iol_mod(stores[k].modid)->count;
}

size_t iol_dxt_region_output(iol_module *m, void **payload)
{
    (void)m;
    size_t cap = 0, used = 0;
    *payload = NULL;
    for (int k = 0; k < 2; k++)
        if (carries_regions(&stores[k]))
            cap += iolens_dxt_store_regions_bound(stores[k].base, stores[k].len);
    if (cap == 0)
        return 0;
    if (!(region_out = iol_map(cap))) {
        iol_partial_set(IOL_MOD_DXT_REGION);
        return 0;
    }
    region_out_len = cap;
    for (int k = 0; k < 2; k++)
        if (carries_regions(&stores[k]))
            used += iolens_dxt_store_regions(stores[k].base, stores[k].len, iol_rank,
                                             (uint8_t *)region_out + used, cap - used);
    *payload = region_out;
    return used;
}

void iol_dxt_region_reset(iol_module *m)
{
    (void)m;
    iol_unmap(region_out, region_out_len);
    region_out = NULL;
    region_out_len = 0;
}
