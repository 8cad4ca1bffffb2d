/* Unit test of the HEATMAP module (src/runtime/modules/heatmap.c) against runtime
 * spec section 6: 200 bins of initial width 0.1 s, collapse (bin[i/2] = bin[i] +
 * bin[i+1], width doubled) while an update ends beyond width * 200, spreading of
 * an op over bins in proportion to overlap (rounded cumulatively, so that the bins add
 * up to the op's bytes: docs/deviations.md), size 0 ignored, and the
 * output packing (empty heatmaps dropped, end collapse, nbins = ceil(end / width)
 * capped at 200, header + write_bins[nbins] + read_bins[nbins]).
 *
 * heatmap.c is compiled in with a small stand-in for the core symbols it uses
 * (record memory, id hash, name ids, clock, lock), defined below. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"
#include <sys/mman.h>

#include "stats.h"
#include "modules/heatmap.h"

#define NB IOL_HEATMAP_BINS

/* ------------------------------------------------------------ core stand-ins */
iol_module iol_mods[64];
int iol_state = IOL_ON;
__thread int iol_busy;
struct timespec iol_t0;
iol_clock_fn iol_vdso_clock_gettime;   /* NULL: iol_mono_ns takes the system call */
int iol_clock_fast;                     /* 0: ticks are CLOCK_MONOTONIC ns */
static iol_clock_line test_line = {(uint64_t)1 << 32, 0, UINT64_MAX};
const iol_clock_line *iol_clock_line_now = &test_line;
void iol_clock_refine(uint64_t tick) { (void)tick; }
/* Make "now" (iol_wtime) read as `sec` seconds since init. */
static void set_now(double sec) { test_line.off = (int64_t)(sec * 1e9) - iol_mono_ns(); }
iol_config iol_cfg;
int iol_rank = 3, iol_nprocs = 1;

#define STUB_CAP 8
#define STUB_SLOTS 16
static _Alignas(64) uint8_t stub_recs[STUB_CAP * 4096];
static uint32_t stub_slots[STUB_SLOTS];
static int activate_calls;

void *iol_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
void iol_unmap(void *p, size_t len)
{
    if (p)
        munmap(p, len);
}
void iol_partial_set(int modid) { (void)modid; }

void iol_lock_slow(iol_lock_t *l, uintptr_t me)
{
    uintptr_t expect = 0;
    while (!__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        expect = 0;
}

/* (single-threaded here: the module lock is never busy) */
void iol_exit_hold_if_dying(void) {}   /* never dying here */
int iol_lock_slow_nested(iol_lock_t *l, uintptr_t me)
{
    iol_lock_slow(l, me);
    return 1;
}

void iol_mod_activate(iol_module *m)
{
    activate_calls++;
    if (m->d->rec_size * STUB_CAP > sizeof stub_recs) {
        m->state = -1;
        return;
    }
    m->recs = stub_recs;
    m->aux = NULL;
    m->cap = STUB_CAP;
    m->count = 0;
    m->slots = stub_slots;
    m->hmask = STUB_SLOTS - 1;
    m->state = 1;
}

static size_t slot_of(const iol_module *m, uint64_t id) { return (size_t)(id ^ (id >> 29)) & m->hmask; }

void *iol_rec_find(iol_module *m, uint64_t id, void **aux)
{
    for (size_t s = slot_of(m, id);; s = (s + 1) & m->hmask) {
        uint32_t v = m->slots[s];
        if (!v)
            return NULL;
        uint8_t *rec = m->recs + (size_t)(v - 1) * m->d->rec_size;
        uint64_t rid;
        memcpy(&rid, rec, 8);
        if (rid == id) {
            if (aux)
                *aux = NULL;
            return rec;
        }
    }
}

void *iol_rec_register(iol_module *m, const char *name, uint64_t id, void **aux)
{
    if (m->count >= m->cap)
        return NULL;
    size_t i = m->count++;
    uint8_t *rec = m->recs + i * m->d->rec_size;
    memset(rec, 0, m->d->rec_size);
    memcpy(rec, &id, 8);
    int64_t rank = iol_rank;
    memcpy(rec + 8, &rank, 8);
    size_t s = slot_of(m, id);
    while (m->slots[s])
        s = (s + 1) & m->hmask;
    m->slots[s] = (uint32_t)(i + 1);
    if (m->d->rec_init)
        m->d->rec_init(m, name, rec, NULL);
    if (aux)
        *aux = NULL;
    return rec;
}

uint64_t iol_name_id(const char *name)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* The notes the module leaves for the job metadata (last value of each key). */
static char note_reused[24], note_shared[24];
void iol_note(const char *key, const char *value)
{
    if (!strcmp(key, "heatmap_maps_reused"))
        snprintf(note_reused, sizeof note_reused, "%s", value);
    else if (!strcmp(key, "heatmap_shared_ops"))
        snprintf(note_shared, sizeof note_shared, "%s", value);
}

/* Defined in heatmap.c. */
extern const iol_module_desc iol_heatmap_module;
extern double iol_heatmap_end;

/* ------------------------------------------------------------ test helpers */
/* The record as heatmap.c lays it out (spec section 6). */
typedef struct hm_rec {
    uint64_t id;
    int64_t rank;
    double width;
    int64_t nbins;
    uint64_t unused[2];
    int64_t w[NB];
    int64_t r[NB];
} hm_rec;

static int failures;
#define CHECK(c, ...)                                                          \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #c);    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static iol_module *M(void) { return iol_mod(IOL_MOD_HEATMAP); }

/* A fresh HEATMAP module: no records, not yet activated. */
static void reset_module(void)
{
    memset(stub_recs, 0, sizeof stub_recs);
    memset(stub_slots, 0, sizeof stub_slots);
    memset(M(), 0, sizeof *M());
    M()->d = &iol_heatmap_module;
    iol_heatmap_end = 0;
}

static hm_rec *REC(iol_heatmap *hd) { return (hm_rec *)hd->rec; }
/* A slot per API name, as the modules have theirs (the ninth name shares the
 * last: its registration fails for want of a record anyway). */
static iol_heatmap *register_api(const char *api)
{
    static char names[IOL_MAX_HEATMAPS][16];
    int i = 0;
    while (i < IOL_MAX_HEATMAPS - 1 && names[i][0] && strcmp(names[i], api))
        i++;
    if (!names[i][0])
        snprintf(names[i], sizeof names[i], "%s", api[0] ? api : "<empty>");
    return iol_heatmap_register(api, i);
}
/* This thread's map of hd: the first one, which is the record's. */
static iol_hm_map *MAP(iol_heatmap *hd) { return iol_hm_this_thread(hd); }

static int64_t sum(const int64_t *b, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += b[i];
    return s;
}

/* The header fields a data-path update must never touch. */
static void check_header(iol_heatmap *hd, const char *api, const char *when)
{
    char name[64];
    snprintf(name, sizeof name, "heatmap:%s", api);
    hm_rec *h = REC(hd);
    CHECK(h->id == iol_name_id(name), "%s: id %llx, want id of \"%s\"", when,
          (unsigned long long)h->id, name);
    CHECK(h->rank == iol_rank, "%s: rank %lld", when, (long long)h->rank);
    CHECK(h->nbins == NB, "%s: nbins %lld at runtime", when, (long long)h->nbins);
    CHECK(h->unused[0] == 0 && h->unused[1] == 0, "%s: pointer fields %llx %llx changed", when,
          (unsigned long long)h->unused[0], (unsigned long long)h->unused[1]);
    CHECK(MAP(hd)->write_bins == h->w && MAP(hd)->read_bins == h->r, "%s: handle bins do not point at the record", when);
    CHECK(MAP(hd)->limit == h->width * NB && MAP(hd)->inv_width == 1.0 / h->width,
          "%s: handle limit %g inv %g out of date (width %g)", when, MAP(hd)->limit, MAP(hd)->inv_width, h->width);
}

/* The spec rule (section 6, update steps 2-4) for one op in a heatmap of width w
 * whose end already fits: adds to exp[]. */
static void rule_spread(int64_t *exp, double w, double t1, double t2, int64_t bytes)
{
    long first = (long)floor(t1 / w), last = (long)floor(t2 / w);
    if (last >= NB)
        last = NB - 1;
    if (first == last) {
        exp[last] += bytes;
        return;
    }
    /* cumulative rounding (docs/deviations.md): the shares add up to bytes */
    double covered = 0;
    int64_t given = 0;
    for (long b = first; b <= last; b++) {
        double lo = b * w, hi = lo + w, overlap = w;
        if (t1 > lo)
            overlap -= t1 - lo;
        if (t2 < hi)
            overlap -= hi - t2;
        if (overlap < 0)
            return;
        covered += overlap;
        int64_t upto = b == last ? bytes : (int64_t)llround((double)bytes * covered / (t2 - t1));
        exp[b] += upto - given;
        given = upto;
    }
}

static void cmp_n_bins(const int64_t *got, const int64_t *exp, int n, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n && bad < 5; i++)
        if (got[i] != exp[i]) {
            CHECK(got[i] == exp[i], "%s: bin %d = %lld, expected %lld", what, i, (long long)got[i],
                  (long long)exp[i]);
            bad++;
        }
}
static void cmp_bins(const int64_t *got, const int64_t *exp, const char *what)
{
    cmp_n_bins(got, exp, NB, what);
}

