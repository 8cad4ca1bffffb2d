/* DXT tracing engine (runtime spec section 5): per-operation segments of one
 * traced API, kept for DXT_POSIX (posix.c) and DXT_MPIIO (mpiio.c).  The two
 * modules are this one engine with two stores; their descriptors are in
 * dxt_posix.c and dxt_mpiio.c.
 *
 * Locking: a store is written only by the module it traces (POSIX, MPI-IO), with
 * the traced record's lock held (POSIX's and MPI-IO's record locks): a
 * file's trace (its lanes and the segments in its chunks) belongs to its record,
 * so appending a segment needs that lock alone, and threads tracing different
 * files share no lock and write no common cache line (files and chunks start on
 * cache lines of their own).  What the files share, the store's header (the
 * allocation mark, the budget, the file list, the thread table), is changed only
 * out of line (iol_dxt_file_new, iol_dxt_grow, iol_dxt_thread_new) under the
 * store's own lock, taken inside the record's (order: record -> store).  A signal
 * handler that interrupts its thread inside the store's lock and traces an op
 * of another file that needs the store drops that op (the trace is then marked
 * partial), as a re-entered record lock drops its op.
 * Shutdown (triggers, output) runs after every module is frozen and every record
 * lock given back, on one thread.
 *
 * Memory: each store has a budget outside MODMEM, charged as upstream charges it
 * (104 bytes per traced file; per file and direction 64 segments, then doubling,
 * capped to what is left; 32 bytes per segment), so that a trace is cut at the
 * same operation.  The bytes come from one mapping made at activation: twice the
 * budget of address space, of which only the pages used become resident (segments
 * are stored compactly, see below); nothing is allocated while a wrapper runs.
 * With the safety copy on, the mapping is a file beside it (<copy>.dxt-posix,
 * .dxt-mpiio), so the trace of a killed process can be recovered.  When the budget
 * is spent, later segments are dropped, the module's partial bit is set, and what
 * was kept is the beginning of each trace. */
#ifndef IOLENS_RUNTIME_DXT_H
#define IOLENS_RUNTIME_DXT_H

#include <stdint.h>

#include "../core/rt.h"
#include "iolens/dxt_store.h"
#include "region.h"

/* The store's layout and segment encoding are shared with `iolens recover`,
 * which reads them back from the file beside the safety copy: see
 * include/iolens/dxt_store.h.  In short, a segment is four varints of
 * differences from the previous one (~6 bytes for sequential equal-sized I/O
 * instead of the log's 32): fresh memory costs a page fault per 4 KiB, which was
 * most of what tracing cost (docs/performance.md, "DXT tracing").  Times are
 * exact: every runtime time is (double)ns * 1e-9 (iol_wtime, iol_span_sec), and
 * iol_dxt_ns recovers ns exactly for runs shorter than about 100 days. */
typedef iolens_dxt_file iol_dxt_file;
typedef iolens_dxt_lane iol_dxt_lane;

typedef struct iol_dxt {
    uint8_t *base;               /* the store: header at 0, links are offsets from here */
    size_t len;
    int modid;
    int slot;                    /* 0 DXT_POSIX, 1 DXT_MPIIO: index of iol_dxt_thread */
    int threads;                 /* segments carry the thread's index (DXT_THREAD_IDS) */
    int regions;                 /* segments carry their region's index (REGION on) */
    /* Per REGION name-table slot, its index in the store's region table (0: none
     * yet); written under the store's lock, read without (iol_dxt_region). */
    uint8_t region_index[IOL_REGION_NAMES];
    void *out;                   /* the payload built at shutdown */
    size_t out_len;
    /* The store's lock (Locking above), on a line of its own: the fields above are
     * read by every traced op, this one written only out of line. */
    iol_lock_t lock __attribute__((aligned(64)));
} iol_dxt;

/* A file whose trace is never kept (name excluded, no memory left): stored in
 * the caller's per-file pointer so the decision is made once. */
#define IOL_DXT_NONE ((iol_dxt_file *)1)

/* The store of DXT module `modid` (IOL_MOD_DXT_POSIX or IOL_MOD_DXT_MPIIO), made
 * ready for the traced module: NULL when tracing is off.  Called from the traced
 * module's activation, with its lock held (order: traced module -> DXT module). */
iol_dxt *iol_dxt_attach(int modid);

/* Out of line: the first segment of a file, and a lane whose grant is used up.
 * Both take the store's lock.  iol_dxt_file_new returns IOL_DXT_NONE for a file
 * never traced, or NULL when this thread already holds the store's lock (a signal
 * handler re-entered): the op is dropped and the next one asks again. */
iol_dxt_file *iol_dxt_file_new(iol_dxt *x, uint64_t id);
int iol_dxt_grow(iol_dxt *x, iol_dxt_lane *l);

/* This thread's index in each store's thread table, plus one (0: none yet).
 * Cleared in a fork child, whose stores start empty. */
extern __thread uint32_t iol_dxt_thread[2] __attribute__((tls_model("initial-exec")));
/* Out of line: give the calling thread an index in x's table (takes the store's
 * lock); returns the index plus one. */
