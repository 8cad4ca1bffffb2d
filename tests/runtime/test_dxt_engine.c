/* Unit test of the DXT tracing engine (src/runtime/modules/dxt.c, dxt.h; runtime
 * spec section 5, docs/dxt.md) through its descriptor-less API: iol_dxt_attach
 * (which activates the store through the core's iol_mod_activate), iol_dxt_add,
 * iol_dxt_grow, iol_dxt_finish, iol_dxt_output and iol_dxt_reset, and of the
 * store decoder of the format library (src/format/dxt_store.c,
 * include/iolens/dxt_store.h: iolens_dxt_store_bound, iolens_dxt_store_region),
 * which the engine's output and `iolens recover` share.
 *
 *  - round trip: random segments with extreme offsets, lengths and times decode
 *    to the same values, times bit-identical to (double)ns * 1e-9, writes then
 *    reads, records in first-access order, and the store's bytes are the
 *    documented 4 zigzag-delta LEB128 varints at the chunk's data (right after
 *    the iolens_dxt_chunk header).  Times go in as nanoseconds, as POSIX passes
 *    them (any int64), or as MPI-IO does, iol_dxt_ns of the time in seconds
 *    (|ns| <= 1e15, which iol_dxt_ns must recover exactly);
 *  - the store header after activation (magic, modid, rank, len, used, budget,
 *    host) and the sidecar the safety copy may provide;
 *  - memory budget: after every operation the store header's `remaining`, `used`
 *    and `cut`, each lane's n / room and the partial bit follow an independent
 *    model of upstream's accounting (104 bytes per file; 64 segments, then
 *    doubling, capped to what is left; 32 bytes per segment);
 *  - triggers (small / unaligned share of the POSIX operations, both must pass);
 *  - states a signal handler (or `iolens recover`, after a kill) may see when it
 *    interrupts iol_dxt_add or iol_dxt_grow: the output never reads outside the
 *    bytes written (under ASan the rest of the store's mapping is poisoned while
 *    finish/output run) and yields only whole, correct leading segments; in
 *    source order, every prefix of the grow's stores loses nothing.  And, on
 *    x86-64 Linux, the stores the compiled code really makes, in its order:
 *    iol_dxt_add is single-stepped over every write to the store (file_new,
 *    first grows, grows that seal a chunk, 40-byte segments, the end of the
 *    budget) and each state must decode to everything before the operation and
 *    at most what is there after it;
 *  - excluded names, attach failures, the DXT_MPIIO store, reset + activate;
 *  - every store image the engine leaves, copied into a buffer of exactly
 *    h->used bytes, decodes to the engine's own payload (the recover path);
 *  - the decoder on hostile images (malloc'd to their exact size, so that ASan
 *    sees any read outside; output followed by a poisoned canary): bad magic,
 *    short buffers, offsets out of range / misaligned / into the header page,
 *    cycles, huge and negative counts, chunk ends beyond the buffer, truncated
 *    and overlong varints, thousands of random corruptions, an image cut at
 *    every 64-byte boundary (a prefix-consistent subset of the full output,
 *    growing with the cut) and every small output capacity.
 *
 * dxt.c (and the descriptors dxt_posix.c, dxt_mpiio.c) are compiled in with a
 * stand-in for the core symbols they use, defined below; dxt_store.c comes from
 * iolens-log. */
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
#include "iolens/dxt_region.h"
#include "safety.h"
#include "iolens/dxt_store.h"

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

/* Real interruption points (test_interrupt_real): on x86-64 Linux, iol_dxt_add is
 * run with the store read-only; each write to it faults, is let through with the
 * trap flag set, and the store is decoded after that one instruction. */
#if defined(__x86_64__) && defined(__linux__)
#define TEST_STEP 1
#include <signal.h>
#include <ucontext.h>
#endif

/* Under the sanitizers: a UBSan report fails the test; our SIGSEGV handler (the
 * stepping above) is allowed. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allow_user_segv_handler=1"; }

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
/* The REGION module's side (region.c): the region the next op runs in. */
int iol_region_used;
static int region_slot = -1;
static uint64_t region_id;
int iol_region_slot_now(void)
{
    return region_slot;
}
uint64_t iol_region_slot_id(int slot)
{
    (void)slot;
    return region_id;
}