/* ------------------------------------------------------------ tests */
static void test_register(void)
{
    reset_module();
    CHECK(iol_heatmap_module.id == IOL_MOD_HEATMAP, "descriptor id %d", iol_heatmap_module.id);
    CHECK(iol_heatmap_module.rec_size == sizeof(hm_rec), "rec_size %zu, expected %zu",
          iol_heatmap_module.rec_size, sizeof(hm_rec));
    CHECK(iol_heatmap_module.fixed_records && iol_heatmap_module.default_records == 8,
          "fixed %d default %lld", iol_heatmap_module.fixed_records,
          (long long)iol_heatmap_module.default_records);
    activate_calls = 0;
    iol_heatmap *a = register_api("POSIX");
    iol_heatmap *b = register_api("STDIO");
    iol_heatmap *a2 = register_api("POSIX");
    CHECK(a && b, "register returned NULL");
    if (!a || !b)
        return;
    CHECK(activate_calls == 1, "module activated %d times", activate_calls);
    CHECK(a2 == a, "registering POSIX twice gave two handles");
    CHECK(a != b && a->rec != b->rec, "POSIX and STDIO share a record");
    CHECK(M()->count == 2, "%zu records after 2 APIs", M()->count);
    CHECK(REC(a)->width == 0.1, "initial width %g", REC(a)->width);
    CHECK(MAP(a)->limit == 0.1 * NB, "initial limit %g", MAP(a)->limit);
    check_header(a, "POSIX", "fresh POSIX");
    check_header(b, "STDIO", "fresh STDIO");
    CHECK(sum(MAP(a)->write_bins, NB) == 0 && sum(MAP(a)->read_bins, NB) == 0, "fresh heatmap not empty");
    CHECK(register_api("") != NULL, "register(\"\") failed");
    /* Nine APIs: the ninth has no room (8 fixed records) and gets NULL. */
    const char *more[] = {"DFS", "DAOS", "MPIIO", "X1", "X2", "X3"};
    iol_heatmap *last = NULL;
    for (int i = 0; i < 6; i++)
        last = register_api(more[i]);
    CHECK(M()->count == 8 && last == NULL, "count %zu, ninth handle %p", M()->count, (void *)last);
}