uint32_t iol_dxt_thread_new(iol_dxt *x);

/* Out of line: the store index of region slot s (region.h) not yet in x's table,
 * or of a region not recorded (s < 0); takes the store's lock. */
uint32_t iol_dxt_region_new(iol_dxt *x, int s) __attribute__((visibility("hidden")));

/* The store index of the calling thread's innermost region, for a process that
 * has used regions (0 outside every region). */
static inline uint32_t iol_dxt_region(iol_dxt *x)
{
    int s = iol_region_slot_now();
    if (s == IOL_REGION_OUTSIDE)
        return 0;
    if (s >= 0 && s < IOL_REGION_NAMES) {
        uint32_t k = __atomic_load_n(&x->region_index[s], __ATOMIC_RELAXED);
        if (__builtin_expect(k != 0, 1))
            return k;
    }
    return iol_dxt_region_new(x, s);
}

static inline int64_t iol_dxt_ns(double t)
{
    return (int64_t)(t * 1e9 + (t < 0 ? -0.5 : 0.5));
}

/* The store a call site writes: a constant, so that the thread index is one
 * thread-local load at a fixed offset. */
enum { IOL_DXT_SLOT_POSIX = 0, IOL_DXT_SLOT_MPIIO = 1 };

/* Record one operation of the file whose state pointer is *fp (NULL before its
 * first traced operation), from ns1 to ns2 nanoseconds since init (iol_span_ns, or
 * iol_dxt_ns of a time in seconds), in store x of slot `slot`.  The lock of the
 * record that owns *fp held (Locking above); the store's lock not held. */
static inline __attribute__((always_inline)) void iol_dxt_add(iol_dxt *x, const int slot,
                                                               iol_dxt_file **fp,
                                                               uint64_t id, const int wr,
                                                               int64_t off, int64_t len,
                                                               int64_t ns1, int64_t ns2)
{
    iol_dxt_file *f = *fp;
    if (__builtin_expect(f == NULL, 0)) {
        if ((f = iol_dxt_file_new(x, id)) == NULL)
            return;
        *fp = f;
    }
    if (__builtin_expect(f == IOL_DXT_NONE, 0))
        return;
    iol_dxt_lane *l = &f->lane[wr];
    if (__builtin_expect(l->n == l->room, 0) && !iol_dxt_grow(x, l))
        return;
    uint64_t start = (uint64_t)ns1, end = (uint64_t)ns2;
    uint8_t *base = x->base, *p = base + l->pos;
    p = iolens_dxt_put(p, iolens_dxt_delta((uint64_t)off, l->prev_end_off));
    p = iolens_dxt_put(p, iolens_dxt_delta((uint64_t)len, l->prev_len));
    p = iolens_dxt_put(p, iolens_dxt_delta(start, l->prev_end_ns));
    p = iolens_dxt_put(p, iolens_dxt_delta(end, start));
    if (__builtin_expect(x->threads, 0)) {
        uint32_t t = iol_dxt_thread[slot];
        if (__builtin_expect(t == 0, 0))
            t = iol_dxt_thread_new(x);
        p = iolens_dxt_put(p, t - 1);
    }
    if (__builtin_expect(x->regions, 0))   /* one byte 0 until the first region */
        p = iolens_dxt_put(p, __atomic_load_n(&iol_region_used, __ATOMIC_RELAXED) ? iol_dxt_region(x)
                                                                                 : 0);
    l->prev_end_off = (uint64_t)off + (uint64_t)len;
    l->prev_len = (uint64_t)len;
    l->prev_end_ns = end;
    /* Written, then published: a log written by a signal handler that interrupts
     * this thread here, or a store left by a killed process, holds whole segments
     * only (decoding takes at most n segments and never reads past pos). */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->pos = (uint64_t)(p - base);
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->n++;
}

/* The store's descriptor callbacks (dxt_posix.c, dxt_mpiio.c). */
void iol_dxt_activate(iol_module *m);
void iol_dxt_finish(iol_module *m);
size_t iol_dxt_output(iol_module *m, void **payload);
void iol_dxt_reset(iol_module *m);
uint32_t iol_dxt_version(iol_module *m);

/* The DXT_REGION module's callbacks (dxt_region.c). */
void iol_dxt_region_finish(iol_module *m);
size_t iol_dxt_region_output(iol_module *m, void **payload);
void iol_dxt_region_reset(iol_module *m);

/* The descriptor of a DXT module (dxt_posix.c, dxt_mpiio.c): modules.def's id,
 * name and version, the engine's callbacks, and memory of its own (the store). */
#define IOL_DXT_MODULE(SYM)                                                     \
    {                                                                           \
        IOL_MODULE_IDENTITY(SYM), .own_memory = 1, .activate = iol_dxt_activate, \
        .finish = iol_dxt_finish, .output = iol_dxt_output, .reset = iol_dxt_reset, \
        .out_version = iol_dxt_version,                                         \
    }

#endif
