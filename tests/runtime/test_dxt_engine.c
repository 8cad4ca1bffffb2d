/* Unit test of the DXT tracing engine (src/runtime/modules/dxt.c, dxt.h; runtime
 * spec section 5, docs/dxt.md) through its descriptor-less API: iol_dxt_attach
 * (which activates the store through the core's iol_mod_activate), iol_dxt_add,
 * iol_dxt_grow, iol_dxt_finish, iol_dxt_output and iol_dxt_reset.
 *
 *  - round trip: random segments with extreme offsets, lengths and times decode
 *    to the same values, times bit-identical to (double)ns * 1e-9, writes then
 *    reads, records in first-access order, and the in-memory bytes are the
 *    documented 4 zigzag-delta LEB128 varints.  Times go in as nanoseconds, as
 *    POSIX passes them (any int64), or as MPI-IO does, iol_dxt_ns of the time in
 *    seconds (|ns| <= 1e15, which iol_dxt_ns must recover exactly);
 *  - memory budget: segments kept per lane, records and the partial bit follow an
 *    independent model of upstream's accounting (104 bytes per file; 64 segments,
 *    then doubling, capped to what is left; 32 bytes per segment);
 *  - triggers (small / unaligned share of the POSIX operations, both must pass);
 *  - states a signal handler may see when it interrupts iol_dxt_add or
 *    iol_dxt_grow: the output never reads outside the bytes written (under ASan
 *    the rest of the store's mapping is poisoned while finish/output run) and
 *    yields only whole, correct leading segments;
 *  - excluded names, attach failures, the DXT_MPIIO store, reset + activate.
 *
 * dxt.c (and the descriptors dxt_posix.c, dxt_mpiio.c) are compiled in with a
 * stand-in for the core symbols they use, defined below. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>

#include "rt.h"
#include "modules/dxt.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define DXT_POSIX IOL_MOD_DXT_POSIX
#define NS_MAX 1000000000000000LL        /* 1e15 ns: 11.6 days */
#define NONE IOL_DXT_NONE

/* ------------------------------------------------------------ checks */
static int failures, printed;
static char ctx[200] = "";
#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            failures++;                                                                \
            if (printed++ < 80) {                                                      \
                fprintf(stderr, "%s:%d: FAILED [%s]: %s: ", __FILE__, __LINE__, ctx, #c); \
                fprintf(stderr, __VA_ARGS__);                                          \
                fputc('\n', stderr);                                                   \
            }                                                                          \
        }                                                                              \
    } while (0)
#define SETCTX(...) snprintf(ctx, sizeof ctx, __VA_ARGS__)

/* ------------------------------------------------------------ core stand-ins */
iol_module iol_mods[64];
int iol_state = IOL_ON;
__thread int iol_busy;
struct timespec iol_t0;
iol_clock_fn iol_vdso_clock_gettime;
iol_config iol_cfg;
int iol_rank = 7, iol_nprocs = 1;