static void test_one_bin(void)
{
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    int64_t ew[NB] = {0}, er[NB] = {0};
    iol_heatmap_update(hd, 1.23, 1.27, 4096, 1);
    ew[12] += 4096;
    iol_heatmap_update(hd, 1.21, 1.29, 100, 0);
    er[12] += 100;
    /* Same bin through the slow path's own one-bin case. */
    iol_heatmap_spread(hd, 1.24, 1.26, 8, 1);
    ew[12] += 8;
    /* end == start: the whole size to the bin. */
    iol_heatmap_update(hd, 7.55, 7.55, 33, 1);
    ew[75] += 33;
    iol_heatmap_spread(hd, 19.95, 19.95, 5, 0);
    er[199] += 5;
    /* The last bin, just below the limit. */
    iol_heatmap_update(hd, 19.91, 19.99, 77, 1);
    ew[199] += 77;
    cmp_bins(MAP(hd)->write_bins, ew, "one-bin writes");
    cmp_bins(MAP(hd)->read_bins, er, "one-bin reads");
    CHECK(REC(hd)->width == 0.1, "one-bin ops changed the width to %g", REC(hd)->width);
    check_header(hd, "POSIX", "after one-bin ops");
}

static void test_span(void)
{
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    const double w = 0.1;
    struct {
        double t1, t2;
        int64_t bytes;
        int first, last;
    } ops[] = {
        {0.33, 0.57, 777777, 3, 5},      /* bins 3..5: 7/24, 10/24, 7/24 */
        {2.01, 2.98, 1000003, 20, 29},   /* ten bins */
        {10.25, 10.31, 3, 102, 103},     /* rounding dominates */
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        for (int wr = 0; wr < 2; wr++) {
            reset_module();
            hd = register_api("POSIX");
            int64_t exp[NB] = {0};
            rule_spread(exp, w, ops[k].t1, ops[k].t2, ops[k].bytes);
            if (wr)
                iol_heatmap_update(hd, ops[k].t1, ops[k].t2, ops[k].bytes, 1);
            else
                iol_heatmap_spread(hd, ops[k].t1, ops[k].t2, ops[k].bytes, 0);
            int64_t *got = wr ? MAP(hd)->write_bins : MAP(hd)->read_bins;
            int64_t *other = wr ? MAP(hd)->read_bins : MAP(hd)->write_bins;
            char what[96];
            snprintf(what, sizeof what, "op [%g, %g] %lld bytes (%s)", ops[k].t1, ops[k].t2,
                     (long long)ops[k].bytes, wr ? "write" : "read");
            cmp_bins(got, exp, what);
            for (int b = 0; b < NB; b++)
                if ((b < ops[k].first || b > ops[k].last) && got[b])
                    CHECK(got[b] == 0, "%s: bytes in bin %d outside %d..%d", what, b, ops[k].first,
                          ops[k].last);
            for (int b = ops[k].first; b <= ops[k].last; b++)
                CHECK(exp[b] > 0 || ops[k].bytes < 100, "%s: rule gives bin %d nothing", what, b);
            int64_t tot = sum(got, NB);
            CHECK(tot == ops[k].bytes, "%s: total %lld, bytes %lld", what, (long long)tot,
                  (long long)ops[k].bytes);
            for (int b = ops[k].first; b <= ops[k].last; b++) {   /* each within a byte of its share */
                double lo = b * w, hi = lo + w;
                double share = (double)ops[k].bytes * (fmin(hi, ops[k].t2) - fmax(lo, ops[k].t1)) /
                               (ops[k].t2 - ops[k].t1);
                CHECK(fabs((double)got[b] - share) < 1.0 + 1e-6, "%s: bin %d = %lld, share %.3f", what,
                      b, (long long)got[b], share);
            }
            CHECK(sum(other, NB) == 0, "%s: bytes in the other direction", what);
            CHECK(REC(hd)->width == w, "%s: width %g", what, REC(hd)->width);
        }
    }
    /* The first case by hand: overlap 0.07, 0.1, 0.07 of 0.24, rounded cumulatively. */
    reset_module();
    hd = register_api("POSIX");
    iol_heatmap_update(hd, 0.33, 0.57, 777777, 1);
    int64_t upto3 = llround(777777 * 0.07 / 0.24), upto4 = llround(777777 * 0.17 / 0.24);
    CHECK(MAP(hd)->write_bins[3] == upto3 && MAP(hd)->write_bins[4] == upto4 - upto3 &&
              MAP(hd)->write_bins[5] == 777777 - upto4,
          "bins 3..5 = %lld %lld %lld", (long long)MAP(hd)->write_bins[3], (long long)MAP(hd)->write_bins[4],
          (long long)MAP(hd)->write_bins[5]);
    /* The slow path keeps errno (llround may set it). */
    errno = EBADF;
    iol_heatmap_update(hd, 0.33, 0.57, 777777, 1);
    iol_heatmap_update(hd, 1.0, 30.0, 1 << 20, 1);
    CHECK(errno == EBADF, "errno %d after spreading, was EBADF", errno);
}

/* Ops at t in [0, 20): op k at [k*0.1 + 0.04, k*0.1 + 0.06], write 1000 + k bytes,
 * read 10 + k; then the widening ops. */
static double op_t(int k) { return k * 0.1 + 0.04; }

static void fill_20s(iol_heatmap *hd, int64_t *tw, int64_t *tr)
{
    for (int k = 0; k < NB; k++) {
        iol_heatmap_update(hd, op_t(k), op_t(k) + 0.02, 1000 + k, 1);
        iol_heatmap_update(hd, op_t(k), op_t(k) + 0.02, 10 + k, 0);
        *tw += 1000 + k;
        *tr += 10 + k;
    }
}

/* Expected bins at width w of the 20 s ops plus extra (t, bytes) pairs. */
static void expect_20s(int64_t *ew, int64_t *er, double w)
{
    memset(ew, 0, NB * sizeof *ew);
    memset(er, 0, NB * sizeof *er);
    for (int k = 0; k < NB; k++) {
        long b = (long)floor(op_t(k) / w);
        ew[b] += 1000 + k;
        er[b] += 10 + k;
    }
}