void iol_lock_slow(iol_lock_t *l, uintptr_t me)
{
    uintptr_t expect = 0;
    while (!__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        expect = 0;
}

/* (the module lock is never busy here) */
void iol_exit_hold_if_dying(void) {}   /* never dying here */
int iol_lock_slow_nested(iol_lock_t *l, uintptr_t me)
{
    iol_lock_slow(l, me);
    return 1;
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

/* The safety copy's sidecar: NULL (no copy: anonymous memory) unless a test asks
 * for one, then a tracked mapping (reset must release it as any other). */
static int sidecar_calls, sidecar_give;
static char sidecar_suffix[32];
static size_t sidecar_len;
static void *sidecar_made;
void *iol_safety_sidecar(const char *suffix, size_t len)
{
    sidecar_calls++;
    snprintf(sidecar_suffix, sizeof sidecar_suffix, "%s", suffix ? suffix : "(null)");
    sidecar_len = len;
    sidecar_made = sidecar_give ? iol_map(len) : NULL;
    return sidecar_made;
}

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

/* The store (include/iolens/dxt_store.h): links are byte offsets from the base. */
#define CHDR ((uint64_t)sizeof(iolens_dxt_chunk))
static uint8_t *arena;                /* the current store's base */
static size_t arena_len;
static iolens_dxt_store_hdr *HDR(void) { return (iolens_dxt_store_hdr *)(void *)arena; }
static iolens_dxt_chunk *CK(uint64_t off) { return (iolens_dxt_chunk *)(void *)(arena + off); }
static uint64_t DATA(uint64_t chunk) { return chunk + CHDR; }

/* A segment of the log region (32 bytes, as darshan's dxt_segment_info). */
typedef struct seg32 {
    int64_t offset, length;
    double start, end;
} seg32;

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
    int64_t budget, remaining;       /* model: budget left (the store header's remaining) */
    uint64_t used;                   /* model: store bytes allocated (the header's used) */
    int dropped;                     /* model: something was dropped -> cut, partial bit */
    int nf, norder;
    int order[MAXF];
    tfile f[MAXF];
} S;
static struct utsname uts;
static char host64[64];

static int nallow;                   /* ASan guard list (below) */
static iol_module *DM(void) { return iol_mod(DXT_POSIX); }

static uint64_t file_id(int i) { return 0x5a5a000000000001ULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL; }

/* Store objects take whole cache lines (dxt.c, take). */
static uint64_t round_line(uint64_t n) { return (n + 63) & ~(uint64_t)63; }

/* A store as activation leaves it: header at 0, nothing allocated, the budget. */
static void check_fresh_store(const iol_dxt *x, int modid, int64_t budget)
{
    const iolens_dxt_store_hdr *h = (const iolens_dxt_store_hdr *)(const void *)x->base;
    CHECK(x->modid == modid && x->len == IOLENS_DXT_STORE_HDR + 2 * (size_t)budget + 64,
          "store of module %d: modid %d, %zu bytes for a budget of %lld", modid, x->modid, x->len,
          (long long)budget);
    CHECK(x->out == NULL && x->out_len == 0, "fresh store has a payload");
    CHECK(memcmp(h->magic, IOLENS_DXT_STORE_MAGIC, 8) == 0, "magic \"%.8s\"", h->magic);
    CHECK(h->modid == (uint32_t)modid && h->cut == 0 && h->rank == iol_rank && h->len == x->len,
          "header: modid %u cut %u rank %lld len %llu", h->modid, h->cut, (long long)h->rank,
          (unsigned long long)h->len);
    CHECK(h->used == IOLENS_DXT_STORE_HDR && h->remaining == budget && h->first == 0 && h->last == 0,
          "header: used %llu remaining %lld first %llu last %llu", (unsigned long long)h->used,
          (long long)h->remaining, (unsigned long long)h->first, (unsigned long long)h->last);
    CHECK(memcmp(h->host, host64, 64) == 0, "header host \"%.64s\", expected \"%s\"", h->host,
          uts.nodename);
    CHECK(sidecar_calls > 0 && sidecar_len == x->len &&
              strcmp(sidecar_suffix, modid == IOL_MOD_DXT_MPIIO ? "dxt-mpiio" : "dxt-posix") == 0,
          "sidecar asked for \"%s\", %zu bytes", sidecar_suffix, sidecar_len);
}

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
    S.used = IOLENS_DXT_STORE_HDR;
    memset(DM(), 0, sizeof *DM());
    DM()->d = &iol_dxt_posix_module;
    partial_bits = 0;
    nallow = 0;
    int calls = activate_calls, live = nlive, sc = sidecar_calls;
    last_map = NULL;
    S.x = iol_dxt_attach(DXT_POSIX);
    CHECK(S.x != NULL, "attach returned NULL (budget %lld KiB)", (long long)kib);
    if (!S.x)
        abort();                     /* nothing below can run */
    CHECK(activate_calls == calls + 1 && DM()->state == 1, "activation: %d calls, state %d",
          activate_calls - calls, DM()->state);
    CHECK(nlive == live + 1 && sidecar_calls == sc + 1, "activation made %d mappings, %d sidecar calls",
          nlive - live, sidecar_calls - sc);
    CHECK(S.x->base == last_map && last_map_len == S.x->len, "store %p (%zu bytes), mapping %p (%zu)",
          (void *)S.x->base, S.x->len, last_map, last_map_len);
    arena = S.x->base;
    arena_len = S.x->len;
    check_fresh_store(S.x, DXT_POSIX, S.budget);
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

#ifdef TEST_STEP
#define MAXSTATES 256
#define STATE_BYTES 16384
static uint8_t st_out[MAXSTATES][STATE_BYTES];
static size_t st_len[MAXSTATES];
static uint64_t st_addr[MAXSTATES];  /* the store offset each state's instruction wrote */
static int nstates, st_overflow, step_add;
static volatile sig_atomic_t stepping;
static uint64_t st_fault;

static void step_segv(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    uint8_t *a = si->si_addr;
    if (!stepping || a < arena || a >= arena + arena_len) {
        signal(sig, SIG_DFL);        /* a real fault: the instruction faults again, and dies */
        return;
    }
    st_fault = (uint64_t)(a - arena);
    mprotect(arena, arena_len, PROT_READ | PROT_WRITE);
    uc->uc_mcontext.gregs[REG_EFL] |= 0x100;   /* trap once the store is done */
}
static void step_trap(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
    if (!stepping)
        return;
    if (nstates < MAXSTATES) {
        size_t b = iolens_dxt_store_bound(arena, arena_len);
        if (b > STATE_BYTES)
            st_overflow++;
        st_len[nstates] = iolens_dxt_store_region(arena, arena_len, -1, st_out[nstates],
                                                  b < STATE_BYTES ? b : STATE_BYTES);
        st_addr[nstates] = st_fault;
        nstates++;
    } else {
        st_overflow++;
    }
    mprotect(arena, arena_len, PROT_READ);
}
#endif

/* One operation: the model decides, the engine records, and the two are compared
 * (fp, n, room, the bytes appended, and the store header's remaining, used and cut
 * with the partial bit). */
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
            S.used += round_line(sizeof(iolens_dxt_file));
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
            if (want > 0)
                S.used += round_line(CHDR + (uint64_t)want * IOLENS_DXT_MAX_ENC);
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
    /* POSIX passes nanoseconds (iol_span_ns_hot), MPI-IO iol_dxt_ns of its times in seconds
     * ((double)ns * 1e-9): odd files take the second way when |ns| <= 1e15. */
    int64_t a1 = s_ns, a2 = e_ns;
    if ((fi & 1) && s_ns >= -NS_MAX && s_ns <= NS_MAX && e_ns >= -NS_MAX && e_ns <= NS_MAX) {
        a1 = iol_dxt_ns((double)s_ns * 1e-9);
        a2 = iol_dxt_ns((double)e_ns * 1e-9);
    }
    uint64_t prev_last = HDR()->last;
#ifdef TEST_STEP
    if (step_add) {
        nstates = 0;
        stepping = 1;
        mprotect(arena, arena_len, PROT_READ);
    }
#endif
    iol_dxt_add(S.x, IOL_DXT_SLOT_POSIX, &f->fp, f->id, wr, off, len, a1, a2);
#ifdef TEST_STEP
    if (step_add) {
        stepping = 0;
        mprotect(arena, arena_len, PROT_READ | PROT_WRITE);
    }
#endif
    const iolens_dxt_store_hdr *h = HDR();
    CHECK(h->remaining == S.remaining && h->used == S.used && h->used <= arena_len,
          "file %d dir %d op %zu: store remaining %lld used %llu, model %lld %llu (store %zu bytes)", fi,
          wr, tl->n - 1, (long long)h->remaining, (unsigned long long)h->used, (long long)S.remaining,
          (unsigned long long)S.used, arena_len);
    CHECK(h->cut == (uint32_t)S.dropped && ((partial_bits >> S.modid) & 1) == (uint64_t)S.dropped,
          "file %d dir %d op %zu: store cut %u, partial bits %#" PRIx64 ", model dropped %d", fi, wr,
          tl->n - 1, h->cut, partial_bits, S.dropped);
    if (f->none) {
        CHECK(f->fp == NONE, "file %d: per-file pointer %p, expected IOL_DXT_NONE", fi, (void *)f->fp);
        return;
    }
    CHECK(f->fp && f->fp != NONE, "file %d: no file state (%p) though the budget allowed it", fi,
          (void *)f->fp);
    if (!f->fp || f->fp == NONE)
        return;
    uint64_t foff = (uint64_t)((uint8_t *)f->fp - arena);
    if (!had)
        CHECK(foff >= IOLENS_DXT_STORE_HDR && foff % 64 == 0 && foff + sizeof(iolens_dxt_file) <= h->used &&
                  f->fp->id == f->id && f->fp->next == 0 && h->last == foff &&
                  (prev_last ? ((iol_dxt_file *)(void *)(arena + prev_last))->next == foff
                             : h->first == foff),
              "file %d: state at offset %llu not linked last (first %llu last %llu)", fi,
              (unsigned long long)foff, (unsigned long long)h->first, (unsigned long long)h->last);
    const iol_dxt_lane *l = &f->fp->lane[wr];
    CHECK(l->n == tl->mn && l->room == tl->mroom,
          "file %d dir %d op %zu: lane n %lld room %lld, model n %lld room %lld", fi, wr, tl->n - 1,
          (long long)l->n, (long long)l->room, (long long)tl->mn, (long long)tl->mroom);
    if (kept) {
        uint8_t exp[IOLENS_DXT_MAX_ENC + 8];
        size_t k = encode(tl, s, exp);
        CHECK(k <= IOLENS_DXT_MAX_ENC, "encoding of %zu bytes", k);
        uint64_t from = (had && before.last && before.last == l->last) ? before.pos
                        : l->last ? DATA(l->last) : 0;
        CHECK(from && l->pos - from == k && memcmp(arena + from, exp, k) == 0,
              "file %d dir %d op %zu: %lld bytes appended, expected %zu (zigzag LEB128 of "
              "off %lld len %lld ns %lld..%lld)",
              fi, wr, tl->n - 1, from ? (long long)(l->pos - from) : -1LL, k, (long long)off,
              (long long)len, (long long)s_ns, (long long)e_ns);
        /* The last chunk holds its grant: room - sealed segments of at most MAX_ENC bytes. */
        CHECK(l->last && l->pos <= DATA(l->last) + (uint64_t)(l->room - l->sealed) * IOLENS_DXT_MAX_ENC &&
                  l->sealed <= l->n && l->n <= l->room,
              "file %d dir %d: pos %llu beyond the grant of chunk %llu (room %lld sealed %lld)", fi, wr,
              (unsigned long long)l->pos, (unsigned long long)l->last, (long long)l->room,
              (long long)l->sealed);
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
    allow_add(arena, sizeof(iolens_dxt_store_hdr));
    for (int i = 0; i < S.nf; i++) {
        iol_dxt_file *f = S.f[i].fp;
        if (!f || f == NONE)
            continue;
        allow_add(f, sizeof *f);
        for (int d = 0; d < 2; d++) {
            const iol_dxt_lane *l = &f->lane[d];
            for (uint64_t c = l->first; c; c = CK(c)->next) {
                allow_add(CK(c), CHDR);
                uint64_t e = c == l->last ? l->pos : CK(c)->end;
                allow_add(arena + DATA(c), (ptrdiff_t)(e - DATA(c)));
            }
        }
    }
}
/* Make the bytes allowed for chunk data `data` end at `end`. */
static void allow_cut(uint64_t data, uint64_t end)
{
    for (int i = 0; i < nallow; i++)
        if (allow[i].p == arena + data)
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
    seg32 g;
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

/* ---- decoding a store image as `iolens recover` does.  The image is copied into
 * a buffer malloc'd to exactly `len` bytes (ASan reports any read outside), the
 * output of `cap` bytes (SIZE_MAX: the bound, at most OUT_MAX) is followed by a
 * canary (poisoned under ASan, and compared after).  The output is checked to be
 * well formed: records of 104 + 32 (nw + nr) bytes, nw, nr >= 0, nw + nr > 0, the
 * rank asked (< 0: the image's), shared 0, the image's host.  Returns the output
 * (malloc'd) and its length in *n, the bound in *bound. */
#define OUT_MAX ((size_t)1 << 20)
#define CANARY 64
static int decode_bad;               /* checks failed in decode_image (for loops) */
static uint8_t *decode_image(const uint8_t *src, size_t len, int64_t rank, size_t cap, size_t *n,
                             size_t *bound)
{
    uint8_t *img = malloc(len ? len : 1);
    if (!img)
        abort();
    if (len)
        memcpy(img, src, len);
    size_t b = iolens_dxt_store_bound(img, len);
    if (bound)
        *bound = b;
    if (cap == SIZE_MAX)
        cap = b < OUT_MAX ? b : OUT_MAX;
    uint8_t *out = malloc(cap + CANARY);
    if (!out)
        abort();
    memset(out, 0xee, cap);
    memset(out + cap, 0xa5, CANARY);
    POISON(out + cap, CANARY);
    size_t got = iolens_dxt_store_region(img, len, rank, out, cap);
    UNPOISON(out + cap, CANARY);
    int ok = got <= cap;
    for (int i = 0; i < CANARY; i++)
        ok &= out[cap + i] == 0xa5;
    CHECK(ok, "region of a %zu-byte image returned %zu for a capacity of %zu, or wrote past it", len,
          got, cap);
    int64_t want_rank = rank;
    char host[64] = {0};
    if (len >= sizeof(iolens_dxt_store_hdr)) {
        memcpy(host, ((const iolens_dxt_store_hdr *)(const void *)src)->host, 64);
        if (rank < 0)
            want_rank = ((const iolens_dxt_store_hdr *)(const void *)src)->rank;
    }
    size_t off = 0;
    while (ok && off < got) {
        int64_t r, sh, nw, nr;
        if (got - off < 104) {
            ok = 0;
            break;
        }
        memcpy(&r, out + off + 8, 8);
        memcpy(&sh, out + off + 16, 8);
        memcpy(&nw, out + off + 88, 8);
        memcpy(&nr, out + off + 96, 8);
        if (r != want_rank || sh != 0 || memcmp(out + off + 24, host, 64) != 0 || nw < 0 || nr < 0 ||
            nw + nr <= 0 || (uint64_t)(nw + nr) > (got - off - 104) / 32) {
            ok = 0;
            break;
        }
        off += 104 + (size_t)(nw + nr) * 32;
    }
    CHECK(ok && off == got, "region of a %zu-byte image (%zu bytes) is not well formed at %zu", len, got,
          off);
    if (!ok || off != got)
        decode_bad++;
    free(img);
    *n = got;
    return out;
}

/* finish + output under the guard, and the payload against the model.  With
 * `strict`, m->count must be the number of records.  The store image, cut at its
 * used bytes, must decode to the same payload (what `iolens recover` makes of
 * the file a killed process leaves). */
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
    CHECK(len == 0 || (S.x->out == pl && S.x->out_len >= len),
          "payload %p (%zu bytes), store's out %p (%zu)", pl, len, S.x->out, S.x->out_len);
    {
        size_t n, bound = iolens_dxt_store_bound(arena, HDR()->used);
        uint8_t *img = decode_image(arena, HDR()->used, -1, bound, &n, NULL);
        CHECK(n == len && (len == 0 || memcmp(img, pl, len) == 0) && bound >= len,
              "the store image (%llu bytes) decodes to %zu bytes (bound %zu), the output is %zu",
              (unsigned long long)HDR()->used, n, bound, len);
        free(img);
    }
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
    CHECK(l0->first == l0->last && l0->first >= IOLENS_DXT_STORE_HDR && l0->first % 8 == 0 &&
              l0->pos == DATA(l0->first) + 4 && l0->sealed == 0 && CK(l0->first)->next == 0,
          "first segment of a lane is not at its chunk's data (first %llu last %llu pos %llu)",
          (unsigned long long)l0->first, (unsigned long long)l0->last, (unsigned long long)l0->pos);
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
    for (uint64_t c = l->first; c; c = CK(c)->next)
        bytes += (size_t)((c == l->last ? l->pos : CK(c)->end) - DATA(c));
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
static uint64_t a_bound[160];         /* write lane's pos after each write (offset) */
static uint64_t a_chunk[160];         /* and its last chunk then */
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
        uint64_t data = DATA(S.f[0].fp->lane[1].last), real = S.f[0].fp->lane[1].pos;
        uint64_t nbytes = real - data;
        end_store();
        for (uint64_t cut = 0; cut <= nbytes; cut++) {
            SETCTX("interrupted add: pos at byte %llu of %llu of the last chunk, n + %d",
                   (unsigned long long)cut, (unsigned long long)nbytes, extra);
            build_a();
            l = &S.f[0].fp->lane[1];
            data = DATA(l->last);
            int64_t whole = 0;
            for (int k = 1; k <= 150; k++)
                if (a_chunk[k] == l->last && a_bound[k] <= data + cut)
                    whole++;
            l->pos = data + cut;
            l->n += extra;
            allow_cut(data, data + cut);
            expect_writes(128 + whole, 128 + whole);
            verify(0);
            end_store();
        }
    }

    /* A sealed chunk whose bytes end early, or whose end is the one its grow set
     * (its data) or not stored at all (0): the output stops there and does not go
     * on with the next chunks.  Or whose end is beyond the bytes written, even the
     * store: its nseg still bounds what is read. */
    for (int c = 0; c < 7; c++) {
        SETCTX("sealed first chunk's end, case %d", c);
        build_a();
        l = &S.f[0].fp->lane[1];
        iolens_dxt_chunk *first = CK(l->first);
        uint64_t data = DATA(l->first);
        uint64_t cut = c == 0 ? first->end - 1 : c == 1 ? a_bound[40] + 2 : c == 2 ? a_bound[40]
                     : c == 3 ? data : c == 4 ? 0 : c == 5 ? arena_len + 4096 : UINT64_MAX;
        int64_t whole = 0;
        for (int k = 1; k <= 64; k++)
            if (c <= 3 && a_bound[k] <= cut)
                whole++;
        if (c >= 5)
            whole = 150;
        first->end = cut;
        if (c <= 4)
            allow_cut(data, c == 4 ? data : cut);
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
    uint64_t data = DATA(l->first);
    l->pos = data + 1;
    allow_cut(data, data + 1);
    S.f[fi].lane[0].lo = S.f[fi].lane[0].hi = 0;
    verify(0);
    end_store();
}

/* Scenario B: the write lane of file 0 is full (128 of 128, in two chunks) and
 * grows; the output is taken with any subset of the grow's stores done (the
 * compiler may order them freely where there is no fence), which must decode to
 * a correct prefix; in source order (iol_dxt_grow: the new chunk's end, the old
 * chunk's nseg and end, its next, then lane last, pos, sealed, room), which the
 * fences keep for a signal handler, every prefix must lose nothing. */
enum { G_CEND, G_NSEG, G_END, G_NEXT, G_LAST, G_POS, G_SEALED, G_ROOM, G_N };   /* source order */
static const char *const g_name[] = {"new->end", "old->nseg", "old->end", "old->next",
                                     "l->last",  "l->pos",    "l->sealed", "l->room"};
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
    iolens_dxt_chunk *old = CK(l->last);
    CHECK(l->n == 128 && l->room == 128 && l->sealed == 64 && l->last != l->first,
          "scenario B: n %lld room %lld sealed %lld", (long long)l->n, (long long)l->room,
          (long long)l->sealed);
    if (more) {                      /* the grow done by the next add, and more adds */
        for (int k = 0; k < 40; k++)
            gen_add(f0, 1);
        return;
    }
    iol_dxt_lane pre = *l;
    iolens_dxt_chunk oldpre = *old;
    uint64_t fresh = HDR()->used;    /* where the new chunk goes: fresh (zero) memory */
    CHECK(CK(fresh)->next == 0 && CK(fresh)->nseg == 0 && CK(fresh)->end == 0, "memory not fresh");
    CHECK(iol_dxt_grow(S.x, l) == 1, "grow failed");
    allow_collect();                 /* the bytes written: the old chunk up to pre.pos */
    iol_dxt_lane post = *l;
    iolens_dxt_chunk *nc = CK(post.last);
    CHECK(post.last == fresh && post.first == pre.first && post.pos == DATA(post.last) &&
              post.sealed == 128 && post.room == 256 && post.n == 128 && old->next == post.last &&
              old->nseg == 64 && old->end == pre.pos && nc->next == 0 && nc->end == DATA(post.last),
          "grow: last %llu (fresh %llu) pos %llu sealed %lld room %lld; old chunk nseg %lld end %llu "
          "next %llu",
          (unsigned long long)post.last, (unsigned long long)fresh, (unsigned long long)post.pos,
          (long long)post.sealed, (long long)post.room, (long long)old->nseg,
          (unsigned long long)old->end, (unsigned long long)old->next);
    if (!(mask & (1u << G_CEND)))
        nc->end = 0;
    if (!(mask & (1u << G_NSEG)))
        old->nseg = oldpre.nseg;
    if (!(mask & (1u << G_END)))
        old->end = oldpre.end;
    if (!(mask & (1u << G_NEXT)))
        old->next = oldpre.next;
    l->last = mask & (1u << G_LAST) ? post.last : pre.last;
    l->pos = mask & (1u << G_POS) ? post.pos : pre.pos;
    l->sealed = mask & (1u << G_SEALED) ? post.sealed : pre.sealed;
    l->room = mask & (1u << G_ROOM) ? post.room : pre.room;
    expect_writes(0, 128);
}

