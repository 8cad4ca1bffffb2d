/* DXT tracing engine (runtime spec section 5): per-operation segments of one
 * traced API, kept for DXT_POSIX (posix.c) and DXT_MPIIO (mpiio.c).  The two
 * modules are this one engine with two stores; their descriptors are in
 * dxt_posix.c and dxt_mpiio.c.
 *
 * Locking: a store is written only by the module it traces (POSIX, MPI-IO), under
 * that module's lock, so the data path takes no lock of its own (as a heatmap).
 * Shutdown (triggers, output) runs after every module is frozen, on one thread.
 *
 * Memory: each store has a budget outside MODMEM, charged as upstream charges it
 * (104 bytes per traced file; per file and direction 64 segments, then doubling,
 * capped to what is left), so that a trace is cut at the same operation.  The
 * bytes come from one mapping made at activation: twice the budget of address
 * space, of which only the pages used become resident; nothing is allocated while
 * a wrapper runs.  When the budget is spent, later segments are dropped, the
 * module's partial bit is set, and what was kept is the beginning of each trace. */
#ifndef IOLENS_RUNTIME_DXT_H
#define IOLENS_RUNTIME_DXT_H

#include <stdint.h>

#include "../core/rt.h"

/* One segment as the log stores it for DXT_POSIX v1 and DXT_MPIIO v2 (the 3.5.0
 * release's versions, which released readers accept): 32 bytes, no thread id. */
typedef struct iol_dxt_seg {
    int64_t offset, length;
    double start, end;
} iol_dxt_seg;

typedef struct iol_dxt_chunk iol_dxt_chunk;

/* The segments of one file in one direction: a list of chunks, appended at pos. */
typedef struct iol_dxt_lane {
    iol_dxt_seg *pos, *end;      /* free part of the last chunk */
    iol_dxt_chunk *first, *last;
    int64_t room;                /* segments granted so far (upstream's accounting) */
} iol_dxt_lane;

typedef struct iol_dxt_file {
    uint64_t id;
    struct iol_dxt_file *next;   /* creation order (the order of the log) */
    int dropped;                 /* removed by a trigger at shutdown */
    iol_dxt_lane lane[2];        /* 0 read, 1 write */
} iol_dxt_file;

typedef struct iol_dxt iol_dxt;

/* A file whose trace is never kept (name excluded, no memory left): stored in
 * the caller's per-file pointer so the decision is made once. */
#define IOL_DXT_NONE ((iol_dxt_file *)1)

/* The store of DXT module `modid` (IOL_MOD_DXT_POSIX or IOL_MOD_DXT_MPIIO), made
 * ready for the traced module: NULL when tracing is off.  Called from the traced
 * module's activation, with its lock held (order: traced module -> DXT module). */
iol_dxt *iol_dxt_attach(int modid);

/* Out of line: the first segment of a file, and a full chunk. */
iol_dxt_file *iol_dxt_file_new(iol_dxt *x, uint64_t id);
int iol_dxt_grow(iol_dxt *x, iol_dxt_lane *l);

/* Record one operation of the file whose state pointer is *fp (NULL before its
 * first traced operation).  Lock of the traced module held. */
static inline __attribute__((always_inline)) void iol_dxt_add(iol_dxt *x, iol_dxt_file **fp,
                                                               uint64_t id, const int wr,
                                                               int64_t off, int64_t len,
                                                               double t1, double t2)
{
    iol_dxt_file *f = *fp;
    if (__builtin_expect(f == NULL, 0))
        *fp = f = iol_dxt_file_new(x, id);
    if (__builtin_expect(f == IOL_DXT_NONE, 0))
        return;
    iol_dxt_lane *l = &f->lane[wr];
    if (__builtin_expect(l->pos == l->end, 0) && !iol_dxt_grow(x, l))
        return;
    /* Filled, then published: a log written by a signal handler that interrupts
     * this thread here holds whole segments only. */
    iol_dxt_seg *s = l->pos;
    s->offset = off;
    s->length = len;
    s->start = t1;
    s->end = t2;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->pos = s + 1;
}

/* The store's descriptor callbacks (dxt_posix.c, dxt_mpiio.c). */
void iol_dxt_activate(iol_module *m);
void iol_dxt_finish(iol_module *m);
size_t iol_dxt_output(iol_module *m, void **payload);
void iol_dxt_reset(iol_module *m);

#endif