static void test_widen(void)
{
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    int64_t tw = 0, tr = 0, ew[NB], er[NB];
    fill_20s(hd, &tw, &tr);
    CHECK(REC(hd)->width == 0.1, "20 s of ops: width %g", REC(hd)->width);
    expect_20s(ew, er, 0.1);
    cmp_bins(MAP(hd)->write_bins, ew, "writes in [0, 20)");
    cmp_bins(MAP(hd)->read_bins, er, "reads in [0, 20)");
    for (int k = 0; k < NB; k += 37)
        CHECK(MAP(hd)->write_bins[k] == 1000 + k, "bin %d = %lld before widening", k, (long long)MAP(hd)->write_bins[k]);

    /* An op ending at 25 s: one collapse, width 0.2. */
    iol_heatmap_update(hd, 24.95, 25.0, 5000, 1);
    tw += 5000;
    CHECK(REC(hd)->width == 0.2, "op ending at 25 s: width %g, expected 0.2", REC(hd)->width);
    CHECK(MAP(hd)->limit == 40.0, "op ending at 25 s: limit %g, expected 40", MAP(hd)->limit);
    expect_20s(ew, er, 0.2);
    rule_spread(ew, 0.2, 24.95, 25.0, 5000);
    CHECK(ew[124] == 5000, "rule puts %lld of the 25 s op in bin 124", (long long)ew[124]);
    cmp_bins(MAP(hd)->write_bins, ew, "writes after widening to 0.2");
    cmp_bins(MAP(hd)->read_bins, er, "reads after widening to 0.2");
    int samples[] = {0, 1, 2, 3, 57, 58, 100, 101, 150, 198, 199};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        int k = samples[i];
        long b = (long)floor(op_t(k) / 0.2);
        int64_t pair = (1000 + 2 * (k / 2)) + (1000 + 2 * (k / 2) + 1);
        CHECK(b == k / 2 && MAP(hd)->write_bins[b] == pair,
              "op %d at t=%.2f: bin %ld holds %lld, expected ops %d and %d (%lld)", k, op_t(k), b,
              (long long)MAP(hd)->write_bins[b], 2 * (k / 2), 2 * (k / 2) + 1, (long long)pair);
    }
    for (int b = 100; b < NB; b++)
        if (b != 124 && (MAP(hd)->write_bins[b] || MAP(hd)->read_bins[b]))
            CHECK(0, "bin %d of the zeroed upper half holds %lld/%lld", b, (long long)MAP(hd)->write_bins[b],
                  (long long)MAP(hd)->read_bins[b]);
    CHECK(sum(MAP(hd)->write_bins, NB) == tw && sum(MAP(hd)->read_bins, NB) == tr,
          "after widening to 0.2: totals %lld/%lld, expected %lld/%lld", (long long)sum(MAP(hd)->write_bins, NB),
          (long long)sum(MAP(hd)->read_bins, NB), (long long)tw, (long long)tr);
    check_header(hd, "POSIX", "after widening to 0.2");

    /* An op ending at 100 s: 0.4 (limit 80) is not enough, width 0.8. */
    iol_heatmap_update(hd, 99.9, 100.0, 7000, 0);
    tr += 7000;
    CHECK(REC(hd)->width == 0.8, "op ending at 100 s: width %g, expected 0.8", REC(hd)->width);
    CHECK(MAP(hd)->limit == 160.0, "op ending at 100 s: limit %g, expected 160", MAP(hd)->limit);
    expect_20s(ew, er, 0.8);
    ew[(long)floor(24.95 / 0.8)] += 5000;
    rule_spread(er, 0.8, 99.9, 100.0, 7000);
    cmp_bins(MAP(hd)->write_bins, ew, "writes after widening to 0.8");
    cmp_bins(MAP(hd)->read_bins, er, "reads after widening to 0.8");
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        int k = samples[i];
        long b = (long)floor(op_t(k) / 0.8);
        CHECK(b == k / 8 && MAP(hd)->write_bins[b] == ew[b], "op %d at t=%.2f: bin %ld holds %lld, expected %lld",
              k, op_t(k), b, (long long)MAP(hd)->write_bins[b], (long long)ew[b]);
    }
    CHECK(sum(MAP(hd)->write_bins, NB) == tw && sum(MAP(hd)->read_bins, NB) == tr,
          "after widening to 0.8: totals %lld/%lld, expected %lld/%lld", (long long)sum(MAP(hd)->write_bins, NB),
          (long long)sum(MAP(hd)->read_bins, NB), (long long)tw, (long long)tr);
    check_header(hd, "POSIX", "after widening to 0.8");
}

