/* Internal interface of the runtime core, used by the modules and wrappers.
 *
 * Ownership: the core owns all record memory (one MODMEM pool carved into module
 * reservations, one NAMEMEM pool of names), the clock, the mount table, the
 * configuration and the log write.  A module owns only the meaning of its records.
 *
 * Locking: each module has one lock (iol_module.lock) for its table changes
 * (activation, registering records and names, side tables) and, in a module
 * without record locks, for every update of its records.  A module with record
 * locks (desc.rec_locks: POSIX, STDIO, MPI-IO) gives each record a lock of its own, the first
 * member of its aux: an update of a known record (read, write, seek on a tracked
 * fd) takes only that lock, so threads working on different files share no lock
 * (iol_rec_lock below).  The name table has its own lock.  Order: module ->
 * record -> names or a module's side locks (DXT store, shared heat map); never
 * the reverse.  A thread that holds a module or record lock never waits for
 * another one (iol_trylock_top: a signal handler's event is dropped instead).
 * Heat maps are per thread (modules/heatmap.h).
 *
 * Interposer rules: no function here may call malloc while a wrapper is running
 * (memory comes from mmap'd pools); errors are counted and reported once at
 * shutdown; nothing ever exits the process. */
#ifndef IOLENS_RUNTIME_RT_H
#define IOLENS_RUNTIME_RT_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "iolens/counters.h"
#include "iolens/log.h"     /* iolens_record_id(): the record id of a name */
#include "options.h"

/* ------------------------------------------------------------ lifecycle */
/* Two "on" states, so that the wrappers' one test of the state also tells them
 * how to read the clock (rt.h "clock"): IOL_ON, the fast ticks (the TSC on
 * x86-64); IOL_ON_CLOCK, clock_gettime (iol_tick), taken through iol_on_slow. */
enum iol_state { IOL_UNINIT = 0, IOL_ON = 1, IOL_OFF = 2, IOL_STOPPING = 3, IOL_ON_CLOCK = 4 };
extern int iol_state __attribute__((visibility("hidden")));
static inline int iol_is_on(int state) { return state == IOL_ON || state == IOL_ON_CLOCK; }
/* Per-thread guard: non-zero while the runtime itself does I/O (init, log write),
 * so that its own calls are passed through unrecorded. */
extern __thread int iol_busy __attribute__((tls_model("initial-exec")));
/* A bit of iol_busy: this thread called vfork (core/vfork.c).  In the child,
 * which shares our memory, every wrapper passes through; in the parent the bit
 * is stale once vfork returns, and iol_vfork_child() clears it. */
#define IOL_BUSY_VFORK (1 << 30)
/* 1 when running in a vfork child (touch no shared state); else 0, clearing a
 * stale IOL_BUSY_VFORK.  Async-signal-safe. */
int iol_vfork_child(void);
/* A fork child is never a vfork child: drop the mark it may have inherited. */
void iol_vfork_forget(void);

void iol_core_init_lazy(void);
void iol_core_shutdown(int write_log);

/* Should a wrapper record this call?  Fast path (iol_on_fast): one load and one
 * TLS load, and then the clock is the fast ticks; the rest (lazy init, off,
 * busy, IOL_ON_CLOCK) is out of line (init.c), so that it costs the wrappers
 * neither instructions nor saved registers. */
int iol_on_slow(void);
static inline __attribute__((always_inline)) int iol_on_fast(void)
{
    return __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE) == IOL_ON && !iol_busy;
}
static inline __attribute__((always_inline)) int iol_on(void)
{
    if (__builtin_expect(iol_on_fast(), 1))
        return 1;
    return iol_on_slow();
}

/* ------------------------------------------------------------ clock
 * Wrappers read ticks (iol_tick) around the real call and the record steps turn
 * them into nanoseconds since init (iol_tick_ns, stats.h iol_span_ns).  Where the
 * kernel itself keeps time with the TSC (clocksource "tsc": invariant and
 * synchronised across CPUs, or the kernel would have switched away from it), a
 * tick is one rdtsc, ~12 ns here against ~29 ns for the vDSO's clock_gettime,
 * and two are taken per call.  Ticks become nanoseconds on a line fitted to
 * CLOCK_MONOTONIC (clock.c): first over init, then refined at doubling
 * intervals, each new line starting where the old one ends, so times never jump.
 * Otherwise (another clocksource, not x86-64, IOLENS_NO_TSC) a tick is a
 * CLOCK_MONOTONIC reading in nanoseconds and the line is exact:
 * ns = tick - (the reading at init). */