static void test_interrupt_grow(void)
{
    int64_t kept_in_order[G_N + 1];
    for (int b = 0; b <= G_N; b++)
        kept_in_order[b] = -1;
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

    /* First grow of a lane (no chunk yet): any subset of the new chunk's end and
     * the lane's first, last, pos, room (sealed stays 0). */
    for (unsigned mask = 0; mask < 32; mask++) {
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
        CHECK(post.first == post.last && post.first != 0 && post.pos == DATA(post.first) &&
                  post.room == 64 && post.sealed == 0 && CK(post.first)->end == post.pos,
              "first grow: first %llu last %llu pos %llu room %lld", (unsigned long long)post.first,
              (unsigned long long)post.last, (unsigned long long)post.pos, (long long)post.room);
        if (!(mask & 16))
            CK(post.first)->end = 0;
        l->first = mask & 1 ? post.first : pre.first;
        l->last = mask & 2 ? post.last : pre.last;
        l->pos = mask & 4 ? post.pos : pre.pos;
        l->room = mask & 8 ? post.room : pre.room;
        verify(1);
        end_store();
    }
}

/* Interrupted at every store the compiled code really makes (whatever order the
 * compiler chose): iol_dxt_add is single-stepped over its writes to the store,
 * and the store decoded after each.  Every such state must decode to everything
 * the store held before the operation and at most what it holds after, as whole,
 * correct leading segments of each lane ("nothing lost, nothing wrong").
 * x86-64 only (TEST_STEP: the trap flag); the helpers below serve only it. */