static void test_size0_and_bad_times(void)
{
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    iol_heatmap *other = register_api("STDIO");
    if (!hd || !other) {
        CHECK(hd && other, "register");
        return;
    }
    iol_heatmap_update(other, 0.5, 0.55, 123, 1);
    hm_rec before, other_before;
    iol_heatmap_update(hd, 3.02, 3.03, 10, 1);
    memcpy(&before, hd->rec, sizeof before);
    memcpy(&other_before, other->rec, sizeof other_before);

    /* Size 0 (and negative sizes) change nothing, not even the width. */
    iol_heatmap_update(hd, 1.0, 1.05, 0, 1);
    iol_heatmap_update(hd, 1.0, 1.5, 0, 0);
    iol_heatmap_update(hd, 0.0, 100.0, 0, 1);
    iol_heatmap_update(hd, 50.0, 500.0, 0, 0);
    iol_heatmap_update(hd, 1.0, 1.05, -1, 1);
    iol_hm_add(hd, hd->index, 0.0, 100.0, 0, 1);
    iol_hm_add(hd, hd->index, 3.02, 3.03, 0, 1);
    iol_hm_add(hd, hd->index, 3.021, 3.022, 0, 0);
    iol_heatmap_update(NULL, 1.0, 2.0, 10, 1);   /* no heatmap: ignored */
    CHECK(memcmp(&before, hd->rec, sizeof before) == 0, "size-0 ops changed the record (width %g -> %g)",
          before.width, REC(hd)->width);
    CHECK(MAP(hd)->limit == 20.0, "size-0 ops changed the limit to %g", MAP(hd)->limit);

    /* A clock stepped back: negative times, end before start.  Nothing may land
     * outside bins 0..199 nor widen the heatmap; an end before its start adds
     * nothing (a negative overlap aborts the update, spec 6). */
    {
        hm_rec snap = *REC(hd);
        iol_heatmap_update(hd, 5.07, 5.01, 1000, 1);
        iol_heatmap_spread(hd, 5.07, 5.01, 1000, 0);
        iol_heatmap_update(hd, 19.99, 0.5, 1000, 1);
        CHECK(memcmp(&snap, REC(hd), sizeof snap) == 0, "an op ending before its start was counted");
    }
    int64_t given = 0;
    struct {
        double t1, t2;
    } bad[] = {
        {-5.0, -4.0}, {-0.05, 0.02}, {-1.0, 0.25}, {-0.09, -0.01}, {-0.15, -0.12}, {-0.25, 0.05},
        {5.0, 3.0}, {5.07, 5.01}, {19.99, 0.5}, {-1e6, -1e6 + 1}, {-0.0, -0.0}, {-1e-9, 0.0},
        {15.0, -2.0}, {-3.0, -7.0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iol_heatmap_update(hd, bad[i].t1, bad[i].t2, 1000, 1);
        iol_heatmap_update(hd, bad[i].t1, bad[i].t2, 1000, 0);
        iol_heatmap_spread(hd, bad[i].t1, bad[i].t2, 1000, 1);
        iol_hm_add(hd, hd->index, bad[i].t1, bad[i].t2, 1000, 0);
        given += 2000;
    }
    for (int i = 0; i < 50; i++) {   /* through the cache: steps back and forth */
        double t = (i % 2 ? -0.05 : 0.07) - 0.01 * i;
        iol_hm_add(hd, hd->index, t, t + 0.001, 10, i % 3 == 0);
        given += 10;
    }
    hm_rec *h = REC(hd);
    CHECK(h->width == 0.1 && MAP(hd)->limit == 20.0, "stepped-back times widened to %g", h->width);
    int64_t extra_w = sum(h->w, NB) - sum(before.w, NB), extra_r = sum(h->r, NB) - sum(before.r, NB);
    for (int b = 0; b < NB; b++) {
        if (b <= 2)              /* negative starts clamp to bin 0 */
            continue;
        if (h->w[b] != before.w[b] || h->r[b] != before.r[b])
            CHECK(0, "stepped-back op wrote bin %d (%lld/%lld)", b, (long long)h->w[b], (long long)h->r[b]);
    }
    CHECK(extra_w >= 0 && extra_r >= 0 && extra_w + extra_r <= given,
          "stepped-back ops added %lld + %lld bytes of %lld given", (long long)extra_w, (long long)extra_r,
          (long long)given);
    check_header(hd, "POSIX", "after stepped-back ops");
    CHECK(memcmp(&other_before, other->rec, sizeof other_before) == 0,
          "ops on POSIX changed the STDIO heatmap");
    /* The record after the last one registered is untouched. */
    const uint8_t *after = (const uint8_t *)other->rec + sizeof(hm_rec);
    int dirty = 0;
    for (size_t i = 0; i < sizeof(hm_rec); i++)
        dirty |= after[i];
    CHECK(!dirty, "memory past the last record written");
}

/* iol_hm_add (the modules' cached path) puts every byte where iol_heatmap_update
 * would: two heatmaps fed the same ops, one through each, stay identical. */
static void test_cache(void)
{
    reset_module();
    iol_heatmap *a = register_api("POSIX");
    iol_heatmap *b = register_api("STDIO");
    if (!a || !b) {
        CHECK(a && b, "register");
        return;
    }
    uint64_t x = 88172645463325252ULL;
    double t = 0;
    int hits = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d = (double)(x % 1000) * 1e-5;           /* up to 10 ms per op */
        double t1 = t, t2 = t + d;
        switch (x >> 60) {
        case 0: t1 = t2 = round(t * 10) / 10; break;     /* on a bin edge */
        case 1: t1 = nextafter(round(t * 10) / 10, -1); t2 = t1 + 1e-7; break;
        case 2: t1 = t - 0.05; break;                   /* starts in the previous bin */
        case 3: t1 = t - 1.0; t2 = t - 0.9; break;      /* stepped back */
        default: break;
        }
        int64_t n = (int64_t)(x >> 40) % 65536;
        int wr = (int)(x >> 33) & 1;
        int hit = t1 >= MAP(a)->c.lo && t1 <= t2 && t2 < MAP(a)->c.hi;
        iol_hm_add(a, a->index, t1, t2, n, wr);
        iol_heatmap_update(b, t1, t2, n, wr);
        hits += hit;
        t += d + (x % 7 == 0 ? 0.03 : 0.0005);
        if (i % 1000 == 999 || t > 70) {
            if (REC(a)->width != REC(b)->width || memcmp(REC(a)->w, REC(b)->w, sizeof REC(a)->w) ||
                memcmp(REC(a)->r, REC(b)->r, sizeof REC(a)->r)) {
                CHECK(0, "cached and uncached heatmaps differ after op %d (t=%g, widths %g %g)", i, t,
                      REC(a)->width, REC(b)->width);
                return;
            }
        }
        if (t > 70)
            break;
    }
    CHECK(REC(a)->width == 0.4, "70 s of ops: width %g, expected 0.4", REC(a)->width);
    CHECK(hits > 1000, "the cache was hit only %d times", hits);
    check_header(a, "POSIX", "cached heatmap");
}

/* Output: parse the payload, checking each record against expectations. */
typedef struct out_rec {
    uint64_t id;
    int64_t rank;
    double width;
    int64_t nbins;
    uint64_t z0, z1;
    const int64_t *w, *r;
} out_rec;