void iol_lock_slow(iol_lock_t *l, uintptr_t me)
{
    uintptr_t expect = 0;
    while (!__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        expect = 0;
}

static int activate_calls;
void iol_mod_activate(iol_module *m)
{
    activate_calls++;
    if (m->d->own_memory) {      /* as records.c: active, then the module's own memory */
        m->state = 1;
        if (m->d->activate)
            m->d->activate(m);
        return;
    }
    m->state = -1;
}

/* Mappings: tracked, so that reset can be checked to release exactly what was made. */
#define MAXMAPS 64
static struct { void *p; size_t len; } maps[MAXMAPS];
static int nlive, map_fail_next, bad_unmaps;
static void *last_map;
static size_t last_map_len;
void *iol_map(size_t len)
{
    if (map_fail_next > 0) {
        map_fail_next--;
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    for (int i = 0; i < MAXMAPS; i++)
        if (!maps[i].p) {
            maps[i].p = p;
            maps[i].len = len;
            nlive++;
            break;
        }
    last_map = p;
    last_map_len = len;
    return p;
}
void iol_unmap(void *p, size_t len)
{
    if (!p)
        return;
    int i;
    for (i = 0; i < MAXMAPS; i++)
        if (maps[i].p == p)
            break;
    if (i == MAXMAPS || maps[i].len != len) {
        bad_unmaps++;
        fprintf(stderr, "iol_unmap(%p, %zu): %s\n", p, len,
                i == MAXMAPS ? "not a live mapping" : "length differs from the mapping's");
        return;
    }
    UNPOISON(p, len);
    munmap(p, len);
    maps[i].p = NULL;
    nlive--;
}

static int fail_counts[IOL_FAIL_COUNT + 1];
void iol_fail(enum iol_failure what) { fail_counts[what <= IOL_FAIL_COUNT ? what : IOL_FAIL_COUNT]++; }

static uint64_t partial_bits;
void iol_partial_set(int modid) { partial_bits |= 1ull << modid; }

/* Names: a small table; ids not in it have no name (NULL). */
static struct { uint64_t id; const char *name; int calls; } names[16];
static int nnames;
static const char *excl_prefix;   /* names starting with it are excluded */
static int excl_modid = -1;
static const char *name_lookup(uint64_t id, int count)
{
    for (int i = 0; i < nnames; i++)
        if (names[i].id == id) {
            names[i].calls += count;
            return names[i].name;
        }
    return NULL;
}
const char *iol_name_of(uint64_t id) { return name_lookup(id, 1); }
static int name_is_excluded(const char *name)
{
    return excl_prefix && strncmp(name, excl_prefix, strlen(excl_prefix)) == 0;
}
int iol_name_excluded(int modid, const char *name)
{
    excl_modid = modid;
    return name_is_excluded(name);
}

/* Fake POSIX records for the triggers: u64 id, i64 rank, int64 counters. */
typedef struct fake_psx {
    uint64_t id;
    int64_t rank;
    int64_t c[POSIX_NUM_INDICES];
} fake_psx;
#define MAXPSX 256
static fake_psx psx[MAXPSX];
static int npsx, bad_rec_find;
static const iol_module_desc fake_posix_desc = {.id = IOL_MOD_POSIX, .name = "POSIX"};
void *iol_rec_find(iol_module *m, uint64_t id, void **aux)
{
    if (m != &iol_mods[IOL_MOD_POSIX])
        bad_rec_find++;
    if (aux)
        *aux = NULL;
    for (int i = 0; i < npsx; i++)
        if (psx[i].id == id)
            return &psx[i];
    return NULL;
}

extern const iol_module_desc iol_dxt_posix_module, iol_dxt_mpiio_module;

/* The engine's chunk header (private to dxt.c), mirrored to walk and edit lanes;
 * test_roundtrip checks that the first segment starts at data[]. */
typedef struct mchunk {
    struct mchunk *next;
    int64_t nseg;
    uint8_t *end;
    uint8_t data[];
} mchunk;
#define CH(p) ((mchunk *)(void *)(p))

/* ------------------------------------------------------------ random */
static uint64_t rng;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t rndn(uint64_t n) { return rnd() % n; }

/* ------------------------------------------------------------ the model */
typedef struct tseg {
    int64_t off, len, s_ns, e_ns;
    int kept;
} tseg;

typedef struct tlane {
    tseg *v;
    size_t n, cap;
    int64_t mn, mroom;               /* model: segments kept, granted */
    uint64_t eoff, elen, ens;        /* independent encoder's delta state */
    int64_t clk;                     /* generator: the lane's clock (ns) */
    int64_t lo, hi;                  /* expected decoded count range (-1: exactly mn) */
    int64_t got;                     /* decoded by the last verify */
} tlane;

typedef struct tfile {
    uint64_t id;
    iol_dxt_file *fp;                /* the engine's per-file pointer */
    int seen, charged, none, trig_drop;
    tlane lane[2];                   /* 0 read, 1 write (as the engine) */
} tfile;

#define MAXF 1024
static struct {
    iol_dxt *x;
    int modid;
    int64_t budget, remaining;
    int dropped;                     /* model: something was dropped -> partial bit */
    int nf, norder;
    int order[MAXF];
    tfile f[MAXF];
} S;
static uint8_t *arena;
static size_t arena_len;
static struct utsname uts;
static char host64[64];

static int nallow;                   /* ASan guard list (below) */
static iol_module *DM(void) { return iol_mod(DXT_POSIX); }

static uint64_t file_id(int i) { return 0x5a5a000000000001ULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL; }

/* A fresh DXT_POSIX store of `kib` KiB (0: default), activated through attach. */
static void start_store(int64_t kib)
{
    for (int i = 0; i < S.nf; i++)
        for (int d = 0; d < 2; d++)
            free(S.f[i].lane[d].v);
    int nf = S.nf;
    memset(&S, 0, offsetof(__typeof__(S), f));
    memset(S.f, 0, (size_t)nf * sizeof S.f[0]);
    S.modid = DXT_POSIX;
    iol_cfg.max_records[DXT_POSIX] = kib;
    S.budget = S.remaining = kib > 0 ? kib * 1024 : (int64_t)2 << 20;
    memset(DM(), 0, sizeof *DM());
    DM()->d = &iol_dxt_posix_module;
    partial_bits = 0;
    nallow = 0;
    int calls = activate_calls, live = nlive;
    last_map = NULL;
    S.x = iol_dxt_attach(DXT_POSIX);
    CHECK(S.x != NULL, "attach returned NULL (budget %lld KiB)", (long long)kib);
    CHECK(activate_calls == calls + 1 && DM()->state == 1, "activation: %d calls, state %d",
          activate_calls - calls, DM()->state);
    CHECK(nlive == live + 1, "activation made %d mappings", nlive - live);
    arena = last_map;
    arena_len = last_map_len;
    CHECK(arena_len >= 2 * (size_t)S.budget, "store mapping %zu bytes for a budget of %lld", arena_len,
          (long long)S.budget);
}

static void end_store(void)
{
    iol_dxt_reset(DM());
    CHECK(nlive == 0, "%d mapping(s) still live after reset", nlive);
    CHECK(bad_unmaps == 0, "%d bad unmap(s)", bad_unmaps);
    bad_unmaps = 0;
    DM()->state = 0;
}

static int new_file(void)
{
    CHECK(S.nf < MAXF, "too many files");
    int i = S.nf++;
    S.f[i].id = file_id(i);
    for (int d = 0; d < 2; d++)
        S.f[i].lane[d].lo = S.f[i].lane[d].hi = -1;
    return i;
}

/* Independent encoder of dxt.h's in-memory format. */
static uint64_t zz(uint64_t a, uint64_t b)
{
    uint64_t d = a - b;                          /* two's complement difference */
    return (d >> 63) ? ((~d) << 1) | 1 : d << 1; /* zigzag */
}
static size_t leb(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        o[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}
static size_t encode(tlane *tl, const tseg *s, uint8_t *o)
{
    size_t n = 0;
    n += leb(o + n, zz((uint64_t)s->off, tl->eoff));
    n += leb(o + n, zz((uint64_t)s->len, tl->elen));
    n += leb(o + n, zz((uint64_t)s->s_ns, tl->ens));
    n += leb(o + n, zz((uint64_t)s->e_ns, (uint64_t)s->s_ns));
    tl->eoff = (uint64_t)s->off + (uint64_t)s->len;
    tl->elen = (uint64_t)s->len;
    tl->ens = (uint64_t)s->e_ns;
    return n;
}

/* One operation: the model decides, the engine records, and the two are compared
 * (fp, n, room, and the bytes appended). */
static void add(int fi, int wr, int64_t off, int64_t len, int64_t s_ns, int64_t e_ns)
{
    tfile *f = &S.f[fi];
    tlane *tl = &f->lane[wr];
    if (!f->seen) {
        f->seen = 1;
        S.order[S.norder++] = fi;
        const char *nm = name_lookup(f->id, 0);
        if (nm && name_is_excluded(nm)) {
            f->none = 1;
        } else if (S.remaining >= 104) {
            S.remaining -= 104;
            f->charged = 1;
        } else {
            f->none = 1;
            S.dropped = 1;
        }
    }
    int kept = 0;
    if (!f->none) {
        if (tl->mn == tl->mroom) {
            int64_t want = tl->mroom ? tl->mroom : 64;
            if (want * 32 > S.remaining)
                want = S.remaining / 32;
            S.remaining -= want * 32;
            tl->mroom += want;
        }
        if (tl->mn < tl->mroom) {
            tl->mn++;
            kept = 1;
        } else {
            S.dropped = 1;
        }
    }
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? 2 * tl->cap : 16;
        tl->v = realloc(tl->v, tl->cap * sizeof *tl->v);
        if (!tl->v)
            abort();
    }
    tseg *s = &tl->v[tl->n++];
    *s = (tseg){off, len, s_ns, e_ns, kept};

    int had = f->fp && f->fp != NONE;
    iol_dxt_lane before;
    memset(&before, 0, sizeof before);
    if (had)
        before = f->fp->lane[wr];
    /* POSIX passes nanoseconds (iol_ts_ns), MPI-IO iol_dxt_ns of its times in seconds
     * ((double)ns * 1e-9): odd files take the second way when |ns| <= 1e15. */
    int64_t a1 = s_ns, a2 = e_ns;
    if ((fi & 1) && s_ns >= -NS_MAX && s_ns <= NS_MAX && e_ns >= -NS_MAX && e_ns <= NS_MAX) {
        a1 = iol_dxt_ns((double)s_ns * 1e-9);
        a2 = iol_dxt_ns((double)e_ns * 1e-9);
    }
    iol_dxt_add(S.x, &f->fp, f->id, wr, off, len, a1, a2);
    if (f->none) {
        CHECK(f->fp == NONE, "file %d: per-file pointer %p, expected IOL_DXT_NONE", fi, (void *)f->fp);
        return;
    }
    CHECK(f->fp && f->fp != NONE, "file %d: no file state (%p) though the budget allowed it", fi,
          (void *)f->fp);
    if (!f->fp || f->fp == NONE)
        return;
    const iol_dxt_lane *l = &f->fp->lane[wr];
    CHECK(l->n == tl->mn && l->room == tl->mroom,
          "file %d dir %d op %zu: lane n %lld room %lld, model n %lld room %lld", fi, wr, tl->n - 1,
          (long long)l->n, (long long)l->room, (long long)tl->mn, (long long)tl->mroom);
    if (kept) {
        uint8_t exp[IOL_DXT_MAX_ENC + 8];
        size_t k = encode(tl, s, exp);
        const uint8_t *from = (had && before.last && before.last == l->last) ? before.pos
                              : l->last ? CH(l->last)->data : NULL;
        CHECK(from && l->pos - from == (ptrdiff_t)k && memcmp(from, exp, k) == 0,
              "file %d dir %d op %zu: %td bytes appended, expected %zu (zigzag LEB128 of "
              "off %lld len %lld ns %lld..%lld)",
              fi, wr, tl->n - 1, from ? l->pos - from : (ptrdiff_t)-1, k, (long long)off,
              (long long)len, (long long)s_ns, (long long)e_ns);
    } else if (had) {
        CHECK(l->pos == before.pos && l->n == before.n, "file %d dir %d: dropped op changed the lane",
              fi, wr);
    }
}

/* ---- ASan guard: only the file states, chunk headers and written bytes of the
 * store are readable while finish/output run. */
#define MAXALLOW 16384
static struct { const uint8_t *p; size_t n; } allow[MAXALLOW];
static int nallow;
static void allow_add(const void *p, ptrdiff_t n)
{
    CHECK(nallow < MAXALLOW && n >= 0, "allow list: %d entries, length %td", nallow, n);
    if (nallow < MAXALLOW && n >= 0)
        allow[nallow++] = (typeof(allow[0])){p, (size_t)n};
}
static void allow_collect(void)
{
    nallow = 0;
    for (int i = 0; i < S.nf; i++) {
        iol_dxt_file *f = S.f[i].fp;
        if (!f || f == NONE)
            continue;
        allow_add(f, sizeof *f);
        for (int d = 0; d < 2; d++) {
            const iol_dxt_lane *l = &f->lane[d];
            for (mchunk *c = CH(l->first); c; c = c->next) {
                allow_add(c, sizeof *c);
                const uint8_t *e = c == CH(l->last) ? l->pos : c->end;
                allow_add(c->data, e - c->data);
            }
        }
    }
}
/* Make the bytes allowed for chunk data `data` end at `end`. */
static void allow_cut(const uint8_t *data, const uint8_t *end)
{
    for (int i = 0; i < nallow; i++)
        if (allow[i].p == data)
            allow[i].n = (size_t)(end - data);
}
static void guard_apply(void)
{
    POISON(arena, arena_len);
    for (int i = 0; i < nallow; i++)
        UNPOISON(allow[i].p, allow[i].n);
}
static void guard_release(void) { UNPOISON(arena, arena_len); }

/* Kept segments are the first of each lane (a property of the rule). */
static int64_t kept_prefix(const tlane *tl)
{
    size_t k = 0;
    while (k < tl->n && tl->v[k].kept)
        k++;
    for (size_t j = k; j < tl->n; j++)
        CHECK(!tl->v[j].kept, "model kept op %zu after dropping op %zu", j, k);
    return (int64_t)k;
}

static int cmp_seg(const uint8_t *p, const tseg *s, const char *what, int fi, int64_t j)
{
    iol_dxt_seg g;
    memcpy(&g, p, sizeof g);
    double es = (double)s->s_ns * 1e-9, ee = (double)s->e_ns * 1e-9;
    int ok = g.offset == s->off && g.length == s->len && memcmp(&g.start, &es, 8) == 0 &&
             memcmp(&g.end, &ee, 8) == 0;
    CHECK(ok,
          "file %d %s segment %lld: got (%lld, %lld, %.17g, %.17g), expected (%lld, %lld, %.17g, "
          "%.17g) [ns %lld..%lld]",
          fi, what, (long long)j, (long long)g.offset, (long long)g.length, g.start, g.end,
          (long long)s->off, (long long)s->len, es, ee, (long long)s->s_ns, (long long)s->e_ns);
    return ok;
}

/* finish + output under the guard, and the payload against the model.  With
 * `strict`, m->count must be the number of records. */
static size_t verify(int strict)
{
    void *pl = (void *)&pl;
    if (!nallow)
        allow_collect();
    guard_apply();
    iol_dxt_finish(DM());
    size_t len = iol_dxt_output(DM(), &pl);
    guard_release();
    nallow = 0;
    const uint8_t *p = pl;
    CHECK(len == 0 || p != NULL, "payload NULL with length %zu", len);
    size_t off = 0;
    int nrec = 0;
    for (int k = 0; k < S.norder; k++) {
        int fi = S.order[k];
        tfile *f = &S.f[fi];
        int64_t lo[2], hi[2];
        for (int d = 0; d < 2; d++) {
            int64_t kp = kept_prefix(&f->lane[d]);
            CHECK(kp == f->lane[d].mn, "file %d dir %d: %lld kept, prefix %lld", fi, d,
                  (long long)f->lane[d].mn, (long long)kp);
            lo[d] = f->lane[d].lo >= 0 ? f->lane[d].lo : kp;
            hi[d] = f->lane[d].hi >= 0 ? f->lane[d].hi : kp;
        }
        f->lane[0].got = f->lane[1].got = 0;
        uint64_t id = 0;
        if (p && off + 8 <= len)
            memcpy(&id, p + off, 8);
        if (!f->charged || f->trig_drop || hi[0] + hi[1] == 0) {
            CHECK(!(p && off + 8 <= len && id == f->id), "file %d (charged %d, trigger-dropped %d, "
                  "at most %lld segments) has a record", fi, f->charged, f->trig_drop,
                  (long long)(hi[0] + hi[1]));
            continue;
        }
        if (lo[0] + lo[1] == 0 && id != f->id)
            continue;                /* may have decoded to nothing */
        if (!p || off + 104 > len) {
            CHECK(0, "payload ends at %zu: no record for file %d", len, fi);
            break;
        }
        int64_t rank, shared, nw, nr;
        memcpy(&rank, p + off + 8, 8);
        memcpy(&shared, p + off + 16, 8);
        memcpy(&nw, p + off + 88, 8);
        memcpy(&nr, p + off + 96, 8);
        CHECK(id == f->id, "record %d at %zu: id %016" PRIx64 ", expected file %d's %016" PRIx64, nrec,
              off, id, fi, f->id);
        CHECK(rank == iol_rank && shared == 0, "file %d: rank %lld shared_record %lld", fi,
              (long long)rank, (long long)shared);
        CHECK(memcmp(p + off + 24, host64, 64) == 0, "file %d: hostname \"%.64s\", expected \"%s\"", fi,
              (const char *)p + off + 24, uts.nodename);
        CHECK(nw >= lo[1] && nw <= hi[1] && nr >= lo[0] && nr <= hi[0],
              "file %d: %lld writes %lld reads, expected %lld..%lld writes %lld..%lld reads", fi,
              (long long)nw, (long long)nr, (long long)lo[1], (long long)hi[1], (long long)lo[0],
              (long long)hi[0]);
        CHECK(nw + nr > 0, "file %d: record with no segments", fi);
        if (id != f->id || nw < 0 || nr < 0 || nw > (int64_t)f->lane[1].n || nr > (int64_t)f->lane[0].n ||
            off + 104 + (size_t)(nw + nr) * 32 > len) {
            CHECK(0, "file %d: cannot continue (record of %lld+%lld segments at %zu, payload %zu)", fi,
                  (long long)nw, (long long)nr, off, len);
            return len;
        }
        const uint8_t *sp = p + off + 104;
        for (int64_t j = 0; j < nw; j++, sp += 32)
            if (!cmp_seg(sp, &f->lane[1].v[j], "write", fi, j))
                break;
        sp = p + off + 104 + (size_t)nw * 32;
        for (int64_t j = 0; j < nr; j++, sp += 32)
            if (!cmp_seg(sp, &f->lane[0].v[j], "read", fi, j))
                break;
        f->lane[1].got = nw;
        f->lane[0].got = nr;
        off += 104 + (size_t)(nw + nr) * 32;
        nrec++;
    }
    CHECK(off == len, "payload %zu bytes, records end at %zu", len, off);
    if (strict)
        CHECK(DM()->count == (size_t)nrec, "finish set count %zu, output has %d records", DM()->count,
              nrec);
    return len;
}

static void check_partial(void)
{
    uint64_t want = S.dropped ? 1ull << S.modid : 0;
    CHECK(partial_bits == want, "partial bits %#" PRIx64 ", expected %#" PRIx64, partial_bits, want);
}

/* ------------------------------------------------------------ generators */
static const int64_t off_ext[] = {-1, 0, 1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                                  4096, (int64_t)1 << 62, -((int64_t)1 << 62), (int64_t)1 << 32};
static const int64_t len_ext[] = {0, 1, -1, INT64_MAX, INT64_MIN, (int64_t)1 << 40, INT64_MAX / 2,
                                  4096, 1 << 20};
#define NEL(a) (sizeof(a) / sizeof(a)[0])

/* Nanosecond readings beyond the runtime's (a clock stepped far off). */
static const int64_t ns_ext[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, (int64_t)1 << 62,
                                 -((int64_t)1 << 62), -1, 0, 1, NS_MAX, -NS_MAX};
static int64_t rnd_ns(void) { return (int64_t)rndn(2 * NS_MAX + 1) - NS_MAX; }

/* A random operation on lane `wr` of file fi, sequential most of the time. */
static void gen_add(int fi, int wr)
{
    tlane *tl = &S.f[fi].lane[wr];
    const tseg *pv = tl->n ? &tl->v[tl->n - 1] : NULL;
    uint64_t pend = pv ? (uint64_t)pv->off + (uint64_t)pv->len : 0;
    int64_t plen = pv ? pv->len : 4096;
    int64_t off, len, s, e;
    switch (rndn(12)) {
    case 0: case 1: case 2: case 3: case 4: off = (int64_t)pend; break;
    case 5: off = (int64_t)(pend + rndn(1 << 20) - (1 << 19)); break;
    case 6: off = off_ext[rndn(NEL(off_ext))]; break;
    case 7: off = (int64_t)rnd(); break;
    case 8: off = (int64_t)(pend - (rnd() >> rndn(64))); break;   /* backwards */
    default: off = (int64_t)rndn(1ull << 40); break;
    }
    switch (rndn(10)) {
    case 0: case 1: case 2: case 3: case 4: len = plen; break;
    case 5: len = len_ext[rndn(NEL(len_ext))]; break;
    case 6: len = (int64_t)rnd(); break;
    case 7: len = (int64_t)rndn(1 << 20); break;
    default: len = (int64_t)rndn(65536); break;
    }
    switch (rndn(16)) {
    case 0: s = e = tl->clk; break;                               /* instantaneous */
    case 1: s = tl->clk; e = s - (int64_t)rndn(1000000); break;   /* end < start */
    case 2: s = -(int64_t)rndn(NS_MAX); e = -(int64_t)rndn(NS_MAX); break;   /* negative */
    case 3: s = 0; e = rndn(2) ? 0 : NS_MAX; break;
    case 4: s = NS_MAX; e = rndn(2) ? NS_MAX : -NS_MAX; break;
    case 5: s = rnd_ns(); e = rnd_ns(); break;
    case 6: s = tl->clk + (int64_t)rndn(NS_MAX / 4); e = s + (int64_t)rndn(1000); break;
    case 7: s = ns_ext[rndn(NEL(ns_ext))]; e = ns_ext[rndn(NEL(ns_ext))]; break;
    default: s = tl->clk + (int64_t)rndn(5000); e = s + (int64_t)rndn(200000); break;
    }
    if ((fi & 1) && (s > NS_MAX || s < -NS_MAX))
        s = rnd_ns();
    if ((fi & 1) && (e > NS_MAX || e < -NS_MAX))
        e = rnd_ns();
    tl->clk = e > 0 && e <= NS_MAX ? e : 0;
    add(fi, wr, off, len, s, e);
}

/* ------------------------------------------------------------ tests */
static void test_descriptors(void)
{
    SETCTX("descriptors");
    const iol_module_desc *p = &iol_dxt_posix_module, *m = &iol_dxt_mpiio_module;
    CHECK(p->id == IOL_MOD_DXT_POSIX && p->version == 1 && p->own_memory == 1,
          "DXT_POSIX: id %d version %u own_memory %d", p->id, p->version, p->own_memory);
    CHECK(m->id == IOL_MOD_DXT_MPIIO && m->version == 2 && m->own_memory == 1,
          "DXT_MPIIO: id %d version %u own_memory %d", m->id, m->version, m->own_memory);
    for (int i = 0; i < 2; i++) {
        const iol_module_desc *d = i ? m : p;
        CHECK(d->activate == iol_dxt_activate && d->finish == iol_dxt_finish &&
                  d->output == iol_dxt_output && d->reset == iol_dxt_reset,
              "%s: callbacks are not the engine's", d->name);
    }
}

/* iol_dxt_ns recovers ns from (double)ns * 1e-9 exactly for |ns| <= 1e15 (the
 * MPI-IO path; dxt.h: runs shorter than about 100 days). */
static void test_ns(void)
{
    SETCTX("iol_dxt_ns");
    rng = 2024;
    int bad = 0;
    for (int i = 0; i < 400000; i++) {
        int64_t ns = i < 2000 ? (int64_t)i - 1000
                     : i < 4000 ? NS_MAX - (i - 2000) : i < 6000 ? -NS_MAX + (i - 4000) : rnd_ns();
        if (i % 3 == 0 && i >= 6000)
            ns = (int64_t)rndn(1ull << (rndn(50) + 1));     /* small magnitudes too */
        int64_t got = iol_dxt_ns((double)ns * 1e-9);
        if (got != ns && bad++ < 5)
            CHECK(got == ns, "iol_dxt_ns((double)%lld * 1e-9) = %lld", (long long)ns, (long long)got);
    }
    CHECK(bad == 0, "%d values not recovered", bad);
}

static void test_attach(void)
{
    SETCTX("attach");
    memset(DM(), 0, sizeof *DM());
    CHECK(iol_dxt_attach(DXT_POSIX) == NULL, "attach with tracing off (no descriptor) gave a store");
    /* Activation whose mapping fails: memory failure counted, module disabled. */
    DM()->d = &iol_dxt_posix_module;
    iol_cfg.max_records[DXT_POSIX] = 4;
    int fails = fail_counts[IOL_FAIL_MEMORY], calls = activate_calls;
    map_fail_next = 1;
    CHECK(iol_dxt_attach(DXT_POSIX) == NULL, "attach gave a store without memory");
    map_fail_next = 0;
    CHECK(fail_counts[IOL_FAIL_MEMORY] == fails + 1 && DM()->state == -1,
          "failed activation: %d memory failures, state %d", fail_counts[IOL_FAIL_MEMORY] - fails,
          DM()->state);
    CHECK(iol_dxt_attach(DXT_POSIX) == NULL && activate_calls == calls + 1 && nlive == 0,
          "failed module retried (%d activations) or mapped (%d live)", activate_calls - calls, nlive);
    CHECK(DM()->lock == 0, "lock left held");
    /* Twice: one activation, one store; frozen: none. */
    start_store(4);
    calls = activate_calls;
    CHECK(iol_dxt_attach(DXT_POSIX) == S.x && activate_calls == calls && nlive == 1,
          "second attach: other store or activated again");
    DM()->frozen = 1;
    CHECK(iol_dxt_attach(DXT_POSIX) == NULL, "attach to a frozen module gave a store");
    DM()->frozen = 0;
    CHECK(DM()->lock == 0, "lock left held");
    /* Nothing traced: no payload. */
    void *pl = (void *)&pl;
    iol_dxt_finish(DM());
    size_t len = iol_dxt_output(DM(), &pl);
    CHECK(len == 0 && pl == NULL && DM()->count == 0, "empty store: %zu bytes, payload %p, count %zu",
          len, pl, DM()->count);
    check_partial();
    end_store();
}

static void test_roundtrip(void)
{
    SETCTX("round trip");
    rng = 12345;
    start_store(64 << 10);            /* 64 MiB: nothing dropped */
    const int nfiles = 300, nops = 150000;
    for (int i = 0; i < nfiles; i++)
        new_file();
    /* The mirror of the chunk header: the first segment starts at data[]. */
    add(0, 1, 0, 1, 0, 1);
    const iol_dxt_lane *l0 = &S.f[0].fp->lane[1];
    CHECK(l0->first == l0->last && l0->pos == CH(l0->first)->data + 4,
          "first segment of a lane is not at the chunk's data (mirror of iol_dxt_chunk out of date?)");
    for (int i = 0; i < nops; i++) {
        int active = 1 + (int)((int64_t)i * nfiles / (nops * 3 / 4));
        if (active > nfiles)
            active = nfiles;
        int fi = rndn(4) == 0 ? 0 : (rndn(3) == 0 ? (int)rndn(8) : (int)rndn((uint64_t)active));
        int wr = fi % 7 == 3 ? 1 : fi % 7 == 4 ? 0 : (int)rndn(2);   /* some one-way files */
        gen_add(fi, wr);
    }
    /* Compactness: a run of equal sequential writes close in time. */
    int fi = new_file();
    for (int i = 0; i < 1000; i++)
        add(fi, 1, (int64_t)i * 1048576, 1048576, 1000000 + i * 2000, 1000000 + i * 2000 + 1500);
    const iol_dxt_lane *l = &S.f[fi].fp->lane[1];
    size_t bytes = 0;
    for (mchunk *c = CH(l->first); c; c = c->next)
        bytes += (size_t)((c == CH(l->last) ? l->pos : c->end) - c->data);
    CHECK(bytes <= 1000 * 6 + 16, "1000 sequential equal writes take %zu bytes", bytes);

    int64_t segs = 0;
    for (int i = 0; i < S.nf; i++)
        segs += S.f[i].lane[0].mn + S.f[i].lane[1].mn;
    CHECK(!S.dropped, "model dropped something with a 64 MiB budget");
    size_t len = verify(1);
    CHECK(len == (size_t)S.nf * 104 + (size_t)segs * 32, "payload %zu bytes for %d files, %lld segments",
          len, S.nf, (long long)segs);
    CHECK(DM()->count == (size_t)S.nf, "count %zu for %d files", DM()->count, S.nf);
    check_partial();
    end_store();
}

/* Interleavings under a budget of `kib` KiB. */
enum { P_ONE_LANE, P_ONE_FILE_BOTH, P_ROUND_ROBIN, P_RANDOM, P_MANY_FILES, P_BURSTS, P_COUNT };
static const char *const pat_name[] = {"one lane", "one file both directions", "round robin 8 files",
                                       "random", "one op per file", "bursts"};
static void run_budget(int64_t kib, int pat, uint64_t seed)
{
    SETCTX("budget %lld KiB, %s, seed %llu", (long long)kib, pat_name[pat], (unsigned long long)seed);
    rng = seed;
    start_store(kib);
    int64_t segs = S.budget / 32 + 300;
    switch (pat) {
    case P_ONE_LANE:
        new_file();
        for (int64_t i = 0; i < segs; i++)
            gen_add(0, 1);
        break;
    case P_ONE_FILE_BOTH:
        new_file();
        for (int64_t i = 0; i < segs; i++)
            gen_add(0, (int)(i & 1) ^ (rndn(5) == 0));
        break;
    case P_ROUND_ROBIN:
        for (int i = 0; i < 8; i++)
            new_file();
        for (int64_t i = 0; i < segs; i++)
            gen_add((int)(i % 8), (int)((i / 8) & 1));
        break;
    case P_RANDOM:
        new_file();
        for (int64_t i = 0; i < segs; i++) {
            if (rndn(100) < 3 && S.nf < MAXF)
                new_file();
            gen_add((int)rndn((uint64_t)S.nf), (int)rndn(2));
        }
        break;
    case P_MANY_FILES:
        for (int64_t i = 0; i < S.budget / 104 + 20 && S.nf < MAXF; i++)
            gen_add(new_file(), (int)rndn(2));
        break;
    case P_BURSTS:
        for (int64_t i = 0; i < segs;) {
            int fi = S.nf < 40 && rndn(4) == 0 ? new_file() : S.nf ? (int)rndn((uint64_t)S.nf) : new_file();
            int wr = (int)rndn(2), n = 1 + (int)rndn(200);
            for (int k = 0; k < n; k++, i++)
                gen_add(fi, wr);
        }
        break;
    }
    verify(1);
    check_partial();
    /* Something was dropped whenever more was asked than the budget can hold. */
    CHECK(pat == P_MANY_FILES || S.dropped, "nothing dropped from %lld segments", (long long)segs);
    end_store();
}

static void test_budget(void)
{
    static const int64_t kibs[] = {1, 3, 16, 64};
    for (size_t b = 0; b < NEL(kibs); b++)
        for (int pat = 0; pat < P_COUNT; pat++)
            for (uint64_t seed = 1; seed <= (pat == P_RANDOM || pat == P_BURSTS ? 3u : 1u); seed++)
                run_budget(kibs[b], pat, seed * 1000 + (uint64_t)pat);
    run_budget(0, P_RANDOM, 77);
    run_budget(0, P_ROUND_ROBIN, 78);

    /* Numbers from docs/dxt.md: one file alone keeps (budget - 104) / 32 segments. */
    static const struct { int64_t kib; int64_t keep; } one[] = {{0, 65532}, {-5, 65532}, {64, 2044},
                                                                {1, 28}, {3, 92}};
    for (size_t i = 0; i < NEL(one); i++) {
        SETCTX("one lane, MAX_RECORDS %lld", (long long)one[i].kib);
        rng = 99;
        start_store(one[i].kib);
        int fi = new_file();
        for (int64_t k = 0; k < one[i].keep + 10; k++)
            add(fi, 0, k * 10, 10, k, k + 1);
        CHECK(S.f[fi].lane[0].mn == one[i].keep, "model keeps %lld, expected %lld",
              (long long)S.f[fi].lane[0].mn, (long long)one[i].keep);
        verify(1);
        CHECK(S.dropped && partial_bits == 1ull << DXT_POSIX, "partial bits %#" PRIx64, partial_bits);
        end_store();
    }

    /* 101 KiB = 48 x (104 + 64 x 32) + 128 and 267 KiB = 127 x (104 + 64 x 32) + 104:
     * the next file is charged (128 or exactly 104 left) but can get no segment (no
     * record, partial bit); the one after cannot be charged (no file state). */
    static const struct { int64_t kib; int files; } fill[] = {{101, 48}, {267, 127}};
    for (size_t t = 0; t < NEL(fill); t++) {
        SETCTX("charged file without segments, %lld KiB", (long long)fill[t].kib);
        rng = 5;
        start_store(fill[t].kib);
        for (int i = 0; i < fill[t].files; i++)
            add(new_file(), i & 1, i, 1, i, i);
        CHECK(!S.dropped && partial_bits == 0 && S.remaining == (t ? 104 : 128),
              "after %d files: dropped %d, partial %#" PRIx64 ", %lld left", fill[t].files, S.dropped,
              partial_bits, (long long)S.remaining);
        int z = new_file();
        add(z, 1, 0, 1, 0, 0);
        CHECK(S.f[z].charged && S.dropped && S.f[z].fp && S.f[z].fp != NONE && S.f[z].fp->lane[1].n == 0,
              "next file: charged %d, state %p", S.f[z].charged, (void *)S.f[z].fp);
        int y = new_file();
        add(y, 0, 0, 1, 0, 0);
        CHECK(S.f[y].fp == NONE, "the file after has state %p, expected none", (void *)S.f[y].fp);
        add(z, 0, 0, 1, 0, 0);
        CHECK(verify(1) == (size_t)fill[t].files * (104 + 32), "payload size");
        check_partial();
        end_store();
    }
}

/* Trigger model (docs/dxt.md): share = counter / (reads + writes) >= trigger; no
 * POSIX record or no operations fails; both set: both must pass. */
static int posix_active;
static int model_pass(uint64_t id)
{
    double small = iol_cfg.dxt_small_trigger, un = iol_cfg.dxt_unaligned_trigger;
    if (small < 0 && un < 0)
        return 1;
    const fake_psx *r = NULL;
    for (int i = 0; i < npsx; i++)
        if (psx[i].id == id)
            r = &psx[i];
    if (!posix_active || !r)
        return 0;
    int64_t ops = r->c[POSIX_READS] + r->c[POSIX_WRITES];
    if (ops <= 0)
        return 0;
    int64_t sm = r->c[POSIX_SIZE_READ_0_100] + r->c[POSIX_SIZE_READ_100_1K] + r->c[POSIX_SIZE_READ_1K_10K] +
                 r->c[POSIX_SIZE_WRITE_0_100] + r->c[POSIX_SIZE_WRITE_100_1K] + r->c[POSIX_SIZE_WRITE_1K_10K];
    if (small >= 0 && !((double)sm / (double)ops >= small))
        return 0;
    if (un >= 0 && !((double)r->c[POSIX_FILE_NOT_ALIGNED] / (double)ops >= un))
        return 0;
    return 1;
}

static void set_psx(int i, int64_t reads, int64_t writes, const int64_t small[6], int64_t unaligned)
{
    fake_psx *r = &psx[npsx++];
    memset(r, 0, sizeof *r);
    r->id = file_id(i);
    r->rank = iol_rank;
    r->c[POSIX_READS] = reads;
    r->c[POSIX_WRITES] = writes;
    static const int bins[6] = {POSIX_SIZE_READ_0_100, POSIX_SIZE_READ_100_1K, POSIX_SIZE_READ_1K_10K,
                                POSIX_SIZE_WRITE_0_100, POSIX_SIZE_WRITE_100_1K, POSIX_SIZE_WRITE_1K_10K};
    for (int b = 0; b < 6; b++)
        r->c[bins[b]] = small[b];
    r->c[POSIX_SIZE_READ_10K_100K] = 1000;   /* large sizes never count */
    r->c[POSIX_SIZE_WRITE_10K_100K] = 1000;
    r->c[POSIX_FILE_NOT_ALIGNED] = unaligned;
    r->c[POSIX_MEM_NOT_ALIGNED] = 1000;
}

static void run_triggers(double small, double un, int pstate)
{
    SETCTX("triggers small %g unaligned %g, POSIX state %d", small, un, pstate);
    iol_cfg.dxt_small_trigger = small;
    iol_cfg.dxt_unaligned_trigger = un;
    iol_mods[IOL_MOD_POSIX].d = &fake_posix_desc;
    iol_mods[IOL_MOD_POSIX].state = pstate;
    posix_active = pstate == 1;
    npsx = 0;
    rng = 4242;
    start_store(1024);
    /* Hand-made: shares small / unaligned. */
    set_psx(0, 2, 2, (int64_t[6]){1, 0, 0, 0, 0, 1}, 1);   /* 0.5, 0.25 */
    /* file 1: no POSIX record */
    set_psx(2, 0, 0, (int64_t[6]){0}, 0);                  /* no operations */
    set_psx(3, 4, 0, (int64_t[6]){0, 2, 2, 0, 0, 0}, 4);   /* 1, 1 */
    set_psx(4, 1, 3, (int64_t[6]){0}, 0);                  /* 0, 0 */
    set_psx(5, 3, 0, (int64_t[6]){0, 0, 1, 0, 0, 0}, 1);   /* 1/3, 1/3 */
    set_psx(6, 3, 5, (int64_t[6]){0, 0, 0, 3, 3, 0}, 6);   /* 0.75, 0.75 */
    for (int i = 7; i < 120; i++) {
        if (rndn(10) == 0)
            continue;                                       /* no record */
        int64_t r = (int64_t)rndn(9), w = (int64_t)rndn(9), b[6] = {0};
        for (int k = 0; k < 6; k++) {
            int64_t room = r + w;
            for (int j = 0; j < k; j++)
                room -= b[j];
            b[k] = room > 0 ? (int64_t)rndn((uint64_t)room + 1) / 2 : 0;
        }
        set_psx(i, r, w, b, r + w ? (int64_t)rndn((uint64_t)(r + w) + 1) : 0);
    }
    for (int i = 0; i < 120; i++) {
        int fi = new_file();
        int n = 1 + (int)rndn(6);
        for (int k = 0; k < n; k++)
            gen_add(fi, (int)rndn(2));
    }
    int kept = 0;
    for (int i = 0; i < S.nf; i++) {
        S.f[i].trig_drop = !model_pass(S.f[i].id);
        kept += !S.f[i].trig_drop && S.f[i].charged && S.f[i].lane[0].mn + S.f[i].lane[1].mn > 0;
    }
    bad_rec_find = 0;
    verify(1);
    CHECK(bad_rec_find == 0, "iol_rec_find asked about another module");
    CHECK(DM()->count == (size_t)kept, "count %zu, %d files pass", DM()->count, kept);
    check_partial();
    end_store();
}

static void test_triggers(void)
{
    static const double tr[][2] = {{-1, -1}, {0.5, -1}, {-1, 0.25}, {0.5, 0.25}, {0, -1}, {-1, 0},
                                   {0, 0}, {1, -1}, {-1, 1}, {1.0 / 3, -1}, {-1, 1.0 / 3},
                                   {0.75, 0.75}, {0.76, -1}, {-1, 1.5}, {-2, -0.5}, {0.25, 0.5}};
    for (size_t i = 0; i < NEL(tr); i++)
        run_triggers(tr[i][0], tr[i][1], 1);
    run_triggers(0.5, -1, 0);          /* POSIX module not active: no records */
    run_triggers(-1, -1, 0);
    /* Spot checks of the model itself on the hand-made files. */
    SETCTX("trigger model");
    iol_cfg.dxt_small_trigger = 0.5;
    iol_cfg.dxt_unaligned_trigger = -1;
    posix_active = 1;
    CHECK(model_pass(file_id(0)) && !model_pass(file_id(1)) && !model_pass(file_id(2)) &&
              model_pass(file_id(3)) && !model_pass(file_id(4)) && !model_pass(file_id(5)),
          "model disagrees with the hand-made expectations");
    iol_cfg.dxt_small_trigger = iol_cfg.dxt_unaligned_trigger = -1;
    iol_mods[IOL_MOD_POSIX].d = NULL;
    iol_mods[IOL_MOD_POSIX].state = 0;
    npsx = 0;
}

/* ---- interrupted states.  Scenario A: file 0 has 150 writes (chunks of 64, 64
 * and 22 of a 128 grant) and 10 reads, file 1 a few of each. */
static const uint8_t *a_bound[160];   /* write lane's pos after each write */
static const void *a_chunk[160];      /* and its last chunk then */
static void build_a(void)
{
    rng = 777;
    start_store(64);
    int f0 = new_file(), f1 = new_file();
    for (int k = 0; k < 150; k++) {
        gen_add(f0, 1);
        a_bound[k + 1] = S.f[f0].fp->lane[1].pos;
        a_chunk[k + 1] = S.f[f0].fp->lane[1].last;
        if (k % 15 == 0)
            gen_add(f0, 0);
    }
    for (int k = 0; k < 8; k++)
        gen_add(f1, k & 1);
    allow_collect();
}
static void expect_writes(int64_t lo, int64_t hi)
{
    S.f[0].lane[1].lo = lo;
    S.f[0].lane[1].hi = hi;
}

static void test_interrupt_add(void)
{
    /* pos published, n not yet incremented */
    SETCTX("interrupted add: n one behind pos");
    build_a();
    iol_dxt_lane *l = &S.f[0].fp->lane[1];
    CHECK(l->n == 150 && l->room == 256 && l->sealed == 128, "scenario A: n %lld room %lld sealed %lld",
          (long long)l->n, (long long)l->room, (long long)l->sealed);
    l->n--;
    expect_writes(149, 149);
    verify(0);
    end_store();

    /* n larger than the bytes hold */
    SETCTX("interrupted add: n beyond the bytes");
    build_a();
    S.f[0].fp->lane[1].n += 7;
    expect_writes(150, 150);
    verify(0);
    end_store();

    /* pos anywhere in the last chunk (mid-varint included), n as stored or beyond */
    for (int extra = 0; extra <= 3; extra += 3) {
        build_a();
        const uint8_t *data = CH(S.f[0].fp->lane[1].last)->data, *real = S.f[0].fp->lane[1].pos;
        ptrdiff_t nbytes = real - data;
        end_store();
        for (ptrdiff_t cut = 0; cut <= nbytes; cut++) {
            SETCTX("interrupted add: pos at byte %td of %td of the last chunk, n + %d", cut, nbytes, extra);
            build_a();
            l = &S.f[0].fp->lane[1];
            data = CH(l->last)->data;
            int64_t whole = 0;
            for (int k = 1; k <= 150; k++)
                if (a_chunk[k] == l->last && a_bound[k] <= data + cut)
                    whole++;
            l->pos = (uint8_t *)data + cut;
            l->n += extra;
            allow_cut(data, data + cut);
            expect_writes(128 + whole, 128 + whole);
            verify(0);
            end_store();
        }
    }

    /* A sealed chunk whose bytes end early (or whose end is not set): the output
     * stops there and does not go on with the next chunks. */
    for (int c = 0; c < 4; c++) {
        SETCTX("sealed first chunk cut, case %d", c);
        build_a();
        l = &S.f[0].fp->lane[1];
        mchunk *first = CH(l->first);
        const uint8_t *cut = c == 0 ? first->end - 1 : c == 1 ? a_bound[40] + 2 : c == 2 ? a_bound[40] : NULL;
        int64_t whole = 0;
        for (int k = 1; k <= 64; k++)
            if (cut && a_bound[k] <= cut)
                whole++;
        first->end = (uint8_t *)cut;
        if (c == 3)
            whole = 0;               /* end not stored yet (NULL) */
        allow_cut(first->data, cut ? cut : first->data);
        expect_writes(whole, whole);
        verify(0);
        end_store();
    }

    /* A file whose only segment is cut: no record at all. */
    SETCTX("interrupted add: only segment of a file cut");
    build_a();
    int fi = new_file();
    gen_add(fi, 0);
    allow_collect();
    l = &S.f[fi].fp->lane[0];
    const uint8_t *data = CH(l->first)->data;
    l->pos = (uint8_t *)data + 1;
    allow_cut(data, data + 1);
    S.f[fi].lane[0].lo = S.f[fi].lane[0].hi = 0;
    verify(0);
    end_store();
}

/* Scenario B: the write lane of file 0 is full (128 of 128, in two chunks) and
 * grows; the output is taken with any subset of the grow's stores done (the
 * compiler may order them freely: there is no fence in iol_dxt_grow). */
enum { G_NSEG, G_END, G_NEXT, G_LAST, G_POS, G_SEALED, G_ROOM, G_N };   /* source order */
static const char *const g_name[] = {"old->nseg", "old->end", "old->next", "l->last", "l->pos",
                                     "l->sealed", "l->room"};
static void build_b(unsigned mask, int more)
{
    rng = 31337;
    start_store(64);
    int f0 = new_file(), f1 = new_file();
    for (int k = 0; k < 128; k++) {
        gen_add(f0, 1);
        if (k % 30 == 0)
            gen_add(f0, 0);
    }
    for (int k = 0; k < 5; k++)
        gen_add(f1, k & 1);
    iol_dxt_lane *l = &S.f[f0].fp->lane[1];
    mchunk *old = CH(l->last);
    CHECK(l->n == 128 && l->room == 128 && l->sealed == 64 && old != CH(l->first),
          "scenario B: n %lld room %lld sealed %lld", (long long)l->n, (long long)l->room,
          (long long)l->sealed);
    if (more) {                      /* the grow done by the next add, and more adds */
        for (int k = 0; k < 40; k++)
            gen_add(f0, 1);
        return;
    }
    iol_dxt_lane pre = *l;
    mchunk oldpre = *old;
    CHECK(iol_dxt_grow(S.x, l) == 1, "grow failed");
    allow_collect();                 /* the bytes written: the old chunk up to pre.pos */
    iol_dxt_lane post = *l;
    if (!(mask & (1u << G_NSEG)))
        old->nseg = oldpre.nseg;
    if (!(mask & (1u << G_END)))
        old->end = oldpre.end;
    if (!(mask & (1u << G_NEXT)))
        old->next = oldpre.next;
    l->sealed = mask & (1u << G_SEALED) ? post.sealed : pre.sealed;
    l->last = mask & (1u << G_LAST) ? post.last : pre.last;
    l->pos = mask & (1u << G_POS) ? post.pos : pre.pos;
    l->room = mask & (1u << G_ROOM) ? post.room : pre.room;
    expect_writes(0, 128);
}

static void test_interrupt_grow(void)
{
    int64_t kept_in_order[G_N + 1] = {0};
    for (unsigned mask = 0; mask < (1u << G_N); mask++) {
        char done[160] = "";
        for (int b = 0; b < G_N; b++)
            if (mask & (1u << b))
                snprintf(done + strlen(done), sizeof done - strlen(done), " %s", g_name[b]);
        SETCTX("interrupted grow, done:%s", mask ? done : " nothing");
        build_b(mask, 0);
        verify(0);
        for (int b = 0; b <= G_N; b++)
            if (mask == (1u << b) - 1)
                kept_in_order[b] = S.f[0].lane[1].got;
        CHECK(S.f[0].lane[0].got == S.f[0].lane[0].mn && S.f[1].lane[0].got + S.f[1].lane[1].got == 5,
              "other lanes lost segments");
        end_store();
    }
    SETCTX("interrupted grow");
    CHECK(kept_in_order[0] == 128 && kept_in_order[G_N] == 128,
          "before / after the grow: %lld / %lld writes in the log", (long long)kept_in_order[0],
          (long long)kept_in_order[G_N]);
    /* In source order (fences keep it), every prefix of the stores loses nothing. */
    for (int b = 1; b < G_N; b++)
        CHECK(kept_in_order[b] == 128,
              "a log written once iol_dxt_grow has stored up to %s holds %lld of the 128 writes",
              g_name[b - 1], (long long)kept_in_order[b]);
    SETCTX("grow by the next add, then more writes");
    build_b(0, 1);
    verify(1);
    end_store();

    /* First grow of a lane (no chunk yet): any subset of first/last/pos/room. */
    for (unsigned mask = 0; mask < 16; mask++) {
        SETCTX("interrupted first grow, mask %u", mask);
        rng = 5;
        start_store(16);
        int fi = new_file();
        gen_add(fi, 0);
        iol_dxt_lane *l = &S.f[fi].fp->lane[1];
        iol_dxt_lane pre = *l;
        CHECK(iol_dxt_grow(S.x, l) == 1, "grow failed");
        allow_collect();
        iol_dxt_lane post = *l;
        l->first = mask & 1 ? post.first : pre.first;
        l->last = mask & 2 ? post.last : pre.last;
        l->pos = mask & 4 ? post.pos : pre.pos;
        l->room = mask & 8 ? post.room : pre.room;
        verify(1);
        end_store();
    }
}

static void test_excluded(void)
{
    SETCTX("excluded names");
    nnames = 0;
    excl_prefix = "/scratch/skip/";
    rng = 8;
    start_store(1024);
    int e = new_file(), b = new_file(), n = new_file(), e2 = new_file();
    names[nnames++] = (typeof(names[0])){S.f[e].id, "/scratch/skip/a.dat", 0};
    names[nnames++] = (typeof(names[0])){S.f[b].id, "/scratch/keep/b.dat", 0};
    names[nnames++] = (typeof(names[0])){S.f[e2].id, "/scratch/skip/c.dat", 0};
    excl_modid = -1;
    for (int k = 0; k < 50; k++) {
        gen_add(e, k & 1);
        gen_add(b, k % 3 == 0);
        gen_add(n, 0);
    }
    gen_add(e2, 1);
    CHECK(S.f[e].fp == NONE && S.f[e2].fp == NONE, "excluded files have state %p %p", (void *)S.f[e].fp,
          (void *)S.f[e2].fp);
    CHECK(names[0].calls == 1, "name of the excluded file looked up %d times", names[0].calls);
    CHECK(excl_modid == DXT_POSIX, "exclusion asked for module %d", excl_modid);
    verify(1);
    CHECK(partial_bits == 0, "partial bits %#" PRIx64 " for excluded files", partial_bits);
    end_store();

    /* 1 KiB: an excluded file costs nothing, the next one keeps (1024-104)/32. */
    SETCTX("excluded names, 1 KiB");
    start_store(1);
    e = new_file(), b = new_file();
    names[0].id = S.f[e].id;
    names[1].id = S.f[b].id;
    nnames = 2;
    for (int k = 0; k < 40; k++) {
        gen_add(e, 1);
        gen_add(b, 1);
    }
    CHECK(S.f[b].lane[1].mn == 28, "model keeps %lld", (long long)S.f[b].lane[1].mn);
    verify(1);
    check_partial();
    end_store();
    nnames = 0;
    excl_prefix = NULL;
}

static void test_reset_again(void)
{
    SETCTX("reset then activate");
    rng = 9;
    start_store(2);
    for (int i = 0; i < 5; i++)
        new_file();
    for (int k = 0; k < 200; k++)
        gen_add((int)rndn(5), (int)rndn(2));
    verify(1);
    CHECK(partial_bits != 0, "2 KiB not exceeded");
    iol_dxt_reset(DM());
    CHECK(nlive == 0, "%d mappings after reset", nlive);
    /* again, through attach (the core clears the module state after a fork) */
    DM()->state = 0;
    partial_bits = 0;
    iol_cfg.max_records[DXT_POSIX] = 2;
    iol_dxt *x = iol_dxt_attach(DXT_POSIX);
    CHECK(x != NULL && DM()->state == 1, "attach after reset: %p, state %d", (void *)x, DM()->state);
    void *pl = (void *)&pl;
    iol_dxt_finish(DM());
    size_t len = iol_dxt_output(DM(), &pl);
    CHECK(len == 0 && pl == NULL && DM()->count == 0, "fresh store after reset: %zu bytes, count %zu", len,
          DM()->count);
    iol_dxt_reset(DM());
    CHECK(nlive == 0, "%d mappings after reset", nlive);
    /* and traced again from scratch: the whole budget is there */
    start_store(2);
    int fi = new_file();
    for (int k = 0; k < 70; k++)
        gen_add(fi, 1);
    CHECK(S.f[fi].lane[1].mn == 60, "model keeps %lld of 70 in 2 KiB", (long long)S.f[fi].lane[1].mn);
    verify(1);
    check_partial();
    end_store();
}

/* The two stores are independent (budgets, partial bits, payloads). */
static void test_mpiio_store(void)
{
    SETCTX("DXT_MPIIO store");
    iol_module *mm = iol_mod(IOL_MOD_DXT_MPIIO);
    memset(mm, 0, sizeof *mm);
    mm->d = &iol_dxt_mpiio_module;
    iol_cfg.max_records[IOL_MOD_DXT_MPIIO] = 1;
    rng = 10;
    start_store(64);
    iol_dxt *xm = iol_dxt_attach(IOL_MOD_DXT_MPIIO);
    CHECK(xm && xm != S.x && mm->state == 1, "MPI-IO store %p (POSIX %p)", (void *)xm, (void *)S.x);
    if (!xm) {
        end_store();
        return;
    }
    iol_dxt_file *mf = NULL;
    for (int k = 0; k < 40; k++)
        iol_dxt_add(xm, &mf, 0xabcdef, 1, -1, 100 + k, k, k + 5);
    int fi = new_file();
    for (int k = 0; k < 100; k++)
        gen_add(fi, k & 1);
    CHECK(partial_bits == 1ull << IOL_MOD_DXT_MPIIO, "partial bits %#" PRIx64, partial_bits);
    verify(1);
    void *pl = NULL;
    iol_dxt_finish(mm);
    size_t len = iol_dxt_output(mm, &pl);
    CHECK(len == 104 + 28 * 32 && mm->count == 1, "MPI-IO payload %zu bytes, count %zu", len, mm->count);
    if (len == 104 + 28 * 32) {
        const uint8_t *p = pl;
        uint64_t id;
        int64_t nw, nr;
        memcpy(&id, p, 8);
        memcpy(&nw, p + 88, 8);
        memcpy(&nr, p + 96, 8);
        CHECK(id == 0xabcdef && nw == 28 && nr == 0, "MPI-IO record %" PRIx64 " %lld %lld", id,
              (long long)nw, (long long)nr);
        for (int k = 0; k < 28; k++) {
            iol_dxt_seg g;
            memcpy(&g, p + 104 + 32 * k, 32);
            double s = (double)k * 1e-9, e = (double)(k + 5) * 1e-9;
            CHECK(g.offset == -1 && g.length == 100 + k && g.start == s && g.end == e,
                  "MPI-IO segment %d: %lld %lld %g %g", k, (long long)g.offset, (long long)g.length,
                  g.start, g.end);
        }
    }
    iol_dxt_reset(mm);
    mm->state = 0;
    S.dropped = 0;
    end_store();
    memset(mm, 0, sizeof *mm);
    iol_cfg.max_records[IOL_MOD_DXT_MPIIO] = 0;
}

int main(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (uname(&uts) == 0)
        memcpy(host64, uts.nodename, strnlen(uts.nodename, sizeof host64));
    iol_cfg.dxt_small_trigger = iol_cfg.dxt_unaligned_trigger = -1;
    test_descriptors();
    test_ns();
    test_attach();
    test_roundtrip();
    test_budget();
    test_triggers();
    test_interrupt_add();
    test_interrupt_grow();
    test_excluded();
    test_reset_again();
    test_mpiio_store();
    SETCTX("end");
    CHECK(nlive == 0, "%d mapping(s) left", nlive);
    for (int i = 0; i < S.nf; i++)
        for (int d = 0; d < 2; d++)
            free(S.f[i].lane[d].v);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (failures) {
        fprintf(stderr, "test_dxt_engine: %d check(s) failed (%.2f s)\n", failures, secs);
        return 1;
    }
    printf("test_dxt_engine: all checks passed (%.2f s%s)\n", secs,
#ifdef TEST_ASAN
           ", store poisoned outside the written bytes during output"
#else
           ""
#endif
    );
    return 0;
}
