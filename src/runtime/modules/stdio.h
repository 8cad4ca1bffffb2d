/* STDIO module: record layout and the record functions its wrappers call.
 * Records have locks of their own (rt.h iol_rec_lock), as POSIX's: an event on
 * a known stream takes only its record's lock, found through the lock-free
 * stream table below; the module lock is left to finding and registering
 * records (fopen, fdopen, freopen) and to filling the table. */
#ifndef IOLENS_RUNTIME_STDIO_H
#define IOLENS_RUNTIME_STDIO_H

#include "../wrappers/real.h"
#include "../core/rt.h"
#include "../core/stats.h"
#include "heatmap.h"

typedef struct stdio_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[STDIO_NUM_INDICES];
    double f[STDIO_F_NUM_INDICES];
} stdio_rec;
IOL_ASSERT_RECORD_LAYOUT(stdio_rec, STDIO);

/* Runtime-only state per record; `rec` as in posix.h (records do not move while
 * the module is active). */
typedef struct stdio_aux {
    IOL_REC_HEAD;            /* lock and sequence word (rt.h): first */
    stdio_rec *rec;
    int64_t offset;          /* our own offset, shared by reads and writes */
    double last_meta_end, last_read_end, last_write_end;
} __attribute__((aligned(64))) stdio_aux;   /* two records' locks never share a line */
IOL_REC_HEAD_CHECK(stdio_aux);

/* Each function takes the locks it needs itself (an event on a known stream:
 * only its record's lock) and leaves errno as it found it; `sp` holds the clock
 * readings around the real call. */
void iol_stdio_open(FILE *fp, const char *path, const iol_span *sp);
void iol_stdio_fdopen(FILE *fp, int fd, const iol_span *sp);
/* fclose is split around the real call; begin returns a handle for end (0 when
 * the stream is not tracked). */
uintptr_t iol_stdio_close_begin(FILE *fp);
/* What fclose calls to begin: iol_stdio_close_begin, or on a node that mounts
 * Lustre that and the LUSTRE module's layout query (chosen at init by the
 * module's setup; an indirect call costs what the direct one did, so fclose on
 * other nodes pays nothing for the LUSTRE module). */
extern uintptr_t (*iol_stdio_close_begin_fn)(FILE *fp) __attribute__((visibility("hidden")));
void iol_stdio_close_end(uintptr_t handle, const iol_span *sp);
/* fflush: a 0-byte write that counts as a flush. */
void iol_stdio_flush(FILE *fp, const iol_span *sp);
/* pos: the stream position after the seek (taken by the caller, outside the lock). */
void iol_stdio_seek(FILE *fp, int64_t pos, const iol_span *sp);


/* ------------------------------------------------------------ inline stream paths
 * Reads and writes are recorded by code inlined into their wrappers (as POSIX's,
 * see posix.h).  Streams map to records through an open-addressing table keyed
 * by FILE*, read without any lock.  The contract of a slot:
 *   - `a` is NULL (empty: ends a probe), IOL_STDIO_TOMB (removed: a probe goes
 *     on) or the aux of the stream `fp`'s record;
 *   - a slot is filled (fopen, fdopen, freopen; under the module lock, which
 *     orders the writers) only while its `a` is NULL or TOMB: `fp` first, then
 *     `a` with release; a stream that is mapped already gets its new `a` in
 *     place (release), so a FILE* is in at most one live slot;
 *   - fclose removes its slot with one exchange of `a` to TOMB (no lock: the
 *     stream is still open, so no other thread maps this FILE* now);
 *   - readers load `a` with acquire and then `fp`: a live `a` so read comes with
 *     the `fp` written before it.  A slot being refilled for another stream
 *     between the two loads only shows a foreign `fp`, which does not match: a
 *     stream in use was mapped (by its opener, before fopen returned) before
 *     any thread could use it, and its live slot comes first on its probe
 *     chain (it took the first free slot there, and a removed slot of an
 *     earlier stream at the same address, the only other slot that can hold
 *     its `fp`, lies further on).
 * The state shared with stdio.c: */
#define IOL_STDIO_NSTREAMS 4096
#define IOL_STDIO_TOMB ((stdio_aux *)1)
typedef struct iol_stdio_stream {
    FILE *fp;
    stdio_aux *a;            /* NULL empty; IOL_STDIO_TOMB removed */
} iol_stdio_stream;
typedef struct iol_stdio_state {
    iol_stdio_stream *streams;   /* the table (above); the pointer is also read
                                    (acquire) to learn whether the module is active */
    iol_heatmap *heatmap;        /* per-thread bins (heatmap.h) */
} iol_stdio_state;
extern iol_stdio_state iol_stdio_st __attribute__((visibility("hidden")));

