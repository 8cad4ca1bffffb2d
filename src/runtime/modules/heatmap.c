/* HEATMAP module (id 15, runtime spec section 6): one record per instrumented API,
 * bytes read and written per time bin.  200 bins of 0.1 s that double in width
 * (merging neighbours) as the run grows; cut to the run's length at output. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "../core/core_int.h"   /* iol_note */
#include "../core/rt.h"
#include "../core/stats.h"
#include "heatmap.h"

#define NBINS IOL_HEATMAP_BINS
#define MAX_HEATMAPS 8

typedef struct heatmap_rec {
    uint64_t id;
    int64_t rank;
    double width;
    int64_t nbins;
    uint64_t unused[2];      /* pointer fields in upstream's memory; written as 0 */
    int64_t write_bins[NBINS];
    int64_t read_bins[NBINS];
} heatmap_rec;

static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    heatmap_rec *h = rec;
    h->width = 0.1;
    h->nbins = NBINS;
}

/* Merge neighbour bins: the width doubles (exactly: widths are 0.1 * 2^k). */
static void collapse(double *width, int64_t *w, int64_t *r)
{
    for (int i = 0; i < NBINS; i += 2) {
        w[i / 2] = w[i] + w[i + 1];
        r[i / 2] = r[i] + r[i + 1];
    }
    memset(w + NBINS / 2, 0, NBINS / 2 * sizeof *w);
    memset(r + NBINS / 2, 0, NBINS / 2 * sizeof *r);
    *width *= 2;
}

static void refresh(iol_hm_map *t)
{
    t->inv_width = 1.0 / *t->width;
    t->limit = *t->width * NBINS;
}

static inline void spread(iol_hm_map *t, double t1, double t2, int64_t bytes, int64_t *bins)
{
    if (!(t1 <= t2))
        return;                       /* an end before its start (clock stepped back):
                                         a negative overlap, which aborts (spec 6) */
    while (__builtin_expect(t2 > *t->width * NBINS, 0))
        collapse(t->width, t->write_bins, t->read_bins);
    double width = *t->width, inv = 1.0 / width;
    long first = (long)(t1 * inv), last = (long)(t2 * inv);   /* t >= 0 */
    if (last >= NBINS)
        last = NBINS - 1;
    if (first < 0)
        first = 0;
    if (first == last) {              /* the usual case: the op fits in one bin */
        bins[last] += bytes;
        return;
    }
    /* Cumulative rounding: bin b gets round(bytes * overlap up to b's end / span)
     * minus what the bins before it got, and the last bin the rest.  Each bin is
     * within a byte of its exact share, as with upstream's per-bin round(), but
     * the bins add up to the op's bytes exactly (per-bin rounding gains or loses
     * a byte per bin boundary; see docs/deviations.md). */
    double span = t2 - t1, covered = 0;
    int64_t given = 0;
    for (long b = first; b <= last; b++) {
        double lo = b * width, hi = lo + width, overlap = width;
        if (t1 > lo)
            overlap -= t1 - lo;
        if (t2 < hi)
            overlap -= hi - t2;
        if (overlap < 0)
            return;
        covered += overlap;
        int64_t upto = bytes;
        if (b < last) {
            upto = (int64_t)llround((double)bytes * covered / span);
            if (upto > bytes)         /* float error: the sum of overlaps passed span */
                upto = bytes;
        }
        bins[b] += upto - given;
        given = upto;
    }
}

/* The bin of t, as update() computes it. */
static inline long bin_of(const iol_hm_map *t, double x) { return (long)(x * t->inv_width); }

/* The widest [lo, hi) around x (x < limit, its bin in range) whose every point
 * gets x's bin: the bin's edges, checked against the binning itself (bin_of is
 * monotonic, so checking the two ends suffices), else x alone.  Runs once per
 * bin change (every 0.1 s or more of I/O), so nextafter's cost does not matter.
 * The shortcut is cleared on entry (update) and filled pointers first, hi last. */