extern struct timespec iol_t0;    /* CLOCK_REALTIME at the start of init */
typedef int (*iol_clock_fn)(clockid_t, struct timespec *);
extern iol_clock_fn iol_vdso_clock_gettime __attribute__((visibility("hidden")));
/* One CLOCK_MONOTONIC reading in nanoseconds, as glibc's clock_gettime takes it
 * but without its wrapper and PLT: the kernel's vDSO function when there is one
 * (found at init, clock.c), else the system call (as glibc falls back; e.g.
 * under valgrind, which hides the vDSO).  Other targets call clock_gettime. */
static inline __attribute__((always_inline)) int64_t iol_mono_ns(void)
{
    struct timespec ts;
#if defined(__x86_64__) && defined(__linux__)
    iol_clock_fn f = iol_vdso_clock_gettime;
    if (__builtin_expect(f != NULL, 1)) {
        f(CLOCK_MONOTONIC, &ts);
    } else {
        long ret;
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "0"(228L /* SYS_clock_gettime */), "D"((long)CLOCK_MONOTONIC), "S"(&ts)
                         : "rcx", "r11", "memory");
        (void)ret;
    }
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A line from ticks to nanoseconds since init: ns = ((tick * mult) >> 32) + off
 * (a 128-bit product).  Lines are never changed once published (iol_clock_line_now
 * points at the current one), so a reader sees one whole line even while another
 * thread refines it.  `next`: the tick after which the line is refined. */
typedef struct iol_clock_line {
    uint64_t mult;
    int64_t off;
    uint64_t next;
} iol_clock_line;
extern const iol_clock_line *iol_clock_line_now __attribute__((visibility("hidden")));
extern int iol_clock_fast __attribute__((visibility("hidden")));
/* Fit a new line (clock.c; out of line, rare).  Async-signal-safe: a thread that
 * finds another refining keeps the current line. */
void iol_clock_refine(uint64_t tick);

/* A tick when the state is IOL_ON (the wrappers' fast path, stats.h TIMED_BODY):
 * the TSC on x86-64; elsewhere CLOCK_MONOTONIC, on an exact line. */
static inline __attribute__((always_inline)) uint64_t iol_fast_tick(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return (uint64_t)iol_mono_ns();
#endif
}
/* A tick in any state. */
static inline __attribute__((always_inline)) uint64_t iol_tick(void)
{
    if (__builtin_expect(iol_clock_fast, 1))
        return iol_fast_tick();
    return (uint64_t)iol_mono_ns();
}
static inline __attribute__((always_inline)) int64_t iol_tick_ns_on(const iol_clock_line *l,
                                                                    uint64_t tick)
{
    return (int64_t)(((unsigned __int128)tick * l->mult) >> 32) + l->off;
}
/* Nanoseconds since init of a tick; exact in the fallback mode. */
static inline __attribute__((always_inline)) int64_t iol_tick_ns(uint64_t tick)
{
    const iol_clock_line *l = __atomic_load_n(&iol_clock_line_now, __ATOMIC_ACQUIRE);
    if (__builtin_expect(tick >= l->next, 0))
        iol_clock_refine(tick);
    return iol_tick_ns_on(l, tick);
}
/* Refine the line if it is due (the out-of-line steps of paths that convert with
 * iol_span_ns_hot: heat-map misses, DXT allocations). */
static inline void iol_clock_check(void)
{
    uint64_t tick = iol_tick();
    if (tick >= __atomic_load_n(&iol_clock_line_now, __ATOMIC_ACQUIRE)->next)
        iol_clock_refine(tick);
}
/* Seconds since init, as (double)nanoseconds * 1e-9: the form of every runtime
 * time (stats.h iol_ns_sec too), which DXT relies on to store times as exact
 * nanoseconds (dxt.h). */
static inline double iol_wtime(void) { return (double)iol_tick_ns(iol_tick()) * 1e-9; }

/* ------------------------------------------------------------ config, job */
extern iol_config iol_cfg;
extern int iol_rank, iol_nprocs;