static int parse(const uint8_t *p, size_t len, out_rec *out, int max)
{
    int n = 0;
    size_t off = 0;
    while (off < len && n < max) {
        if (len - off < 48) {
            CHECK(0, "payload: %zu trailing bytes", len - off);
            return -1;
        }
        out_rec *o = &out[n];
        memcpy(&o->id, p + off, 8);
        memcpy(&o->rank, p + off + 8, 8);
        memcpy(&o->width, p + off + 16, 8);
        memcpy(&o->nbins, p + off + 24, 8);
        memcpy(&o->z0, p + off + 32, 8);
        memcpy(&o->z1, p + off + 40, 8);
        if (o->nbins < 1 || o->nbins > NB || len - off - 48 < (size_t)o->nbins * 16) {
            CHECK(0, "payload record %d: nbins %lld with %zu bytes left", n, (long long)o->nbins, len - off - 48);
            return -1;
        }
        o->w = (const int64_t *)(p + off + 48);
        o->r = o->w + o->nbins;
        off += 48 + (size_t)o->nbins * 16;
        n++;
    }
    return n;
}

static void expect_width_nbins(double end, double w0, double *w, int64_t *n)
{
    double width = w0;
    while (end > width * NB)
        width *= 2;
    int64_t k = (int64_t)ceil(end / width);
    *w = width;
    *n = k > NB ? NB : k < 1 ? 1 : k;
}

static void test_output(void)
{
    void *payload = NULL;
    out_rec o[8];

    /* A 5 ms run: nbins 1, width 0.1. */
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    iol_heatmap_update(hd, 0.001, 0.002, 500, 1);
    iol_heatmap_update(hd, 0.003, 0.004, 70, 0);
    iol_heatmap_end = 0.005;
    size_t len = iol_heatmap_module.output(M(), &payload);
    CHECK(len == 48 + 16, "5 ms run: payload %zu bytes, expected 64", len);
    int n = parse(payload, len, o, 8);
    CHECK(n == 1, "5 ms run: %d records", n);
    if (n == 1) {
        CHECK(o[0].id == iol_name_id("heatmap:POSIX"), "5 ms run: id %llx", (unsigned long long)o[0].id);
        CHECK(o[0].rank == iol_rank, "5 ms run: rank %lld", (long long)o[0].rank);
        CHECK(o[0].width == 0.1 && o[0].nbins == 1, "5 ms run: width %g nbins %lld", o[0].width,
              (long long)o[0].nbins);
        CHECK(o[0].z0 == 0 && o[0].z1 == 0, "5 ms run: pointer fields %llx %llx", (unsigned long long)o[0].z0,
              (unsigned long long)o[0].z1);
        CHECK(o[0].w[0] == 500 && o[0].r[0] == 70, "5 ms run: write %lld read %lld", (long long)o[0].w[0],
              (long long)o[0].r[0]);
    }

    /* end = 33 s after 20 s of ops, with an empty heatmap registered first and
     * one in the middle: those are dropped, the others packed in order. */
    reset_module();
    iol_heatmap *empty1 = register_api("STDIO");
    iol_heatmap *p = register_api("POSIX");
    iol_heatmap *empty2 = register_api("DFS");
    iol_heatmap *mp = register_api("MPIIO");
    if (!empty1 || !p || !empty2 || !mp) {
        CHECK(0, "register");
        return;
    }
    iol_heatmap_update(empty1, 1.0, 2.0, 0, 1);   /* size 0: still empty */
    int64_t tw = 0, tr = 0, ew[NB], er[NB];
    fill_20s(p, &tw, &tr);
    iol_heatmap_update(p, 32.05, 32.07, 999, 1);  /* widens to 0.2 */
    iol_heatmap_update(mp, 0.55, 0.56, 4242, 0);  /* stays at 0.1 until output */
    iol_heatmap_end = 33.0;
    double ewidth;
    int64_t en;
    expect_width_nbins(33.0, 0.1, &ewidth, &en);
    CHECK(ewidth == 0.2 && (en == 165 || en == 166), "rule: width %g nbins %lld for 33 s", ewidth, (long long)en);
    expect_20s(ew, er, 0.2);
    ew[(long)floor(32.05 / 0.2)] += 999;
    len = iol_heatmap_module.output(M(), &payload);
    CHECK(len == 2 * (48 + (size_t)en * 16), "33 s run: payload %zu bytes, expected %zu", len,
          2 * (48 + (size_t)en * 16));
    n = parse(payload, len, o, 8);
    CHECK(n == 2, "33 s run: %d records, expected 2 (empty STDIO and DFS dropped)", n);
    for (int i = 0; i < n; i++)
        CHECK(o[i].id != iol_name_id("heatmap:STDIO") && o[i].id != iol_name_id("heatmap:DFS"),
              "33 s run: empty heatmap %d kept", i);
    if (n == 2) {
        CHECK(o[0].id == iol_name_id("heatmap:POSIX") && o[1].id == iol_name_id("heatmap:MPIIO"),
              "33 s run: records out of order (%llx %llx)", (unsigned long long)o[0].id,
              (unsigned long long)o[1].id);
        for (int i = 0; i < 2; i++) {
            CHECK(o[i].width == ewidth && o[i].nbins == en, "33 s run, record %d: width %g nbins %lld, expected %g %lld",
                  i, o[i].width, (long long)o[i].nbins, ewidth, (long long)en);
            CHECK(o[i].rank == iol_rank && o[i].z0 == 0 && o[i].z1 == 0, "33 s run, record %d: header", i);
        }
        /* Read bins start right after the nbins write bins. */
        CHECK((const uint8_t *)o[0].r == (const uint8_t *)payload + 48 + en * 8, "read bins not contiguous");
        int bad = 0;
        for (int64_t b = 0; b < en && bad < 5; b++)
            if (o[0].w[b] != ew[b] || o[0].r[b] != er[b]) {
                CHECK(0, "33 s run, POSIX bin %lld: %lld/%lld, expected %lld/%lld", (long long)b,
                      (long long)o[0].w[b], (long long)o[0].r[b], (long long)ew[b], (long long)er[b]);
                bad++;
            }
        CHECK(sum(o[0].w, (int)en) == tw + 999 && sum(o[0].r, (int)en) == tr, "33 s run: totals %lld/%lld",
              (long long)sum(o[0].w, (int)en), (long long)sum(o[0].r, (int)en));
        CHECK(o[1].r[(long)floor(0.55 / 0.2)] == 4242 && sum(o[1].r, (int)en) == 4242 && sum(o[1].w, (int)en) == 0,
              "33 s run: MPIIO bins wrong (read bin 2 = %lld)", (long long)o[1].r[2]);
    }

    /* Longer ends: the rule for several, including the 200-bin cap. */
    double ends[] = {0.1, 0.15, 19.95, 20.0, 20.01, 100.0, 1000.0, 12345.6};
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
        reset_module();
        hd = register_api("POSIX");
        iol_heatmap_update(hd, 0.01, 0.02, 1, 1);
        iol_heatmap_update(hd, 0.05, 0.06, 2, 0);
        iol_heatmap_end = ends[e];
        expect_width_nbins(ends[e], 0.1, &ewidth, &en);
        len = iol_heatmap_module.output(M(), &payload);
        n = parse(payload, len, o, 8);
        CHECK(n == 1 && o[0].width == ewidth && o[0].nbins == en && len == 48 + (size_t)en * 16,
              "end %g: %d records, width %g nbins %lld len %zu; expected width %g nbins %lld", ends[e], n,
              n ? o[0].width : 0, n ? (long long)o[0].nbins : 0, len, ewidth, (long long)en);
        if (n == 1)
            CHECK(o[0].w[0] == 1 && o[0].r[0] == 2 && (en == 1 || o[0].w[1] == 0),
                  "end %g: bins %lld %lld", ends[e], (long long)o[0].w[0], (long long)o[0].r[0]);
    }

    /* Nothing at all: an empty payload. */
    reset_module();
    register_api("POSIX");
    iol_heatmap_end = 5.0;
    len = iol_heatmap_module.output(M(), &payload);
    CHECK(len == 0, "only empty heatmaps: payload %zu bytes", len);

    /* No agreed end: the local clock (init 30.5 s in the past). */
    reset_module();
    hd = register_api("POSIX");
    iol_heatmap_update(hd, 1.0, 1.01, 10, 1);
    set_now(30.5);
    iol_heatmap_end = 0;
    len = iol_heatmap_module.output(M(), &payload);
    n = parse(payload, len, o, 8);
    CHECK(n == 1 && o[0].width == 0.2 && (o[0].nbins == 153 || o[0].nbins == 154),
          "end = now (30.5 s): %d records, width %g nbins %lld; expected 0.2 and 153", n, n ? o[0].width : 0,
          n ? (long long)o[0].nbins : 0);

    /* "now" before init (a monotonic clock never gives it; it must still not break): one bin of 0.1 s. */
    reset_module();
    hd = register_api("POSIX");
    iol_heatmap_update(hd, 0.01, 0.02, 10, 1);
    iol_heatmap_update(hd, 0.01, 0.02, 20, 0);
    set_now(-100);
    iol_heatmap_end = 0;
    len = iol_heatmap_module.output(M(), &payload);
    n = parse(payload, len, o, 8);
    CHECK(n == 1 && len == 48 + 16 && o[0].width == 0.1 && o[0].nbins == 1 && o[0].w[0] == 10 &&
              o[0].r[0] == 20,
          "end = now = -100 s: %d records, %zu bytes, width %g nbins %lld; expected 1 bin of 0.1", n, len,
          n ? o[0].width : 0, n ? (long long)o[0].nbins : 0);
    test_line.off = 0;
}