#ifdef TEST_STEP
typedef struct prec {
    uint64_t id;
    int64_t nw, nr;
    const uint8_t *p;
} prec;
static int parse_region(const uint8_t *r, size_t n, prec *v, int max)
{
    int k = 0;
    for (size_t off = 0; off < n; k++) {
        if (k == max || n - off < 104)
            return -1;
        prec *q = &v[k];
        memcpy(&q->id, r + off, 8);
        memcpy(&q->nw, r + off + 88, 8);
        memcpy(&q->nr, r + off + 96, 8);
        q->p = r + off;
        if (q->nw < 0 || q->nr < 0 || (uint64_t)(q->nw + q->nr) > (n - off - 104) / 32)
            return -1;
        off += 104 + (size_t)(q->nw + q->nr) * 32;
    }
    return k;
}
/* lo <= st <= hi, record by record and lane by lane (st's segments: hi's first ones). */
static int between(const uint8_t *st, size_t nst, const uint8_t *lo, size_t nlo, const uint8_t *hi, size_t nhi)
{
    prec H[32], L[32], T[32];
    int64_t got[32][2] = {{0}};
    int nh = parse_region(hi, nhi, H, 32), nl = parse_region(lo, nlo, L, 32), nt = parse_region(st, nst, T, 32);
    if (nh < 0 || nl < 0 || nt < 0)
        return 0;
    int j = 0;
    for (int k = 0; k < nt; k++, j++) {
        while (j < nh && H[j].id != T[k].id)
            j++;
        if (j == nh || T[k].nw > H[j].nw || T[k].nr > H[j].nr || T[k].nw + T[k].nr == 0 ||
            memcmp(T[k].p + 8, H[j].p + 8, 80) != 0 ||
            memcmp(T[k].p + 104, H[j].p + 104, (size_t)T[k].nw * 32) != 0 ||
            memcmp(T[k].p + 104 + T[k].nw * 32, H[j].p + 104 + H[j].nw * 32, (size_t)T[k].nr * 32) != 0)
            return 0;
        got[j][0] = T[k].nw;
        got[j][1] = T[k].nr;
    }
    for (int k = 0; k < nl; k++) {
        for (j = 0; j < nh && H[j].id != L[k].id; j++)
            ;
        if (j == nh || got[j][0] < L[k].nw || got[j][1] < L[k].nr)
            return 0;
    }
    return 1;
}

static uint8_t lo_buf[STATE_BYTES], hi_buf[STATE_BYTES];
static int stepped_adds, stepped_states;
static size_t decode_live(uint8_t *out)
{
    size_t b = iolens_dxt_store_bound(arena, arena_len);
    CHECK(b <= STATE_BYTES, "store region of %zu bytes: too large for the test", b);
    return iolens_dxt_store_region(arena, arena_len, -1, out, b < STATE_BYTES ? b : STATE_BYTES);
}
/* One operation, stepped; `what` for the messages. */
static void step_op(int fi, int wr, int extreme, const char *what)
{
    size_t nlo = decode_live(lo_buf);
    int64_t n0 = S.f[fi].lane[wr].mn;
    step_add = 1;
    if (extreme)
        add(fi, wr, INT64_MIN, INT64_MAX, INT64_MAX, INT64_MIN);     /* 40 bytes */
    else
        gen_add(fi, wr);
    step_add = 0;
    size_t nhi = decode_live(hi_buf);
    int kept = S.f[fi].lane[wr].mn > n0;
    stepped_adds++;
    stepped_states += nstates;
    CHECK(st_overflow == 0, "%s: %d states lost", what, st_overflow);
    CHECK(!kept || nstates >= 3, "%s: only %d writes to the store seen (stepping broken?)", what, nstates);
    CHECK(!kept || (nhi > nlo && between(lo_buf, nlo, lo_buf, nlo, hi_buf, nhi)),
          "%s: the store after the operation (%zu bytes) does not extend the one before (%zu)", what, nhi, nlo);
    for (int k = 0; k < nstates; k++) {
        int ok = between(st_out[k], st_len[k], lo_buf, nlo, hi_buf, nhi);
        CHECK(ok, "%s: interrupted after write %d of %d (store offset %llu): %zu bytes, not between the "
                  "%zu before and the %zu after", what, k + 1, nstates, (unsigned long long)st_addr[k],
              st_len[k], nlo, nhi);
        if (!ok)
            break;
    }
    if (nstates)
        CHECK(st_len[nstates - 1] == nhi && memcmp(st_out[nstates - 1], hi_buf, nhi) == 0,
              "%s: the last state is not the final one", what);
}
#endif

static void test_interrupt_real(void)
{
#ifdef TEST_STEP
    struct sigaction sa, old_segv, old_trap;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = step_segv;
    sigaction(SIGSEGV, &sa, &old_segv);
    sa.sa_sigaction = step_trap;
    sigaction(SIGTRAP, &sa, &old_trap);
    char what[120];

    SETCTX("interrupted at real stores");
    rng = 2468;
    start_store(16);
    int f0 = new_file(), f1 = new_file(), f2 = new_file();
    st_overflow = 0;
    step_op(f0, 1, 0, "first operation of the store (file_new, first grow)");
    for (int k = 0; k < 62; k++)
        gen_add(f0, 1);
    for (int k = 0; k < 4; k++) {    /* 64th .. 67th write: the grow at the 65th seals chunk 1 */
        snprintf(what, sizeof what, "write %lld of file 0", (long long)S.f[f0].lane[1].n + 1);
        step_op(f0, 1, 0, what);
    }
    step_op(f0, 0, 0, "first read of file 0 (first grow of a lane of a known file)");
    step_op(f1, 0, 0, "first operation of file 1 (linked after file 0)");
    step_op(f0, 1, 1, "extreme values (40-byte segment)");
    while (S.f[f0].lane[1].n < 128)
        gen_add(f0, 1);
    for (int k = 0; k < 2; k++) {    /* 129th: the grow seals chunk 2 */
        snprintf(what, sizeof what, "write %lld of file 0", (long long)S.f[f0].lane[1].n + 1);
        step_op(f0, 1, 0, what);
    }
    step_op(f2, 1, 0, "first operation of file 2");
    /* spend the budget: the operations that are cut (and the first that sets cut) */
    while (S.remaining >= 32 * 64)
        gen_add(f2, 1);
    for (int k = 0; k < 70 && !S.dropped; k++)
        step_op(f1, 1, 0, "writes of file 1 up to the end of the budget");
    CHECK(S.dropped, "budget not spent");
    step_op(f1, 1, 0, "a write after the budget");
    int f3 = new_file();
    step_op(f3, 0, 0, "a new file after the budget");
    verify(1);
    check_partial();
    end_store();
    CHECK(stepped_states > 10 * stepped_adds, "%d states in %d stepped operations", stepped_states, stepped_adds);
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGTRAP, &old_trap, NULL);
#endif
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

/* The two stores are independent (budgets, headers, partial bits, payloads). */
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
    check_fresh_store(xm, IOL_MOD_DXT_MPIIO, 1024);
    const iolens_dxt_store_hdr *hm = (const iolens_dxt_store_hdr *)(const void *)xm->base;
    iol_dxt_file *mf = NULL;
    for (int k = 0; k < 40; k++)
        iol_dxt_add(xm, IOL_DXT_SLOT_MPIIO, &mf, 0xabcdef, 1, -1, 100 + k, k, k + 5);
    CHECK(hm->cut == 1 && hm->remaining == 1024 - 104 - 28 * 32 && HDR()->cut == 0 &&
              HDR()->remaining == S.budget,
          "MPI-IO store cut %u remaining %lld; POSIX store cut %u remaining %lld", hm->cut,
          (long long)hm->remaining, HDR()->cut, (long long)HDR()->remaining);
    CHECK(mf && mf != NONE && mf->lane[1].n == 28 && mf->lane[1].room == 28 && mf->lane[0].n == 0,
          "MPI-IO lane n %lld room %lld", mf && mf != NONE ? (long long)mf->lane[1].n : -1LL,
          mf && mf != NONE ? (long long)mf->lane[1].room : -1LL);
    int fi = new_file();
    for (int k = 0; k < 100; k++)
        gen_add(fi, k & 1);
    CHECK(partial_bits == 1ull << IOL_MOD_DXT_MPIIO, "partial bits %#" PRIx64, partial_bits);
    partial_bits = 0;                /* the POSIX store's own bit: none */
    verify(1);
    check_partial();
    void *pl = NULL;
    iol_dxt_finish(mm);
    size_t len = iol_dxt_output(mm, &pl);
    CHECK(len == 104 + 28 * 32 && mm->count == 1, "MPI-IO payload %zu bytes, count %zu", len, mm->count);
    if (len == 104 + 28 * 32) {
        const uint8_t *p = pl;
        uint64_t id;
        int64_t nw, nr, rank;
        memcpy(&id, p, 8);
        memcpy(&rank, p + 8, 8);
        memcpy(&nw, p + 88, 8);
        memcpy(&nr, p + 96, 8);
        CHECK(id == 0xabcdef && rank == iol_rank && nw == 28 && nr == 0 &&
                  memcmp(p + 24, host64, 64) == 0,
              "MPI-IO record %" PRIx64 " rank %lld %lld %lld", id, (long long)rank, (long long)nw,
              (long long)nr);
        for (int k = 0; k < 28; k++) {
            seg32 g;
            memcpy(&g, p + 104 + 32 * k, 32);
            double s = (double)k * 1e-9, e = (double)(k + 5) * 1e-9;
            CHECK(g.offset == -1 && g.length == 100 + k && g.start == s && g.end == e,
                  "MPI-IO segment %d: %lld %lld %g %g", k, (long long)g.offset, (long long)g.length,
                  g.start, g.end);
        }
        size_t n;
        uint8_t *img = decode_image(xm->base, hm->used, -1, SIZE_MAX, &n, NULL);
        CHECK(n == len && memcmp(img, pl, len) == 0, "MPI-IO store image decodes to %zu bytes", n);
        free(img);
    }
    iol_dxt_reset(mm);
    mm->state = 0;
    end_store();
    memset(mm, 0, sizeof *mm);
    iol_cfg.max_records[IOL_MOD_DXT_MPIIO] = 0;
}