/* ------------------------------------------------------------ locks */
/* A test-and-set lock that knows its owner: uncontended it costs one
 * compare-and-swap and one store (a pthread mutex costs ~50 instructions per
 * pair, a third of our budget).  Contended, it spins briefly and then yields, so a
 * preempted holder is not starved on an oversubscribed node.  The owner is the
 * thread's identity (iol_self: its thread pointer, or the address of its
 * iol_busy), so a signal handler that interrupts a wrapper and calls another one
 * on the same thread is detected (iol_trylock_own returns 0)
 * instead of deadlocking.  Zero = unlocked. */
typedef uintptr_t iol_lock_t;
void iol_lock_slow(iol_lock_t *l, uintptr_t me);
#if defined(__x86_64__) && !defined(__clang__) && __GNUC__ >= 11
/* The thread pointer (one instruction; &iol_busy is it plus an offset read from
 * the GOT): as unique per thread as the address of iol_busy. */
static inline uintptr_t iol_self(void) { return (uintptr_t)__builtin_thread_pointer(); }
#else
static inline uintptr_t iol_self(void) { return (uintptr_t)&iol_busy; }
#endif
/* The one attempt every lock starts with: 1 = locked by us now; 0 = we already
 * hold it (re-entered from a signal handler); -1 = another thread holds it. */