/* ------------------------------------------------------------ threads */
/* One thread's ops: [t, t + 1 ms] at t = first + k * step (all k*step multiples
 * of 0.1 s, t 0.03 s past a 0.1 s edge, so no op crosses a bin edge of any width
 * 0.1 * 2^j), of bytes + k, reads for odd k.  Adds each op to exp_w/exp_r at width
 * w (the independent placement: the bin of the op's start). */
typedef struct ops {
    iol_heatmap *hd;
    double first, step;
    int n;
    int64_t bytes;
    pthread_barrier_t *hold;          /* wait here before exiting (map stays owned) */
    iol_hm_map *map;                  /* the map the thread used */
    double width;                     /* ... and its width after the ops */
} ops;

static double op_at(const ops *o, int k) { return o->first + k * o->step + 0.03; }

static void *run_ops(void *arg)
{
    ops *o = arg;
    for (int k = 0; k < o->n; k++) {
        double t = op_at(o, k);
        iol_hm_add(o->hd, 0, t, t + 0.001, o->bytes + k, !(k & 1));
    }
    o->map = iol_hm_this_thread(o->hd);
    o->width = o->map ? *o->map->width : 0;
    if (o->hold)
        pthread_barrier_wait(o->hold);
    return NULL;
}

static void expect_ops(const ops *o, double w, int64_t *ew, int64_t *er, int64_t *tw, int64_t *tr)
{
    for (int k = 0; k < o->n; k++) {
        long b = (long)floor(op_at(o, k) / w);
        if (k & 1) {
            er[b] += o->bytes + k;
            *tr += o->bytes + k;
        } else {
            ew[b] += o->bytes + k;
            *tw += o->bytes + k;
        }
    }
}

/* Three threads' maps of three widths (0.1 s: the record's, 0.2 s and 0.8 s: two
 * private maps, all held at once) merged at output into the record at 1.6 s:
 * every op in the bin of its start at 1.6 s, the totals those of the ops. */