/* Appending within a lane's grant needs no store lock (another thread may hold
 * it); the out-of-line steps take it.  A thread that already holds it (a signal
 * handler re-entered an out-of-line step) drops an op that needs the store and
 * marks the trace partial, changing nothing else; the next op asks again. */
static void test_store_lock(void)
{
    SETCTX("store lock");
    start_store(64);
    iol_dxt *x = S.x;
    const iolens_dxt_store_hdr *h = (const iolens_dxt_store_hdr *)(const void *)x->base;
    iol_dxt_file *fp = NULL, *fp2 = NULL;
    uint64_t id = file_id(900), id2 = file_id(901);
    iol_dxt_add(x, 0, &fp, id, 1, 0, 1, 10, 20);
    CHECK(fp && fp != IOL_DXT_NONE && fp->lane[1].n == 1 && fp->lane[1].room == 64 && x->lock == 0,
          "first segment: file %p, lock %#lx", (void *)fp, (unsigned long)x->lock);
    if (!fp || fp == IOL_DXT_NONE) {
        end_store();
        return;
    }
    x->lock = (iol_lock_t)&fp;        /* held by another thread */
    for (int i = 1; i < 64; i++)
        iol_dxt_add(x, 0, &fp, id, 1, i, 1, 10 + 10 * i, 20 + 10 * i);
    CHECK(fp->lane[1].n == 64 && x->lock == (iol_lock_t)&fp,
          "appends within the grant while the store is locked: %lld kept",
          (long long)fp->lane[1].n);
    x->lock = iol_self();             /* held by this thread: re-entered */
    uint64_t used = h->used;
    int64_t remaining = h->remaining;
    iol_dxt_add(x, 0, &fp, id, 1, 64, 1, 700, 710);      /* needs a new chunk */
    iol_dxt_add(x, 0, &fp2, id2, 0, 0, 1, 700, 710);     /* needs a new file */
    CHECK(fp->lane[1].n == 64 && fp->lane[1].room == 64 && fp2 == NULL && h->used == used &&
              h->remaining == remaining && h->cut && (partial_bits >> DXT_POSIX & 1),
          "re-entered: n %lld, new file %p, used %llu (was %llu), cut %u", (long long)fp->lane[1].n,
          (void *)fp2, (unsigned long long)h->used, (unsigned long long)used, h->cut);
    x->lock = 0;
    iol_dxt_add(x, 0, &fp, id, 1, 64, 1, 700, 710);
    iol_dxt_add(x, 0, &fp2, id2, 0, 0, 1, 700, 710);
    CHECK(fp->lane[1].n == 65 && fp->lane[1].room == 128 && fp2 && fp2 != IOL_DXT_NONE &&
              fp2->lane[0].n == 1 && x->lock == 0,
          "after the lock is given back: n %lld, new file %p", (long long)fp->lane[1].n, (void *)fp2);
    CHECK(((uint8_t *)fp - x->base) % 64 == 0 && ((uint8_t *)fp2 - x->base) % 64 == 0 &&
              fp->lane[1].first % 64 == 0 && fp->lane[1].last % 64 == 0 && fp2->lane[0].first % 64 == 0,
          "files and chunks start on cache lines");
    end_store();
}

/* Whatever the budget and the mix of files and lanes, the store's objects (whole
 * cache lines) fit the mapping activation made: bump allocation never fails
 * before the budget does, and the budget is never overdrawn. */
static void test_store_bound(void)
{
    for (int64_t kib = 1; kib <= 24; kib++) {
        for (int pattern = 0; pattern < 3; pattern++) {
            SETCTX("store bound: %lld KiB, pattern %d", (long long)kib, pattern);
            start_store(kib);
            iol_dxt *x = S.x;
            const iolens_dxt_store_hdr *h = (const iolens_dxt_store_hdr *)(const void *)x->base;
            static iol_dxt_file *fps[4096];
            memset(fps, 0, sizeof fps);
            /* 0: many files, one segment a lane; 1: one file, both lanes long;
             * 2: files of 65 segments (a second chunk each) */
            int nfiles = pattern == 1 ? 1 : 4096, per = pattern == 0 ? 1 : pattern == 1 ? 1 << 16 : 65;
            for (int f = 0; f < nfiles && !h->cut; f++)
                for (int k = 0; k < per && !h->cut; k++)
                    for (int wr = 0; wr < 2; wr++)
                        iol_dxt_add(x, 0, &fps[f], file_id(1000 + f), wr, k, 1, k, k + 1);
            CHECK(h->cut && h->remaining >= 0 && h->remaining < (pattern == 0 ? 104 + 64 * 32 : 104) &&
                      h->used <= x->len,
                  "cut %u, remaining %lld, used %llu of %zu", h->cut, (long long)h->remaining,
                  (unsigned long long)h->used, x->len);
            end_store();
        }
    }
}

/* With the safety copy on, the store is the sidecar file's mapping (a tracked
 * mapping here): nothing else is mapped, and reset releases it. */
static void test_sidecar(void)
{
    SETCTX("sidecar");
    sidecar_give = 1;
    rng = 11;
    start_store(8);
    CHECK(sidecar_made != NULL && S.x->base == sidecar_made, "store %p, sidecar %p", (void *)S.x->base,
          sidecar_made);
    int fi = new_file();
    for (int k = 0; k < 300; k++)
        gen_add(fi, k % 3 == 0);
    verify(1);
    check_partial();
    end_store();
    sidecar_give = 0;
}

/* ------------------------------------------------------------ hostile images */
/* A valid image made by the engine (5 files, lanes of 1 to 3 chunks, files and
 * chunks interleaved in the block), cut at its used bytes, and its region. */
static uint8_t *ref_img, *ref_out;
static size_t ref_img_len, ref_out_len;
#define MAXOBJ 64
static uint64_t img_file[MAXOBJ], img_chunk[MAXOBJ];
static int img_nfile, img_nchunk;
typedef struct rrec {
    uint64_t id;
    int64_t nw, nr;
    size_t off;
} rrec;
static rrec refrec[MAXOBJ];
static int nrefrec;

static void build_ref_image(void)
{
    SETCTX("hostile: reference image");
    rng = 4321;
    start_store(32);
    for (int i = 0; i < 5; i++)
        new_file();
    /* file 0: 200 writes (chunks of 64, 64, 128), 80 reads; 1: 70 reads; 2: one
     * write; 3: 10 of each; 4: 3 writes; interleaved */
    int want[5][2] = {{80, 200}, {70, 0}, {0, 1}, {10, 10}, {0, 3}};
    for (int left = 1; left;) {
        left = 0;
        for (int i = 0; i < 5; i++)
            for (int d = 0; d < 2; d++)
                if ((int64_t)S.f[i].lane[d].n < want[i][d]) {
                    left = 1;
                    if (rndn(3) != 0)
                        gen_add(i, d);
                }
    }
    CHECK(!S.dropped, "reference image dropped segments");
    verify(1);                       /* the payload is the model's */
    iolens_dxt_store_hdr *h = HDR();
    ref_img_len = h->used;
    ref_img = malloc(ref_img_len);
    memcpy(ref_img, arena, ref_img_len);
    ref_out_len = S.x->out ? iolens_dxt_store_bound(ref_img, ref_img_len) : 0;
    ref_out = malloc(ref_out_len + 1);
    CHECK(iolens_dxt_store_region(ref_img, ref_img_len, -1, ref_out, ref_out_len) == ref_out_len &&
              memcmp(ref_out, S.x->out, ref_out_len) == 0,
          "reference region differs from the engine's payload");
    /* the objects, by walking the image */
    img_nfile = img_nchunk = 0;
    for (uint64_t f = h->first; f && img_nfile < MAXOBJ; f = ((iol_dxt_file *)(void *)(arena + f))->next) {
        img_file[img_nfile++] = f;
        for (int d = 0; d < 2; d++)
            for (uint64_t c = ((iol_dxt_file *)(void *)(arena + f))->lane[d].first; c && img_nchunk < MAXOBJ;
                 c = CK(c)->next)
                img_chunk[img_nchunk++] = c;
    }
    CHECK(img_nfile == 5 && img_nchunk == 11, "reference image: %d files, %d chunks", img_nfile,
          img_nchunk);
    nrefrec = 0;
    for (size_t off = 0; off < ref_out_len && nrefrec < MAXOBJ;) {
        rrec *r = &refrec[nrefrec++];
        memcpy(&r->id, ref_out + off, 8);
        memcpy(&r->nw, ref_out + off + 88, 8);
        memcpy(&r->nr, ref_out + off + 96, 8);
        r->off = off;
        off += 104 + (size_t)(r->nw + r->nr) * 32;
    }
    CHECK(nrefrec == 5 && ref_out_len == 5 * 104 + (200 + 80 + 70 + 1 + 20 + 3) * 32,
          "reference region: %d records, %zu bytes", nrefrec, ref_out_len);
    end_store();
}