static inline __attribute__((always_inline)) int iol_lock_attempt(iol_lock_t *l, uintptr_t me)
{
    uintptr_t expect = 0;
    if (__builtin_expect(__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED), 1))
        return 1;
    return expect == me ? 0 : -1;
}
/* 1 = locked by us now (waiting if another thread holds it); 0 = we already hold it. */
static inline int iol_trylock_own(iol_lock_t *l)
{
    uintptr_t me = iol_self();
    int r = iol_lock_attempt(l, me);
    if (__builtin_expect(r >= 0, 1))
        return r;
    iol_lock_slow(l, me);
    return 1;
}
static inline void iol_lock(iol_lock_t *l)
{
    uintptr_t me = iol_self(), expect = 0;
    if (__builtin_expect(!__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE,
                                                      __ATOMIC_RELAXED), 0))
        iol_lock_slow(l, me);
}
static inline void iol_unlock(iol_lock_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* Module and record locks (iol_mod_enter, iol_rec_lock) are taken with this
 * instead: a thread that already holds a module or record lock never waits for
 * another one.  Otherwise thread A, interrupted inside record R1's update by a
 * signal whose handler writes to R2, would wait for thread B, interrupted inside
 * R2's update with a handler that writes to R1, and neither would ever go on.
 * So when the lock is busy, the slow path spins briefly (the holder is usually
 * just finishing an update) and then, if this thread holds any module or record
 * lock (a scan of their owner words: only contended acquisitions pay for it),
 * gives up: returns 0, and the caller drops its event, as for a lock that is
 * already its own.  The other locks (names, DXT stores, shared heat map, and
 * the HEATMAP and DXT module locks, which are taken inside other modules'
 * activations: iol_mod_enter_leaf) are
 * leaves: taken only while a module or record lock is held and given back
 * without waiting for anything, so a wait for one of them cannot close a cycle,
 * and they keep waiting (iol_trylock_own); the directory-name cache's lock,
 * taken with no other lock held, uses this one too (modules/posix_dirs.c).
 * The uncontended path is that of
 * iol_trylock_own, instruction for instruction. */
int iol_lock_slow_nested(iol_lock_t *l, uintptr_t me);   /* (records.c) */
static inline __attribute__((always_inline)) int iol_trylock_top(iol_lock_t *l)
{
    uintptr_t me = iol_self();
    int r = iol_lock_attempt(l, me);
    if (__builtin_expect(r >= 0, 1))
        return r;
    return iol_lock_slow_nested(l, me);
}

/* ------------------------------------------------------------ modules */
typedef struct iol_module iol_module;

typedef struct iol_module_desc {
    int id;                  /* Darshan module id (modules.def) */
    const char *name;
    uint32_t version;        /* record version written */
    /* (the three set by IOL_MODULE_IDENTITY below, from modules.def) */
    size_t rec_size;         /* bytes of one log record */
    size_t aux_size;         /* bytes of runtime-only state per record (not logged) */
    int64_t default_records; /* reservation when MAX_RECORDS is not set */
    int fixed_records;       /* MAX_RECORDS is ignored (HEATMAP) */
    int path_names;          /* names are paths: exclusion rules apply */
    int rec_locks;           /* each aux starts with an iol_lock_t, the record's lock
                                (iol_rec_lock); shutdown waits for their holders */
    int own_memory;          /* records kept by the module outside MODMEM (DXT): no
                                reservation, no id hash (iol_rec_find/register unused);
                                `count` is set by `finish` to the records `output` writes */
    /* Set the non-zero initial fields of a new record (id and rank are set). */
    void (*rec_init)(iol_module *m, const char *name, void *rec, void *aux);
    /* At every init (the constructor, the first intercepted call, MPI_Init, a fork
     * child's restart), after the mount table is read, for a module that is not
     * disabled: no lock of ours held, iol_busy set, no wrapper's real call in
     * progress.  The one place a module may load a library (LUSTRE). */
    void (*setup)(iol_module *m);
    /* Called once the module memory exists (first use), under the module lock. */
    void (*activate)(iol_module *m);
    /* At shutdown, after every module is frozen and before any output or
     * reduction, on one thread (the DXT triggers read local POSIX counters). */
    void (*finish)(iol_module *m);
    /* Produce the region payload (little-endian records) at shutdown; may reuse
     * m->recs.  NULL = the records as stored.  Returns the payload length. */
    size_t (*output)(iol_module *m, void **payload);
    /* Forget side tables (fd maps, streams) after fork or shutdown. */
    void (*reset)(iol_module *m);
    /* The record version the payload has, when a setting chooses it (DXT thread
     * ids); NULL = `version`. */
    uint32_t (*out_version)(iol_module *m);
    /* Per-file records of an own_memory module (LUSTRE), for the MPI shared-record
     * step: whether a record of id is held here (after `finish`), and marking the
     * records every process holds (ids sorted): rank -1, and dropped unless `keep`
     * (process 0 writes them).  NULL = the module has no per-file records. */
    int (*holds)(iol_module *m, uint64_t id);
    void (*shared)(iol_module *m, const uint64_t *ids, size_t n, int keep);
} iol_module_desc;

/* A descriptor's id, printed name and record version, all from the one module list
 * (src/format/counters/modules.def), so a descriptor cannot restate them wrongly:
 *     const iol_module_desc iol_stdio_module = { IOL_MODULE_IDENTITY(STDIO), ... }; */
#define MODULE(id_, sym, name_, ver, kind, role, summary, layer, depth, runtime, tbl) \
    static const char iol_modname_##sym[] __attribute__((unused)) = name_;
#include "modules.def"
#undef MODULE
#define IOL_MODULE_IDENTITY(sym) \
    .id = IOL_MOD_##sym, .name = iol_modname_##sym, .version = IOL_MOD_##sym##_VERSION

/* Ties a counter module's record struct to its table: the id/rank base, then the
 * table's integer and float counters, nothing else (what the log reader expects). */
#define IOL_ASSERT_RECORD_LAYOUT(type, sym)                                          \
    _Static_assert(offsetof(type, c) == 16 && offsetof(type, f) ==                   \
                   16 + 8 * sym##_NUM_INDICES && sizeof(type) ==                     \
                   16 + 8 * (sym##_NUM_INDICES + sym##_F_NUM_INDICES),               \
                   #type " does not match the " #sym " counter table")

/* A record's stored name (in the name pool: stable while the module is active). */
typedef struct iol_name_ref {
    const char *name;
    size_t len;
} iol_name_ref;

struct iol_module {
    /* First cache line: what the record paths read, written only at activation
     * and (frozen) at shutdown, so that threads updating records through their
     * own locks keep it in their caches while other threads take `lock`. */
    const iol_module_desc *d;
    int state;               /* 0 untried, 1 active, -1 disabled or failed (never retried);
                                1 is stored with release once recs/aux exist */
    int frozen;              /* shutdown has taken the records: written (atomically)
                                under `lock` only; read under it, or atomically
                                under a record lock (iol_rec_lock) */
    uint8_t *recs, *aux;
    uint32_t *slots;         /* id hash: index+1, 0 = empty */
    size_t hmask;
    iol_name_ref *names;     /* per record, for the path cache; NULL: no cache */
    uint32_t path_tag;       /* this activation's tag in path-cache entries: 24 bits,
                                never 0 */
    /* Second line: written by every table change (opens, registrations). */
    iol_lock_t lock __attribute__((aligned(64)));
    size_t cap;
    size_t count;            /* written under `lock` (atomically: the lock scan of
                                holds_top_lock reads it without the lock) */
} __attribute__((aligned(64)));   /* one module's lock never shares a cache line
                                     with another module's fields */
_Static_assert(offsetof(struct iol_module, frozen) < 64 && offsetof(struct iol_module, path_tag) < 64 &&
               offsetof(struct iol_module, lock) == 64,
               "frozen and the other fields the record paths read are on a line of their own, "
               "apart from the module lock");

/* The table of modules, generated from the CMake module list (module_table.c). */
extern const iol_module_desc *const iol_module_descs[];
extern const size_t iol_module_ndescs;

extern iol_module iol_mods[IOL_MAX_MODULES] __attribute__((visibility("hidden")));
static inline iol_module *iol_mod(int id) { return &iol_mods[id]; }
/* The region payload of an active module at shutdown (payload.c): its records,
 * or what its output callback builds, with times rounded for compression.
 * Returns the length; *payload may be NULL when the length is 0. */
size_t iol_mod_payload(iol_module *m, void **payload);
/* The rounding alone, in place (idempotent): before the MPI reduction. */
void iol_mod_round_times(iol_module *m);
/* The record version of the module's region in the log. */
static inline uint32_t iol_mod_version(iol_module *m)
{
    return m->d->out_version ? m->d->out_version(m) : m->d->version;
}
/* A module found frozen (or off): when the process is dying after the snapshot
 * of its exit-time write, hold this thread until the death, so that the call
 * it is recording never returns to the program unrecorded (exitowner.c). */
void iol_exit_hold_if_dying(void) __attribute__((cold));
/* First use of a module: reserve its memory (lock held). */
void iol_mod_activate(iol_module *m);
/* Lock the module and make sure it is active.  Returns 1 with the lock held, or 0
 * (lock released) when the module is disabled, failed or frozen.  may_hold: a
 * first entry (no lock of ours held, unless a signal handler interrupted an
 * update), which may then hold the thread until the process dies
 * (iol_exit_hold_if_dying); a leaf entry, made inside another module's update,
 * never does: the lock it is inside would stop the exit-time write. */
static inline int iol_mod_enter_locked(iol_module *m, int may_hold)
{
    if (__builtin_expect(m->state == 0, 0))
        iol_mod_activate(m);
    if (__builtin_expect(m->state == 1 && !m->frozen, 1))   /* (written under the lock) */
        return 1;
    iol_unlock(&m->lock);
    if (may_hold)
        iol_exit_hold_if_dying();
    return 0;
}
static inline int iol_mod_enter(iol_module *m)
{
    if (__builtin_expect(m->d == NULL, 0) || !iol_trylock_top(&m->lock))
        return 0;
    return iol_mod_enter_locked(m, 1);
}
/* iol_mod_enter for a module whose lock is a leaf: taken only inside another
 * module's activation (HEATMAP's registration, DXT's attachment) and holding
 * nothing but leaf locks itself, so waiting for it closes no cycle.  It waits
 * where iol_mod_enter would give up because this thread holds a module lock
 * (the activating module's own), which would lose the heat map or the trace of
 * a module that happened to start while another thread was starting one. */
static inline int iol_mod_enter_leaf(iol_module *m)
{
    if (__builtin_expect(m->d == NULL, 0) || !iol_trylock_own(&m->lock))
        return 0;
    return iol_mod_enter_locked(m, 0);
}
static inline void iol_mod_leave(iol_module *m) { iol_unlock(&m->lock); }

/* iol_rec_lock found the module frozen: give l back, hold the thread if the
 * process is dying (iol_exit_hold_if_dying); returns 0.  Out of line (records.c),
 * so that the record paths pay nothing for it. */
int iol_rec_lock_frozen(iol_lock_t *l);
/* Record locks (modules with desc.rec_locks: POSIX, STDIO, MPI-IO).  Lock the
 * record whose aux starts with lock l, for an update of that known record.
 * Returns 1 with the lock held, or 0 (not held) when the module is frozen, when
 * this thread already holds it (a signal handler interrupted an update of this
 * record: the handler's event is not recorded, as with the module lock), or
 * when another thread holds it and this thread holds another module or record
 * lock (iol_trylock_top: the handler's event is dropped rather than waited
 * for).  Shutdown sets `frozen` and then takes
 * and gives back every record lock (iol_rec_locks_wait), so an update either ends
 * before the records are copied or sees `frozen` here (the lock's acquire orders
 * the load after the freezer's release).  Callers reach the aux through a table
 * that exists only while the module is active, so `state` needs no test. */
/* Live snapshots (docs/live.md): each record of a module with record locks has a
 * sequence word in the record memory's seq table (records.c; in the safety copy,
 * where `iolens top` and the exporter read it), odd while the record is being
 * updated.  The aux's second member points at it (IOL_REC_HEAD below), so the
 * lock paths bump it without finding the record: one load and one add each.
 * Only the lock holder writes it (plain stores); the fences order it around the
 * record's stores for a reader on another CPU (no instruction on x86-64). */
#define IOL_REC_HEAD \
    iol_lock_t lock;         /* the record's lock (first: desc.rec_locks) */ \
    uint32_t *seq            /* its sequence word (iol_rec_seq_begin) */
/* After an aux type with IOL_REC_HEAD: the lock paths find the word at l + 1. */
#define IOL_REC_HEAD_CHECK(type)                                                     \
    _Static_assert(offsetof(type, lock) == 0 && offsetof(type, seq) == sizeof(iol_lock_t), \
                   #type " must start with IOL_REC_HEAD")
static inline __attribute__((always_inline)) void iol_rec_seq_bump(iol_lock_t *l)
{
    uint32_t *s = *(uint32_t *const *)(l + 1);
    /* A plain add (one `addl` to memory on x86-64): the compiler barriers keep
     * it where it is and single; no other thread writes the word. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *s += 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline __attribute__((always_inline)) void iol_rec_seq_begin(iol_lock_t *l)
{
    iol_rec_seq_bump(l);
    __atomic_thread_fence(__ATOMIC_RELEASE);   /* odd before the record's stores */
}
static inline __attribute__((always_inline)) void iol_rec_seq_end(iol_lock_t *l)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);   /* the record's stores before even */
    iol_rec_seq_bump(l);
}
static inline __attribute__((always_inline)) int iol_rec_lock(iol_module *m, iol_lock_t *l)
{
    if (__builtin_expect(!iol_trylock_top(l), 0))
        return 0;
    if (__builtin_expect(__atomic_load_n(&m->frozen, __ATOMIC_RELAXED) == 0, 1)) {
        iol_rec_seq_begin(l);
        return 1;
    }
    return iol_rec_lock_frozen(l);
}
static inline void iol_rec_unlock(iol_lock_t *l)
{
    iol_rec_seq_end(l);
    iol_unlock(l);
}
/* With m's lock held (a record found or registered by name): lock the record
 * too, for an update made with both held (iol_rec_leave_mod gives both back;
 * shutdown cannot freeze m while its lock is held, so `frozen` needs no test).
 * Never waits for a record lock while holding m's lock (a thread interrupted
 * inside that record's update may need m's lock in its signal handler): when
 * the record is busy, m's lock is given back while waiting, then taken again;
 * and when this thread still holds another module or record lock then (a
 * signal handler), it does not wait at all (iol_trylock_top).
 * Returns 1 with both locks held, or 0 with neither (m frozen meanwhile, the
 * record's lock already this thread's: a signal handler re-entered, or busy
 * while this thread holds another lock). */
int iol_rec_lock_in_mod_slow(iol_module *m, iol_lock_t *l);
static inline __attribute__((always_inline)) int iol_rec_lock_in_mod(iol_module *m, iol_lock_t *l)
{
    uintptr_t expect = 0;
    if (__builtin_expect(__atomic_compare_exchange_n(l, &expect, iol_self(), 0, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED), 1) ||
        iol_rec_lock_in_mod_slow(m, l)) {
        iol_rec_seq_begin(l);
        return 1;
    }
    return 0;
}
static inline void iol_rec_leave_mod(iol_module *m, iol_lock_t *l)
{
    iol_rec_unlock(l);
    iol_unlock(&m->lock);
}
/* The lock of record i (modules with rec_locks). */
static inline iol_lock_t *iol_rec_lock_of(const iol_module *m, size_t i)
{
    return (iol_lock_t *)(m->aux + i * m->d->aux_size);
}

/* The cleaned name of `path` (runtime spec 2.0.1) and its length (path.c).
 * Returns `path` itself when it is already clean (absolute, no "//" or "/./",
 * shorter than IOL_PATH_LEN: the usual case, found without copying), otherwise
 * the cleaned copy written into buf (IOL_PATH_LEN bytes).  May call getcwd
 * (errno!). */
const char *iol_path_name(const char *path, char *buf, size_t *len);
/* The same with n = strlen(path) already known for an absolute path (ignored
 * for others). */
const char *iol_path_name_n(const char *path, size_t n, char *buf, size_t *len);

/* Record access (module lock held). */
void *iol_rec_find(iol_module *m, uint64_t id, void **aux);
/* Register a record for `name` (already cleaned) following runtime spec section 4:
 * full module -> partial bit; excluded name -> NULL silently; name pool full ->
 * partial bit.  Returns the record or NULL. */
void *iol_rec_register(iol_module *m, const char *name, uint64_t id, void **aux);
/* Find, else register, the record of a cleaned name (lock held). */
static inline __attribute__((always_inline)) void *iol_rec_get(iol_module *m, const char *name,
                                                                uint64_t id, void **aux)
{
    void *r = iol_rec_find(m, id, aux);
    return r ? r : iol_rec_register(m, name, id, aux);
}
/* The per-thread path cache: the records this thread last reached by an absolute,
 * already clean path (nearly every open and stat names one), so that a path seen
 * again costs a strlen and a memcmp against the record's stored name instead of
 * the cleaning scan, the record-id hash and the id lookup.  An entry is one word,
 * [module's path_tag: 24 bits][path's last two bytes: 16][record index + 1: 24],
 * so a signal handler that interrupts an update reads a whole entry or the one
 * before; the tag holds a generation that every (re)start of the records changes
 * (fork children), so entries of an earlier activation never match, and the last
 * two bytes turn away most misses (f1, f2, ... in a loop) before any memcmp.
 * Stored names are clean, so a path equal to one is its own cleaned name and has
 * that record's id. */
#define IOL_PATH_CACHE 4
#define IOL_PATH_CACHE_MAX_INDEX ((1u << 24) - 1)   /* records beyond are not cached */
extern __thread uint64_t iol_path_cache[IOL_PATH_CACHE] __attribute__((tls_model("initial-exec")));
/* The entry's key part (all but the index) for path (n = strlen >= 1) in module m. */
static inline uint64_t iol_path_cache_key(uint32_t path_tag, const char *path, size_t n)
{
    uint16_t tail = (uint16_t)((unsigned char)path[n - 1] | (n > 1 ? (unsigned char)path[n - 2] << 8 : 0));
    return (uint64_t)path_tag << 40 | (uint64_t)tail << 24;
}
/* Record index + 1 of path (n = strlen >= 1) in this thread's cache, or 0. */
static inline __attribute__((always_inline)) uint32_t iol_path_cache_find(iol_module *m,
                                                                          const char *path,
                                                                          size_t n)
{
    const iol_name_ref *refs = __atomic_load_n(&m->names, __ATOMIC_RELAXED);
    if (__builtin_expect(refs == NULL, 0))
        return 0;
    uint64_t key = iol_path_cache_key(__atomic_load_n(&m->path_tag, __ATOMIC_RELAXED), path, n);
    for (int i = 0; i < IOL_PATH_CACHE; i++) {
        uint64_t v = iol_path_cache[i];
        if ((v & ~(uint64_t)IOL_PATH_CACHE_MAX_INDEX) != key)
            continue;
        const iol_name_ref *r = &refs[(v & IOL_PATH_CACHE_MAX_INDEX) - 1];
        if (r->len == n && memcmp(r->name, path, n) == 0)
            return (uint32_t)(v & IOL_PATH_CACHE_MAX_INDEX);
    }
    return 0;
}
/* The cache miss: clean, hash, find or register, remember (records.c). */
void *iol_rec_enter_path_slow(iol_module *m, const char *path, size_t n, void **aux);
/* Lock m and find or register the record of `path`, cleaned as runtime spec
 * 2.0.1 (an already clean absolute path is hashed in place).  Returns the record,
 * *aux set, with the lock held; or NULL with the lock not held.  May change errno
 * (callers on a wrapper path save it).  Inline: it is most of every open. */
static inline __attribute__((always_inline)) void *iol_rec_enter_path(iol_module *m,
                                                                      const char *path,
                                                                      void **aux)
{
    size_t n = 0;
    if (__builtin_expect(path != NULL && path[0] == '/', 1)) {
        n = strlen(path);
        uint32_t hit = iol_path_cache_find(m, path, n);
        if (__builtin_expect(hit != 0, 1)) {
            if (!iol_mod_enter(m))
                return NULL;
            size_t i = hit - 1;
            if (aux)
                *aux = m->aux + i * m->d->aux_size;
            return m->recs + i * m->d->rec_size;
        }
    }
    return iol_rec_enter_path_slow(m, path, n, aux);
}
static inline size_t iol_rec_index(const iol_module *m, const void *rec)
{
    return (size_t)((const uint8_t *)rec - m->recs) / m->d->rec_size;
}
static inline void *iol_rec_aux(const iol_module *m, const void *rec)
{
    return m->aux + iol_rec_index(m, rec) * m->d->aux_size;
}

/* Names. */
uint64_t iol_name_id(const char *name);
/* The record id of len bytes (equal to iolens_record_id, faster). */
uint64_t iol_hash(const char *name, size_t len);
/* The stored name of an id (stable pointer into the name pool) or NULL. */
const char *iol_name_of(uint64_t id);
/* Clean a path as upstream does (runtime spec 2.0.1) into out; returns out. */
char *iol_clean_path(const char *path, char *out, size_t len);
/* Exclusion rules of section 2.0.2 for module `modid`. */
int iol_name_excluded(int modid, const char *name);

void iol_partial_set(int modid);

/* Mounts: block size for FILE_ALIGNMENT (-1 if no mount matches). */
int64_t iol_mount_block_size(const char *path);
/* Whether the longest mount that holds path is Lustre (statfs magic at init). */
int iol_mount_on_lustre(const char *path);
/* Non-zero when some mount is Lustre: the close paths then call the LUSTRE
 * module (modules/lustre.h); 0 on every other node, which so pays nothing more. */
extern int iol_lustre_mounted __attribute__((visibility("hidden")));
/* What a POSIX close has to do beyond the fd table, one bit each, so that the
 * common close tests one word that it tested anyway (the close path then costs
 * what it cost before the LUSTRE module: docs/performance.md, "Lustre module"):
 * IOL_CLOSE_DIRS, directory fds were named (modules/posix_dirs.c); IOL_CLOSE_LUSTRE,
 * the node mounts Lustre and the LUSTRE module is not disabled (mounts.c, at
 * init; STDIO's setup picks its fclose step from it too). */
#define IOL_CLOSE_DIRS 1
#define IOL_CLOSE_LUSTRE 2
extern int iol_close_extras __attribute__((visibility("hidden")));

/* ------------------------------------------------------------ errors */
enum iol_failure {
    IOL_FAIL_SYMBOL, IOL_FAIL_MEMORY, IOL_FAIL_FDTABLE, IOL_FAIL_STREAMS,
    IOL_FAIL_AIO, IOL_FAIL_PATH, IOL_FAIL_HANDLES, IOL_FAIL_COUNT
};
/* Count a failure (any thread, lock-free); reported once at shutdown. */
void iol_fail(enum iol_failure what);
unsigned long iol_failures(enum iol_failure what);   /* the count so far */
/* A one-line message on stderr, prefixed "iolens: ", without allocating; at most
 * a fixed number of messages per process. */
void iol_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void iol_report_failures(void);
/* One line on stderr as is (for the DARSHAN_DUMP_CONFIG text); no allocation. */
void iol_write_line(const char *line);

/* Memory from the system, never from malloc: zeroed, page-granular. */
void *iol_map(size_t len);
void iol_unmap(void *p, size_t len);

#endif