static void test_merge_widths(void)
{
    reset_module();
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    pthread_barrier_t hold;
    pthread_barrier_init(&hold, NULL, 3);
    ops o[3] = {
        /* this thread, up to 10 s: width 0.1; then to 39 s: 0.2; then to 149 s: 0.8 */
        {.hd = hd, .first = 0.0, .step = 0.1, .n = 100, .bytes = 1000},
        {.hd = hd, .first = 10.0, .step = 0.3, .n = 97, .bytes = 7000, .hold = &hold},
        {.hd = hd, .first = 50.0, .step = 0.5, .n = 199, .bytes = 50000, .hold = &hold},
    };
    run_ops(&o[0]);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, run_ops, &o[i + 1]);
    pthread_barrier_wait(&hold);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&hold);
    CHECK(o[0].map && o[1].map && o[2].map && o[0].map != o[1].map && o[1].map != o[2].map &&
              o[0].map != o[2].map,
          "three threads, three maps (%p %p %p)", (void *)o[0].map, (void *)o[1].map, (void *)o[2].map);
    CHECK(o[0].width == 0.1 && o[1].width == 0.2 && o[2].width == 0.8,
          "map widths %g %g %g, expected 0.1 0.2 0.8", o[0].width, o[1].width, o[2].width);
    CHECK(hd->claimed == 3 && hd->shared == NULL, "claimed %u, shared map %p", hd->claimed,
          (void *)hd->shared);

    double end = 300.0, w;
    int64_t en, ew[NB] = {0}, er[NB] = {0}, tw = 0, tr = 0;
    expect_width_nbins(end, 0.1, &w, &en);
    CHECK(w == 1.6 && en == 188, "rule: width %g nbins %lld for 300 s", w, (long long)en);
    for (int i = 0; i < 3; i++)
        expect_ops(&o[i], w, ew, er, &tw, &tr);
    iol_heatmap_end = end;
    void *payload = NULL;
    out_rec r[2];
    size_t len = iol_heatmap_module.output(M(), &payload);
    int n = parse(payload, len, r, 2);
    CHECK(n == 1 && r[0].width == w && r[0].nbins == en, "merged: %d records, width %g nbins %lld", n,
          n ? r[0].width : 0, n ? (long long)r[0].nbins : 0);
    if (n != 1)
        return;
    cmp_n_bins(r[0].w, ew, (int)en, "merged writes");
    cmp_n_bins(r[0].r, er, (int)en, "merged reads");
    CHECK(sum(ew, NB) == sum(ew, (int)en) && sum(er, NB) == sum(er, (int)en), "ops past the end");
    CHECK(sum(r[0].w, (int)en) == tw && sum(r[0].r, (int)en) == tr,
          "merged totals %lld/%lld, expected %lld/%lld", (long long)sum(r[0].w, (int)en),
          (long long)sum(r[0].r, (int)en), (long long)tw, (long long)tr);
}

/* Threads that exit give their maps back: 100 threads one after another all use
 * the one private map made for the first of them (the record's map stays with
 * this thread), every byte is in the output, and the notes count the reuse. */
static void test_exited_threads_maps_reused(void)
{
    reset_module();
    note_reused[0] = note_shared[0] = 0;
    iol_heatmap *hd = register_api("POSIX");
    if (!hd) {
        CHECK(hd, "register");
        return;
    }
    ops mine = {.hd = hd, .first = 0.0, .step = 0.1, .n = 10, .bytes = 10};
    run_ops(&mine);
    enum { NT = 100 };
    static ops o[NT];
    int64_t tw = 0, tr = 0, ew[NB] = {0}, er[NB] = {0};
    expect_ops(&mine, 0.2, ew, er, &tw, &tr);
    for (int i = 0; i < NT; i++) {
        o[i] = (ops){.hd = hd, .first = 1.0 + 0.3 * i, .step = 0.1, .n = 5, .bytes = 100 * (i + 1)};
        pthread_t th;
        pthread_create(&th, NULL, run_ops, &o[i]);
        pthread_join(th, NULL);
        expect_ops(&o[i], 0.2, ew, er, &tw, &tr);
    }
    int same = 0;
    for (int i = 0; i < NT; i++)
        same += o[i].map == o[0].map;
    CHECK(o[0].map && o[0].map != mine.map && same == NT, "%d of %d threads used the first one's map",
          same, NT);
    CHECK(hd->claimed == 2 && hd->reused == NT - 1 && hd->shared == NULL,
          "claimed %u, reused %llu, shared %p", hd->claimed, (unsigned long long)hd->reused,
          (void *)hd->shared);
    iol_heatmap_module.finish(M());
    CHECK(!strcmp(note_reused, "99") && note_shared[0] == 0, "notes: reused '%s', shared '%s'",
          note_reused, note_shared);
    iol_heatmap_end = 40.0;             /* width 0.2 */
    void *payload = NULL;
    out_rec r[2];
    size_t len = iol_heatmap_module.output(M(), &payload);
    int n = parse(payload, len, r, 2);
    CHECK(n == 1 && r[0].width == 0.2 && r[0].nbins == NB, "reused: %d records, width %g", n,
          n ? r[0].width : 0);
    if (n != 1 || r[0].nbins != NB)
        return;
    cmp_bins(r[0].w, ew, "reused writes");
    cmp_bins(r[0].r, er, "reused reads");
    CHECK(sum(r[0].w, NB) == tw && sum(r[0].r, NB) == tr, "reused totals %lld/%lld, expected %lld/%lld",
          (long long)sum(r[0].w, NB), (long long)sum(r[0].r, NB), (long long)tw, (long long)tr);
}

int main(void)
{
    test_register();
    test_one_bin();
    test_span();
    test_widen();
    test_size0_and_bad_times();
    test_cache();
    test_output();
    test_merge_widths();
    test_exited_threads_maps_reused();
    if (failures) {
        fprintf(stderr, "test_heatmap: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_heatmap: all checks passed\n");
    return 0;
}