/* out (n bytes) is a prefix-consistent subset of the reference region: reference
 * records in their order, each with the leading nw writes and nr reads of it
 * (header bytes equal).  cnt (if not NULL) gets the counts per reference record. */
static int is_subset(const uint8_t *out, size_t n, int64_t (*cnt)[2])
{
    if (cnt)
        memset(cnt, 0, sizeof(int64_t[2]) * MAXOBJ);
    size_t off = 0;
    int j = 0;
    while (off < n) {
        uint64_t id;
        int64_t nw, nr;
        if (n - off < 104)
            return 0;
        memcpy(&id, out + off, 8);
        memcpy(&nw, out + off + 88, 8);
        memcpy(&nr, out + off + 96, 8);
        while (j < nrefrec && refrec[j].id != id)
            j++;
        if (j == nrefrec)
            return 0;
        const rrec *r = &refrec[j];
        if (nw < 0 || nr < 0 || nw > r->nw || nr > r->nr || nw + nr == 0 ||
            (uint64_t)(nw + nr) > (n - off - 104) / 32)
            return 0;
        const uint8_t *o = out + off, *q = ref_out + r->off;
        if (memcmp(o + 8, q + 8, 80) != 0 || memcmp(o + 104, q + 104, (size_t)nw * 32) != 0 ||
            memcmp(o + 104 + nw * 32, q + 104 + r->nw * 32, (size_t)nr * 32) != 0)
            return 0;
        if (cnt) {
            cnt[j][0] = nw;
            cnt[j][1] = nr;
        }
        off += 104 + (size_t)(nw + nr) * 32;
        j++;
    }
    return 1;
}

enum { X_EQ, X_SUB, X_NONE, X_ANY };
static const char *const x_name[] = {"the reference", "a subset of it", "nothing", "anything well formed"};
static uint8_t work[1 << 17];         /* the image being damaged */

/* Decode work[0..len) and check it against the expectation. */
static size_t expect_decode(size_t len, int x, const char *what)
{
    size_t n, bound;
    uint8_t *out = decode_image(work, len, -1, SIZE_MAX, &n, &bound);
    int ok = x == X_EQ     ? n == ref_out_len && memcmp(out, ref_out, n) == 0
             : x == X_SUB  ? is_subset(out, n, NULL)
             : x == X_NONE ? n == 0
                           : 1;
    CHECK(ok, "%s: %zu bytes (bound %zu), expected %s", what, n, bound, x_name[x]);
    if (!ok && getenv("DXT_TEST_DEBUG")) {
        int64_t cnt[MAXOBJ][2];
        fprintf(stderr, "  subset %d:", is_subset(out, n, cnt));
        for (int j = 0; j < nrefrec; j++)
            fprintf(stderr, " [%lld/%lld w, %lld/%lld r]", (long long)cnt[j][0], (long long)refrec[j].nw,
                    (long long)cnt[j][1], (long long)refrec[j].nr);
        fputc('\n', stderr);
    }
    free(out);
    return n;
}
static void reset_work(void) { memcpy(work, ref_img, ref_img_len); }
static iolens_dxt_store_hdr *WH(void) { return (iolens_dxt_store_hdr *)(void *)work; }
static iol_dxt_file *WF(int i) { return (iol_dxt_file *)(void *)(work + img_file[i]); }
static iolens_dxt_chunk *WC(uint64_t off) { return (iolens_dxt_chunk *)(void *)(work + off); }
static void put64(size_t at, uint64_t v) { memcpy(work + at, &v, 8); }

/* Offsets that point nowhere valid for an object of the image. */
static uint64_t bad_off(int k, size_t len, uint64_t valid)
{
    static const int nbad = 11;
    switch (k % nbad) {
    case 0: return len;
    case 1: return len - 8;                      /* no room for a whole object */
    case 2: return UINT64_MAX;
    case 3: return UINT64_MAX - 7;               /* aligned, off + size wraps */
    case 4: return valid + 4;                    /* misaligned */
    case 5: return valid + 1;
    case 6: return 8;                            /* the header page */
    case 7: return IOLENS_DXT_STORE_HDR - 8;
    case 8: return IOLENS_DXT_STORE_HDR - 1;
    case 9: return (uint64_t)1 << 63;
    default: return len + 8;
    }
}
#define NBAD 11