/* First use from a stream path: activate (as any call does), keeping errno. */
void iol_stdio_first_use(void);

/* The whole linear probe, from fp's home slot (stdio.c; no lock needed): the
 * live slot of fp, *a its aux as loaded, or NULL. */
iol_stdio_stream *iol_stdio_find_slot(iol_stdio_stream *t, FILE *fp, stdio_aux **a);
/* The same, for the aux alone (the rest of iol_stdio_find's probe). */
stdio_aux *iol_stdio_find_probe(iol_stdio_stream *t, FILE *fp);

/* The aux of fp's live slot in table t (no lock needed), or NULL.  Inline: the
 * first probe, which finds nearly every stream (a few open streams in 4096
 * slots). */
static inline __attribute__((always_inline)) stdio_aux *iol_stdio_find(iol_stdio_stream *t,
                                                                       FILE *fp)
{
    iol_stdio_stream *e = &t[((uintptr_t)fp >> 4) & (IOL_STDIO_NSTREAMS - 1)];
    stdio_aux *a = __atomic_load_n(&e->a, __ATOMIC_ACQUIRE);
    if (__builtin_expect((uintptr_t)a > (uintptr_t)IOL_STDIO_TOMB &&
                         __atomic_load_n(&e->fp, __ATOMIC_RELAXED) == fp, 1))
        return a;
    return iol_stdio_find_probe(t, fp);
}

/* The stream table, activating the module at the first call; NULL when the
 * module is off.  The table, once set, stays until a fork child resets the
 * module.  It is set by activate, after the module's state became 1: with a
 * table, the module exists and is active unless frozen (iol_rec_lock tests it),
 * so iol_mod_enter's other tests are not needed on the stream paths. */
static inline __attribute__((always_inline)) iol_stdio_stream *iol_stdio_table(void)
{
    iol_stdio_stream *t = __atomic_load_n(&iol_stdio_st.streams, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t == NULL, 0)) {
        iol_stdio_first_use();
        t = __atomic_load_n(&iol_stdio_st.streams, __ATOMIC_ACQUIRE);
    }
    return t;
}

/* Lock the record of fp for an event on it.  Returns its aux with the record's
 * lock held (leave with iol_stdio_leave), or NULL (no lock held) when the module
 * is off or frozen, or fp untracked. */
static inline __attribute__((always_inline)) stdio_aux *iol_stdio_enter(FILE *fp)
{
    iol_stdio_stream *t = iol_stdio_table();
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    stdio_aux *a = iol_stdio_find(t, fp);
    if (__builtin_expect(a == NULL, 0) || !iol_rec_lock(iol_mod(IOL_MOD_STDIO), &a->lock))
        return NULL;
    return a;
}
static inline void iol_stdio_leave(stdio_aux *a) { iol_rec_unlock(&a->lock); }

/* One read (kind 0), write (1) or flush (2: a 0-byte write counted as a flush);
 * always inlined with a constant kind. */
static inline __attribute__((always_inline)) void iol_stdio_io(FILE *fp, const int kind,
                                                               int64_t bytes, const iol_span *sp)
{
    stdio_aux *a = iol_stdio_enter(fp);
    if (!a)
        return;
    stdio_rec *r = a->rec;
    int64_t *c = r->c;
    double *f = r->f;
    const int wr = kind != 0;
    double t1, t2;
    iol_span_sec_hot(sp, &t1, &t2);
    c[kind == 2 ? STDIO_FLUSHES : wr ? STDIO_WRITES : STDIO_READS]++;
    c[wr ? STDIO_BYTES_WRITTEN : STDIO_BYTES_READ] += bytes;
    int64_t end = a->offset + bytes - 1;
    int64_t *maxb = &c[wr ? STDIO_MAX_BYTE_WRITTEN : STDIO_MAX_BYTE_READ];
    if (end > *maxb)
        *maxb = end;
    a->offset += bytes;
    if (wr) {
        iol_stamp(&f[STDIO_F_WRITE_START_TIMESTAMP], &f[STDIO_F_WRITE_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[STDIO_F_WRITE_TIME], &a->last_write_end, t1, t2);
    } else {
        iol_stamp(&f[STDIO_F_READ_START_TIMESTAMP], &f[STDIO_F_READ_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[STDIO_F_READ_TIME], &a->last_read_end, t1, t2);
    }
    if (kind != 2)
        iol_hm_add(iol_stdio_st.heatmap, IOL_HM_SLOT_STDIO, t1, t2, bytes, wr);
    iol_stdio_leave(a);
}

extern const iol_module_desc iol_stdio_module;
#endif