static void fill_cache(iol_hm_map *t, double x)
{
    iol_hm_cache *c = &t->c;
    if (!(x < t->limit))
        return;
    long b = bin_of(t, x);
    if (b < 0 || b >= NBINS)
        return;
    double w = *t->width, lo = b * w, hi = (b + 1) * w;
    if (hi > t->limit)
        hi = t->limit;
    /* The computed edges are off by an ulp or two at most: step them in. */
    for (int i = 0; i < 8 && lo < x && bin_of(t, lo) < b; i++)
        lo = nextafter(lo, HUGE_VAL);
    for (int i = 0; i < 8 && hi > x && bin_of(t, nextafter(hi, -HUGE_VAL)) > b; i++)
        hi = nextafter(hi, -HUGE_VAL);
    if (lo > x || bin_of(t, lo) != b)
        lo = x;
    if (hi <= x || bin_of(t, nextafter(hi, -HUGE_VAL)) != b)
        hi = nextafter(x, HUGE_VAL);
    c->write_bin = &t->write_bins[b];
    c->read_bin = &t->read_bins[b];
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    c->lo = lo;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    c->hi = hi;
}

static void cache_clear(iol_hm_cache *c)
{
    c->hi = -__builtin_inf();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    c->lo = __builtin_inf();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The exact update of one op on map t (the usual op falls in one bin), then the
 * shortcut for the op's end.  llround and nextafter may set errno: the callers
 * keep it. */
static void update(iol_hm_map *t, double t1, double t2, int64_t bytes, int is_write)
{
    cache_clear(&t->c);
    if (bytes > 0) {
        int64_t *bins = is_write ? t->write_bins : t->read_bins;
        long b1 = (long)(t1 * t->inv_width), b2 = (long)(t2 * t->inv_width);
        /* Unsigned compare: a clock stepped back gives a negative bin, which
         * must take the spread (it clamps) and never index bins[-1]. */
        if (t2 < t->limit && b1 == b2 && (unsigned long)b2 < NBINS && t1 <= t2) {
            bins[b2] += bytes;
        } else {
            spread(t, t1, t2, bytes, bins);
            refresh(t);
        }
    }
    fill_cache(t, t2);
}

static iol_heatmap handles[MAX_HEATMAPS];
static iol_hm_map rec_maps[MAX_HEATMAPS];      /* map 0 of each: the record's bins */
iol_hm_map iol_hm_none = { .c = { .lo = __builtin_inf(), .hi = -__builtin_inf() } };
#define NONE &iol_hm_none
__thread iol_hm_map *iol_hm_mine[IOL_MAX_HEATMAPS] __attribute__((tls_model("initial-exec"))) = {
    NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE};
_Static_assert(IOL_MAX_HEATMAPS == 8, "one NONE per slot");
_Static_assert(MAX_HEATMAPS <= IOL_MAX_HEATMAPS, "iol_hm_mine too small");

/* A map of its own (page-granular memory, zeroed), its bins beside it. */
#define MAP_BYTES (sizeof(iol_hm_map) + 2 * NBINS * sizeof(int64_t))
static iol_hm_map *new_map(void)
{
    iol_hm_map *t = iol_map(MAP_BYTES);
    if (!t)
        return NULL;
    t->write_bins = (int64_t *)(t + 1);
    t->read_bins = t->write_bins + NBINS;
    t->own_width = 0.1;               /* as rec_init */
    t->width = &t->own_width;
    refresh(t);
    cache_clear(&t->c);
    return t;
}

/* ------------------------------------------------------------ maps of exited threads */
/* A thread's first claim sets a pthread key whose destructor, run when the thread
 * exits, gives the thread's maps back to their heat maps' free lists; the next
 * thread to need a map takes one from there before making a new one.  A map keeps
 * its bins and width when it changes hands (output sums every map, free or not),
 * so nothing is lost.
 *
 * Where the pthread calls run: the key is made once per process at the first
 * registration (a module's activation: glibc's pthread_key_create takes a free
 * slot with a compare-and-swap, no lock and no allocation), and set once per
 * thread at its first claim, which may be inside a wrapper or a signal handler.
 * glibc keeps the values of its first 32 keys in the thread's descriptor, so
 * setting one of those is two stores; a later key's first value would calloc a
 * block, which a handler that interrupted malloc must not do, so with such a key
 * maps are not given back (the pool then serves the first threads only, as
 * before).  The destructor runs on the exiting thread outside any wrapper: the
 * only lock it takes is a heat map's pool_lock, which is held just for a pop or a
 * push, never across a wrapper's other work. */
#if defined(__GLIBC__)
#define KEY_DIRECT 32                /* glibc's PTHREAD_KEY_2NDLEVEL_SIZE */
#else
#define KEY_DIRECT PTHREAD_KEYS_MAX
#endif
static pthread_key_t exit_key;
static int key_state;                /* 0 not made, 1 being made, 2 usable, 3 not usable */
static __thread int watched __attribute__((tls_model("initial-exec")));   /* key set */

static void give_back(void *unused);

static void key_make(void)
{
    int s = 0;
    if (!__atomic_compare_exchange_n(&key_state, &s, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    int ok = pthread_key_create(&exit_key, give_back) == 0;
    if (ok && exit_key >= KEY_DIRECT) {
        pthread_key_delete(exit_key);
        ok = 0;
    }
    __atomic_store_n(&key_state, ok ? 2 : 3, __ATOMIC_RELEASE);
}

/* A runtime unloaded by dlclose must not leave glibc a destructor pointing into
 * unmapped code.  (At exit this only ends the reuse: output sums every map.) */
__attribute__((destructor)) static void key_drop(void)
{
    int s = 2;
    if (__atomic_compare_exchange_n(&key_state, &s, 3, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        pthread_key_delete(exit_key);
}

/* Have this thread's maps given back when it exits (once per thread, and again
 * if it claims maps after its destructor ran: glibc then runs it once more). */
static void watch_exit(void)
{
    if (watched || __atomic_load_n(&key_state, __ATOMIC_ACQUIRE) != 2)
        return;
    int e = errno;
    if (pthread_setspecific(exit_key, &watched) == 0)
        watched = 1;
    errno = e;
}

/* A map given back earlier, or NULL (none, or this thread is inside the pool's
 * lock already: a signal handler interrupted a pop or a push). */
static iol_hm_map *reuse(iol_heatmap *h)
{
    if (__atomic_load_n(&h->nfree, __ATOMIC_RELAXED) == 0 || !iol_trylock_own(&h->pool_lock))
        return NULL;
    iol_hm_map *t = NULL;
    unsigned n = h->nfree;
    if (n) {
        t = h->free[n - 1];
        __atomic_store_n(&h->nfree, n - 1, __ATOMIC_RELAXED);
        h->reused++;
    }
    iol_unlock(&h->pool_lock);
    return t;
}

/* Map t of an exiting thread onto h's free list, if it is one of h's maps (h may
 * have been registered again since the thread claimed t: then t is gone). */
static void put_back(iol_heatmap *h, iol_hm_map *t)
{
    if (!iol_trylock_own(&h->pool_lock))
        return;
    unsigned n = __atomic_load_n(&h->claimed, __ATOMIC_ACQUIRE);
    if (n > IOL_HM_THREADS)
        n = IOL_HM_THREADS;
    for (unsigned j = 0; j < n; j++) {
        if (__atomic_load_n(&h->maps[j], __ATOMIC_ACQUIRE) == t) {
            if (h->nfree < IOL_HM_THREADS) {
                h->free[h->nfree] = t;
                __atomic_store_n(&h->nfree, h->nfree + 1, __ATOMIC_RELAXED);
            }
            break;
        }
    }
    iol_unlock(&h->pool_lock);
}

/* The key's destructor: the exiting thread's maps, of every heat map. */
static void give_back(void *unused)
{
    int e = errno;
    watched = 0;
    for (int s = 0; s < IOL_MAX_HEATMAPS; s++) {
        iol_hm_map *t = iol_hm_mine[s];
        if (t == NONE)
            continue;
        iol_hm_mine[s] = NONE;
        for (int i = 0; i < MAX_HEATMAPS; i++)
            if (handles[i].rec && handles[i].index == s)
                put_back(&handles[i], t);
    }
    errno = e;
}

/* This thread's map of h: one an exited thread gave back, else the next of the
 * pool, or NULL when the pool is used up (or no memory): the caller then uses the
 * shared map. */
static iol_hm_map *claim(iol_heatmap *h)
{
    iol_hm_map *t = reuse(h);
    if (!t) {
        unsigned i = __atomic_load_n(&h->claimed, __ATOMIC_RELAXED);
        do {
            if (i >= IOL_HM_THREADS)
                return NULL;
        } while (!__atomic_compare_exchange_n(&h->claimed, &i, i + 1, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_RELAXED));
        t = i == 0 ? &rec_maps[h->rec_index] : new_map();
        __atomic_store_n(&h->maps[i], t, __ATOMIC_RELEASE);   /* NULL: that place stays empty */
    }
    if (t)
        watch_exit();
    return t;
}

/* Drop the thread maps of handle i (this thread's pointer too: a fork child's
 * or a new activation's only user of it). */
static void forget(iol_heatmap *h)
{
    if (h->rec)
        iol_hm_mine[h->index] = NONE;
    unsigned n = h->claimed < IOL_HM_THREADS ? h->claimed : IOL_HM_THREADS;
    for (unsigned j = 1; j < n; j++)
        if (h->maps[j])
            iol_unmap(h->maps[j], MAP_BYTES);
    if (h->shared)
        iol_unmap(h->shared, MAP_BYTES);
    memset(h, 0, sizeof *h);
}

iol_heatmap *iol_heatmap_register(const char *api, int slot)
{
    iol_module *m = iol_mod(IOL_MOD_HEATMAP);
    char name[64];
    snprintf(name, sizeof name, "heatmap:%s", api);
    uint64_t id = iol_name_id(name);
    if (slot < 0 || slot >= IOL_MAX_HEATMAPS || !iol_mod_enter_leaf(m))   /* (rt.h) */
        return NULL;
    key_make();
    void *rec = iol_rec_get(m, name, id, NULL);
    iol_heatmap *hd = NULL;
    if (rec) {
        size_t i = iol_rec_index(m, rec);
        heatmap_rec *r = rec;
        iol_hm_map *t = &rec_maps[i];
        hd = &handles[i];
        forget(hd);                   /* (each API registers once per activation) */
        memset(t, 0, sizeof *t);
        hd->rec = rec;
        hd->index = slot;
        hd->rec_index = (int)i;
        iol_hm_mine[slot] = NONE;
        t->write_bins = r->write_bins;
        t->read_bins = r->read_bins;
        t->width = &r->width;
        refresh(t);
        cache_clear(&t->c);
    }
    iol_mod_leave(m);
    return hd;
}

/* The shared map, under its lock: threads beyond the pool, and a signal handler
 * that interrupted this thread's own update.  A handler that interrupted this
 * thread inside the shared map itself drops the op's bytes (trylock_own). */
static void add_shared(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write)
{
    if (!iol_trylock_own(&h->shared_lock))
        return;
    if (!h->shared)
        h->shared = new_map();
    if (h->shared) {
        update(h->shared, t1, t2, bytes, is_write);
        h->shared_ops++;
    } else {
        iol_partial_set(IOL_MOD_HEATMAP);   /* no memory for the op's bytes */
    }
    iol_unlock(&h->shared_lock);
}

void iol_hm_add_slow(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write)
{
    int e = errno;
    iol_clock_check();     /* the data paths' clock line is refined here (stats.h) */
    iol_hm_map *t = iol_hm_this_thread(h);
    if (t && !t->busy) {
        t->busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        update(t, t1, t2, bytes, is_write);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        t->busy = 0;
    } else {
        add_shared(h, t1, t2, bytes, is_write);
    }
    errno = e;
}

/* Fork child (its only thread) or shutdown: forget the thread maps.  The
 * record's map is set again at the next registration. */
static void reset(iol_module *m)
{
    for (int i = 0; i < MAX_HEATMAPS; i++)
        forget(&handles[i]);
}

/* This thread's map of h (claimed now if needed), or NULL (pool used up). */
iol_hm_map *iol_hm_this_thread(iol_heatmap *h)
{
    iol_hm_map *t = iol_hm_mine[h->index];
    if (t != NONE)
        return t;
    if ((t = claim(h)) != NULL)
        iol_hm_mine[h->index] = t;
    return t;
}

void iol_heatmap_update(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write)
{
    if (h)
        iol_hm_add_slow(h, t1, t2, bytes, is_write);
}

void iol_heatmap_spread(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write)
{
    iol_hm_map *t = iol_hm_this_thread(h);
    if (!t)
        return;
    int e = errno;
    cache_clear(&t->c);
    spread(t, t1, t2, bytes, is_write ? t->write_bins : t->read_bins);
    refresh(t);
    errno = e;
}

/* Sum every thread map of record r's heat map into r (after every module is
 * frozen: no thread writes a map any more).  The coarser width wins; collapsing
 * a map and then adding is adding and then collapsing. */
static void add_map(heatmap_rec *r, iol_hm_map *t)
{
    if (!t)
        return;
    while (r->width < *t->width)
        collapse(&r->width, r->write_bins, r->read_bins);
    while (*t->width < r->width)
        collapse(t->width, t->write_bins, t->read_bins);
    for (int b = 0; b < NBINS; b++) {
        r->write_bins[b] += t->write_bins[b];
        r->read_bins[b] += t->read_bins[b];
    }
}

static void gather(heatmap_rec *r, size_t i)
{
    iol_heatmap *h = &handles[i];
    if (!h->rec || h->gathered)
        return;
    unsigned n = h->claimed < IOL_HM_THREADS ? h->claimed : IOL_HM_THREADS;
    for (unsigned j = 1; j < n; j++)
        add_map(r, h->maps[j]);
    add_map(r, h->shared);
    h->gathered = 1;                  /* added once, even if output runs again */
}

/* How the maps served the threads, in the job metadata (when not zero): maps taken
 * over from exited threads, and ops that took the shared map's lock. */
static void finish(iol_module *m)
{
    uint64_t reused = 0, shared = 0;
    for (int i = 0; i < MAX_HEATMAPS; i++) {
        reused += handles[i].reused;
        shared += handles[i].shared_ops;
    }
    char v[24];
    if (reused && snprintf(v, sizeof v, "%llu", (unsigned long long)reused) > 0)
        iol_note("heatmap_maps_reused", v);
    if (shared && snprintf(v, sizeof v, "%llu", (unsigned long long)shared) > 0)
        iol_note("heatmap_shared_ops", v);
}

static int all_zero(const heatmap_rec *h)
{
    for (int i = 0; i < NBINS; i++)
        if (h->write_bins[i] || h->read_bins[i])
            return 0;
    return 1;
}

/* Records in place: drop empty heatmaps, fit the bins to the run, pack each
 * record as header + write_bins[nbins] + read_bins[nbins]. */
/* MPI mode: the end of the run agreed on by every process (set by the collective
 * writer before output), so that every process's heatmap has the same bins. */
double iol_heatmap_end;

static size_t output(iol_module *m, void **payload)
{
    double end = iol_heatmap_end > 0 ? iol_heatmap_end : iol_wtime();
    uint8_t *out = m->recs;
    size_t len = 0;
    for (size_t i = 0; i < m->count; i++) {
        heatmap_rec *h = (heatmap_rec *)m->recs + i;
        gather(h, i);
        if (all_zero(h))
            continue;
        while (end > h->width * NBINS)
            collapse(&h->width, h->write_bins, h->read_bins);
        int64_t n = (int64_t)ceil(end / h->width);
        if (n > NBINS)
            n = NBINS;
        if (n < 1)
            n = 1;
        heatmap_rec tmp = *h;
        tmp.nbins = n;
        memcpy(out + len, &tmp, 48);
        memcpy(out + len + 48, tmp.write_bins, (size_t)n * 8);
        memcpy(out + len + 48 + (size_t)n * 8, tmp.read_bins, (size_t)n * 8);
        len += 48 + (size_t)n * 16;
    }
    *payload = out;
    return len;
}

const iol_module_desc iol_heatmap_module = {
    IOL_MODULE_IDENTITY(HEATMAP),
    .rec_size = sizeof(heatmap_rec),
    .default_records = MAX_HEATMAPS,
    .fixed_records = 1,
    .rec_init = rec_init,
    .finish = finish,
    .output = output,
    .reset = reset,
};