static void test_hostile_cases(void)
{
    size_t L = ref_img_len;
    char what[160];
    SETCTX("hostile: fixed cases");
    reset_work();
    CHECK(iolens_dxt_store_bound(work, L) == ref_out_len, "bound of the valid image %zu, region %zu",
          iolens_dxt_store_bound(work, L), ref_out_len);
    expect_decode(L, X_EQ, "valid image");
    /* rank given */
    {
        size_t n;
        uint8_t *out = decode_image(work, L, 5, ref_out_len, &n, NULL);
        int ok = n == ref_out_len;
        for (int j = 0; ok && j < nrefrec; j++) {
            int64_t r;
            memcpy(&r, out + refrec[j].off + 8, 8);
            ok = r == 5 && memcmp(out + refrec[j].off + 16, ref_out + refrec[j].off + 16,
                                  104 - 16 + (size_t)(refrec[j].nw + refrec[j].nr) * 32) == 0;
        }
        CHECK(ok, "rank 5 asked: %zu bytes, records differ", n);
        free(out);
    }
    /* too short, no magic, no buffers */
    static const size_t shorts[] = {0, 1, 8, 64, sizeof(iolens_dxt_store_hdr), IOLENS_DXT_STORE_HDR - 1};
    for (size_t i = 0; i < NEL(shorts); i++) {
        snprintf(what, sizeof what, "image of %zu bytes", shorts[i]);
        expect_decode(shorts[i], X_NONE, what);
    }
    expect_decode(IOLENS_DXT_STORE_HDR, X_NONE, "header page only");
    for (int i = 0; i < 9; i++) {
        reset_work();
        if (i < 8)
            work[i] ^= 0x20;
        else
            memset(work, 0, 8);
        snprintf(what, sizeof what, "magic byte %d changed", i);
        expect_decode(L, X_NONE, what);
    }
    reset_work();
    {
        uint8_t o[256];
        CHECK(iolens_dxt_store_bound(NULL, L) == 0 && iolens_dxt_store_region(NULL, L, -1, o, sizeof o) == 0 &&
                  iolens_dxt_store_region(work, L, -1, NULL, 1 << 20) == 0,
              "NULL image or output gave bytes");
    }
    /* the file list */
    for (int k = 0; k < NBAD + 2; k++) {
        reset_work();
        WH()->first = k < NBAD ? bad_off(k, L, img_file[0]) : k == NBAD ? 0 : img_chunk[0] + CHDR;
        snprintf(what, sizeof what, "header's first = %llu", (unsigned long long)WH()->first);
        expect_decode(L, k <= NBAD ? X_NONE : X_ANY, what);
        for (int i = 0; i < img_nfile; i++) {
            reset_work();
            WF(i)->next = k < NBAD ? bad_off(k, L, img_file[i]) : k == NBAD ? 0 : img_chunk[i];
            snprintf(what, sizeof what, "file %d's next = %llu", i, (unsigned long long)WF(i)->next);
            size_t n = expect_decode(L, k <= NBAD ? X_SUB : X_ANY, what);
            if (k <= NBAD)
                CHECK(n == (i + 1 < nrefrec ? refrec[i + 1].off : ref_out_len),
                      "%s: %zu bytes, expected the first %d records", what, n, i + 1);
        }
    }
    reset_work();
    WH()->last = UINT64_MAX;
    expect_decode(L, X_EQ, "header's last out of range");
    /* a dropped file: the others only */
    for (int i = 0; i < img_nfile; i++) {
        reset_work();
        WF(i)->dropped = i & 1 ? -1 : 1;
        snprintf(what, sizeof what, "file %d dropped", i);
        size_t n;
        uint8_t *out = decode_image(work, L, -1, SIZE_MAX, &n, NULL);
        int64_t cnt[MAXOBJ][2];
        size_t rl = 104 + (size_t)(refrec[i].nw + refrec[i].nr) * 32;
        CHECK(is_subset(out, n, cnt) && n == ref_out_len - rl && cnt[i][0] + cnt[i][1] == 0, "%s: %zu bytes",
              what, n);
        free(out);
    }
    /* cycles: links must point forwards, so the walk stops at the backward link:
     * the records up to it, once */
    for (int k = 0; k < 3; k++) {
        reset_work();
        if (k == 0)
            WF(img_nfile - 1)->next = WH()->first;
        else if (k == 1)
            WF(img_nfile - 1)->next = img_file[img_nfile - 1];
        else
            WF(2)->next = img_file[1];
        snprintf(what, sizeof what, "file list cycle %d", k);
        size_t n, bound;
        uint8_t *out = decode_image(work, L, -1, SIZE_MAX, &n, &bound);
        size_t want = k == 2 ? refrec[3].off : ref_out_len;
        CHECK(n == want && memcmp(out, ref_out, want) == 0, "%s: %zu bytes (bound %zu), want %zu",
              what, n, bound, want);
        free(out);
    }
    /* lanes and chunks: every lane of every file */
    for (int i = 0; i < img_nfile; i++)
        for (int d = 0; d < 2; d++) {
            iol_dxt_lane l0 = WF(i)->lane[d];
            if (!l0.first)
                continue;
            static const int64_t ns[] = {INT64_MAX, INT64_MIN, -1, 0, INT64_MAX / 2, INT64_MIN / 2};
            /* lane n, sealed: only the last chunk's count changes: more than its
             * bytes hold reads up to pos, fewer gives a prefix */
            for (size_t a = 0; a < NEL(ns); a++) {
                reset_work();
                WF(i)->lane[d].n = ns[a];
                snprintf(what, sizeof what, "file %d lane %d: n = %lld", i, d, (long long)ns[a]);
                expect_decode(L, ns[a] >= INT64_MAX / 2 ? X_EQ : X_SUB, what);
                reset_work();
                WF(i)->lane[d].sealed = ns[a];
                snprintf(what, sizeof what, "file %d lane %d: sealed = %lld", i, d, (long long)ns[a]);
                /* 0: the last chunk claims n, more than it holds; a negative count
                 * may be taken as anything up to that (no more than a subset) */
                expect_decode(L, ns[a] == 0 ? X_EQ : X_SUB, what);
                for (size_t b = 0; b < NEL(ns); b++) {
                    reset_work();
                    WF(i)->lane[d].n = ns[a];
                    WF(i)->lane[d].sealed = ns[b];
                    snprintf(what, sizeof what, "file %d lane %d: n = %lld, sealed = %lld", i, d,
                             (long long)ns[a], (long long)ns[b]);
                    expect_decode(L, X_SUB, what);
                }
            }
            /* the lane's first / last chunk */
            for (int k = 0; k < NBAD + 1; k++) {
                reset_work();
                WF(i)->lane[d].first = k < NBAD ? bad_off(k, L, l0.first) : 0;
                snprintf(what, sizeof what, "file %d lane %d: first = %llu", i, d,
                         (unsigned long long)WF(i)->lane[d].first);
                expect_decode(L, X_SUB, what);
                reset_work();
                WF(i)->lane[d].last = k < NBAD ? bad_off(k, L, l0.last) : 0;
                snprintf(what, sizeof what, "file %d lane %d: last = %llu", i, d,
                         (unsigned long long)WF(i)->lane[d].last);
                expect_decode(L, X_SUB, what);   /* the last chunk read as sealed: nseg 0 */
            }
            /* the last chunk's pos: beyond the buffer (n bounds it), before its data,
             * mid-varint; with n huge too: decodes what is there up to the buffer's end */
            static const uint64_t pos_bad[] = {0, 1, UINT64_MAX, (uint64_t)1 << 40};
            for (size_t a = 0; a < NEL(pos_bad) + 3; a++) {
                reset_work();
                uint64_t pos = a < NEL(pos_bad) ? pos_bad[a]
                               : a == NEL(pos_bad)     ? L + 8
                               : a == NEL(pos_bad) + 1 ? DATA(l0.last) - 1
                                                       : l0.pos - 1;
                WF(i)->lane[d].pos = pos;
                snprintf(what, sizeof what, "file %d lane %d: pos = %llu", i, d, (unsigned long long)pos);
                expect_decode(L, pos > l0.pos ? X_EQ : X_SUB, what);
                WF(i)->lane[d].n = INT64_MAX;
                snprintf(what, sizeof what, "file %d lane %d: pos = %llu, n = INT64_MAX", i, d,
                         (unsigned long long)pos);
                expect_decode(L, pos > l0.pos ? X_ANY : X_SUB, what);
            }
            /* every chunk of the lane */
            for (uint64_t c = l0.first; c; c = ((iolens_dxt_chunk *)(void *)(ref_img + c))->next) {
                int last = c == l0.last;
                iolens_dxt_chunk c0 = *(iolens_dxt_chunk *)(void *)(ref_img + c);
                for (size_t a = 0; a < NEL(ns); a++) {
                    reset_work();
                    WC(c)->nseg = ns[a];
                    snprintf(what, sizeof what, "file %d lane %d chunk %llu: nseg = %lld", i, d,
                             (unsigned long long)c, (long long)ns[a]);
                    /* fewer than it holds: the next chunk decodes from the wrong state */
                    expect_decode(L, last ? X_EQ : ns[a] > c0.nseg ? X_SUB : c0.next ? X_ANY : X_SUB, what);
                }
                static const uint64_t end_bad[] = {0, 1, UINT64_MAX, (uint64_t)1 << 40};
                for (size_t a = 0; a < NEL(end_bad) + 3; a++) {
                    reset_work();
                    uint64_t e = a < NEL(end_bad) ? end_bad[a]
                                 : a == NEL(end_bad)     ? L + 8
                                 : a == NEL(end_bad) + 1 ? DATA(c) - 1
                                                         : c0.end - 1;
                    WC(c)->end = e;
                    snprintf(what, sizeof what, "file %d lane %d chunk %llu: end = %llu", i, d,
                             (unsigned long long)c, (unsigned long long)e);
                    expect_decode(L, last || e > c0.end ? X_EQ : X_SUB, what);
                    if (!last) {
                        WC(c)->nseg = INT64_MAX;
                        snprintf(what, sizeof what, "file %d lane %d chunk %llu: end = %llu, nseg max", i,
                                 d, (unsigned long long)c, (unsigned long long)e);
                        expect_decode(L, e > c0.end ? X_ANY : X_SUB, what);
                    }
                }
                for (int k = 0; k < NBAD + 4; k++) {
                    reset_work();
                    uint64_t nx = k < NBAD ? bad_off(k, L, c) : k == NBAD ? c : k == NBAD + 1 ? l0.first
                                  : k == NBAD + 2 ? img_file[i] : 0;
                    WC(c)->next = nx;
                    snprintf(what, sizeof what, "file %d lane %d chunk %llu: next = %llu", i, d,
                             (unsigned long long)c, (unsigned long long)nx);
                    /* the last chunk's next is never followed; a cycle repeats segments */
                    expect_decode(L, last ? X_EQ : k < NBAD || k == NBAD + 3 ? X_SUB : X_ANY, what);
                    if (k == NBAD || k == NBAD + 1) {    /* cycles of empty chunks: must end */
                        WC(c)->nseg = 0;
                        snprintf(what, sizeof what, "file %d lane %d chunk %llu: empty, in a cycle", i, d,
                                 (unsigned long long)c);
                        expect_decode(L, last ? X_EQ : X_ANY, what);
                    }
                }
                /* truncated and overlong varints */
                uint64_t data = DATA(c), end = last ? l0.pos : c0.end;
                for (int k = 0; k < 4; k++) {
                    reset_work();
                    if (k == 0)
                        work[end - 1] |= 0x80;           /* the chunk's last varint runs on */
                    else if (k == 1)
                        memset(work + data, 0xff, end - data);
                    else if (k == 2)
                        memset(work + data, 0x80, end - data);
                    else if (end - data >= 12) {
                        memset(work + data, 0x80, 11);   /* 11 bytes: longer than any varint */
                        work[data + 11] = 0;
                    }
                    snprintf(what, sizeof what, "file %d lane %d chunk %llu: varints damaged (%d)", i, d,
                             (unsigned long long)c, k);
                    expect_decode(L, X_SUB, what);
                }
            }
        }
    /* a chunk list pointing at the header page, or a file pointing at a chunk */
    reset_work();
    WF(0)->lane[1].first = IOLENS_DXT_STORE_HDR - CHDR;
    expect_decode(L, X_SUB, "chunk at the end of the header page");
}

/* Thousands of random corruptions: bytes anywhere, and 8-byte fields of the
 * header, files and chunks set to hostile values. */
static void test_hostile_random(void)
{
    SETCTX("hostile: random corruption");
    rng = 0x5eed;
    size_t L = ref_img_len;
    const int iters = 4000;
    decode_bad = 0;
    for (int it = 0; it < iters; it++) {
        reset_work();
        int nmod = 1 + (int)rndn(8);
        for (int m = 0; m < nmod; m++) {
            uint64_t r = rndn(100);
            if (r < 30) {
                work[rndn(L)] = (uint8_t)rnd();
            } else if (r < 45) {
                work[rndn(L)] ^= (uint8_t)(1u << rndn(8));
            } else {
                size_t at;
                uint64_t which = rndn(10);
                if (which == 0)
                    at = 8 * (3 + rndn(5));                     /* header fields after magic */
                else if (which < 6)
                    at = img_file[rndn(img_nfile)] + 8 * rndn(sizeof(iol_dxt_file) / 8);
                else
                    at = img_chunk[rndn(img_nchunk)] + 8 * rndn(3);
                uint64_t v, old;
                memcpy(&old, work + at, 8);
                switch (rndn(12)) {
                case 0: v = bad_off((int)rndn(NBAD), L, old); break;
                case 1: v = img_file[rndn(img_nfile)]; break;
                case 2: v = img_chunk[rndn(img_nchunk)] + 8 * rndn(2); break;
                case 3: v = rndn(L); break;
                case 4: v = old + rndn(64) - 32; break;
                case 5: v = (uint64_t)INT64_MAX - rndn(3); break;
                case 6: v = (uint64_t)INT64_MIN + rndn(3); break;
                case 7: v = 0; break;
                case 8: v = rnd(); break;
                case 9: v = old ^ (1ull << rndn(64)); break;
                case 10: v = L - rndn(64); break;
                default: v = old * 2; break;
                }
                put64(at, v);
            }
        }
        size_t n;
        uint8_t *out = decode_image(work, L, -1, SIZE_MAX, &n, NULL);
        free(out);
        out = decode_image(work, L, it & 1 ? -1 : 3, (size_t)rndn(ref_out_len * 2 + 1), &n, NULL);
        free(out);
        if (decode_bad > 5)
            break;
    }
    /* a truncated, damaged image too */
    for (int it = 0; it < iters / 4; it++) {
        reset_work();
        for (int m = 0; m < 4; m++)
            work[rndn(L)] = (uint8_t)rnd();
        size_t n;
        uint8_t *out = decode_image(work, IOLENS_DXT_STORE_HDR + rndn(L - IOLENS_DXT_STORE_HDR + 1), -1,
                                    SIZE_MAX, &n, NULL);
        free(out);
    }
    CHECK(decode_bad == 0, "%d damaged images decoded to malformed regions", decode_bad);
}

/* The image cut at every 64-byte boundary: nothing below the header page, then a
 * prefix-consistent subset that only grows with the cut, the whole at the end. */
static void test_hostile_truncated(void)
{
    SETCTX("hostile: truncated image");
    int64_t prev[MAXOBJ][2], cnt[MAXOBJ][2];
    memset(prev, 0, sizeof prev);
    reset_work();
    for (size_t L = 0;; L += 64) {
        if (L > ref_img_len)
            L = ref_img_len;
        size_t n, bound;
        uint8_t *out = decode_image(work, L, -1, SIZE_MAX, &n, &bound);
        int sub = is_subset(out, n, cnt);
        CHECK(sub && (L >= IOLENS_DXT_STORE_HDR || (n == 0 && bound == 0)),
              "image cut at %zu: %zu bytes (bound %zu), subset %d", L, n, bound, sub);
        if (sub)
            for (int j = 0; j < nrefrec; j++)
                for (int d = 0; d < 2; d++) {
                    CHECK(cnt[j][d] >= prev[j][d], "image cut at %zu: record %d lane %d has %lld, %lld at %zu",
                          L, j, d, (long long)cnt[j][d], (long long)prev[j][d], L - 64);
                    prev[j][d] = cnt[j][d];
                }
        if (L == ref_img_len)
            CHECK(n == ref_out_len && memcmp(out, ref_out, n) == 0, "whole image: %zu bytes", n);
        free(out);
        if (L == ref_img_len)
            break;
    }
}

/* Every small capacity, and random ones: a subset, never past cap. */
static void test_hostile_caps(void)
{
    SETCTX("hostile: output capacity");
    reset_work();
    rng = 99;
    int64_t prev = -1;
    for (size_t k = 0; k < 700; k++) {
        size_t cap = k < 400 ? k : k < 690 ? (size_t)rndn(ref_out_len + 1) : ref_out_len - 5 + (k - 690);
        size_t n;
        uint8_t *out = decode_image(work, ref_img_len, -1, cap, &n, NULL);
        CHECK(is_subset(out, n, NULL) && (cap >= ref_out_len ? n == ref_out_len : n <= cap) &&
                  (cap < 136 ? n == 0 : n > 0),
              "capacity %zu: %zu bytes", cap, n);
        if (k < 400) {
            CHECK((int64_t)n >= prev, "capacity %zu: %zu bytes, less than with %zu", cap, n, cap - 1);
            prev = (int64_t)n;
        }
        free(out);
    }
}

static void test_hostile(void)
{
    build_ref_image();
    if (!ref_img || !ref_out || ref_img_len > sizeof work)
        return;
    test_hostile_cases();
    test_hostile_random();
    test_hostile_truncated();
    test_hostile_caps();
    free(ref_img);
    free(ref_out);
}

/* Segments carry the region they ran in (dxt_store.h): the store's table, and
 * the DXT_REGION record built from it, one byte per segment, writes then reads. */
static void test_regions(void)
{
    SETCTX("regions");
    iol_cfg.mod_disabled &= ~(1ull << IOL_MOD_REGION);
    start_store(64);
    CHECK(S.x->regions && (HDR()->flags & IOLENS_DXT_STORE_REGIONS), "regions not carried");
    iol_dxt_file *f = NULL;
    /* op k: (used, slot, id) -> expected index */
    static const struct { int used, slot; uint64_t id; int wr; uint8_t want; } ops[] = {
        {0, 5, 0xaaa, 1, 0},      /* no region yet in the process: outside */
        {1, -1, 0, 1, 0},         /* outside */
        {1, 5, 0xaaa, 0, 2},      /* (reads come after writes: 0xbbb is met first) */
        {1, 9, 0xbbb, 1, 1},
        {1, -2, 0, 0, 255},       /* a region whose name was not recorded */
        {1, 5, 0xaaa, 1, 2},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        iol_region_used = ops[k].used;
        region_slot = ops[k].slot;
        region_id = ops[k].id;
        iol_dxt_add(S.x, IOL_DXT_SLOT_POSIX, &f, 0x1234, ops[k].wr, (int64_t)k * 10, 10,
                    (int64_t)k, (int64_t)k + 1);
    }
    CHECK(HDR()->nregions == 2 && HDR()->regions[0] == 0xaaa && HDR()->regions[1] == 0xbbb,
          "store table: %u entries", HDR()->nregions);
    uint8_t out[4096];
    size_t bound = iolens_dxt_store_regions_bound(S.x->base, S.x->len);
    size_t n = iolens_dxt_store_regions(S.x->base, S.x->len, 3, out, sizeof out);
    iolens_dxt_region_hdr rh;
    memcpy(&rh, out, sizeof rh);
    CHECK(n == iolens_dxt_region_size(2, 6) && n <= bound && rh.id == 0x1234 && rh.rank == 3 &&
              rh.module == IOL_MOD_DXT_POSIX && rh.nseg == 6 && rh.ntab == 2,
          "record: %zu bytes (bound %zu), nseg %u ntab %u", n, bound, rh.nseg, rh.ntab);
    uint64_t tab[2];
    memcpy(tab, out + 32, 16);
    /* writes (ops 0, 1, 3, 5) then reads (ops 2, 4) */
    static const uint8_t want[6] = {0, 0, 1, 2, 2, 255};
    CHECK(tab[0] == 0xbbb && tab[1] == 0xaaa && memcmp(out + 48, want, 6) == 0,
          "table %#llx %#llx, indices %u %u %u %u %u %u", (unsigned long long)tab[0],
          (unsigned long long)tab[1], out[48], out[49], out[50], out[51], out[52], out[53]);
    iol_region_used = 0;
    end_store();
    iol_cfg.mod_disabled |= 1ull << IOL_MOD_REGION;
}

/* Past the region table's end, a region's segments are "unknown" (255), and the
 * answer is kept in the region's index slot: its later segments take no lock. */
static void test_regions_table_full(void)
{
    SETCTX("regions: table full");
    iol_cfg.mod_disabled &= ~(1ull << IOL_MOD_REGION);
    start_store(64);
    iol_region_used = 1;
    for (int s = 0; s <= IOLENS_DXT_MAX_REGIONS; s++) {
        region_slot = s;
        region_id = 0x1000 + (uint64_t)s;
        CHECK(iol_dxt_region(S.x) == (s < IOLENS_DXT_MAX_REGIONS ? (uint32_t)s + 1
                                                                  : IOLENS_DXT_MAX_REGIONS + 1),
              "region slot %d", s);
    }
    CHECK(HDR()->nregions == IOLENS_DXT_MAX_REGIONS, "table: %u entries", HDR()->nregions);
    CHECK(S.x->region_index[IOLENS_DXT_MAX_REGIONS] == IOLENS_DXT_MAX_REGIONS + 1,
          "the full table's answer is kept: %u", S.x->region_index[IOLENS_DXT_MAX_REGIONS]);
    iol_region_used = 0;
    region_slot = -1;
    end_store();
    iol_cfg.mod_disabled |= 1ull << IOL_MOD_REGION;
}

int main(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (uname(&uts) == 0)
        memcpy(host64, uts.nodename, strnlen(uts.nodename, sizeof host64));
    iol_cfg.dxt_small_trigger = iol_cfg.dxt_unaligned_trigger = -1;
    /* REGION off: the stores' encoding checked below is that without regions;
     * test_regions turns it on */
    iol_cfg.mod_disabled |= 1ull << IOL_MOD_REGION;
    test_descriptors();
    test_ns();
    test_attach();
    test_roundtrip();
    test_budget();
    test_triggers();
    test_interrupt_add();
    test_interrupt_grow();
    test_interrupt_real();
    test_excluded();
    test_reset_again();
    test_mpiio_store();
    test_sidecar();
    test_store_lock();
    test_store_bound();
    test_hostile();
    test_regions();
    test_regions_table_full();
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
    printf("test_dxt_engine: all checks passed (%.2f s%s; ", secs,
#ifdef TEST_ASAN
           ", store poisoned outside the written bytes during output"
#else
           ""
#endif
    );
#ifdef TEST_STEP
    printf("%d operations interrupted at each of their %d stores)\n", stepped_adds, stepped_states);
#else
    printf("no single-stepping on this platform)\n");
#endif
    return 0;
}
