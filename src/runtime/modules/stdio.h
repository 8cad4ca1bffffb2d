/* STDIO module: record layout and the record functions its wrappers call. */
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
    stdio_rec *rec;
    int64_t offset;          /* our own offset, shared by reads and writes */
    double last_meta_end, last_read_end, last_write_end;
} stdio_aux;

/* Each function takes the module lock itself and leaves errno as it found it;
 * `sp` holds the clock readings around the real call. */
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
 * by FILE*; the state shared with stdio.c: */
#define IOL_STDIO_NSTREAMS 4096
#define IOL_STDIO_TOMB ((stdio_aux *)1)
typedef struct iol_stdio_stream {
    FILE *fp;
    stdio_aux *a;            /* NULL empty; IOL_STDIO_TOMB removed */
} iol_stdio_stream;
typedef struct iol_stdio_state {
    iol_stdio_stream *streams;   /* entries under the module lock; the pointer is also
                                    read without it (atomically) to learn whether
                                    the module is active */
    iol_heatmap *heatmap;        /* per-thread bins (heatmap.h) */
} iol_stdio_state;
extern iol_stdio_state iol_stdio_st __attribute__((visibility("hidden")));

/* First use from a stream path: activate (as any call does), keeping errno. */
void iol_stdio_first_use(void);

/* The whole linear probe, from fp's home slot (stdio.c; lock held). */
iol_stdio_stream *iol_stdio_find_probe(iol_stdio_stream *t, FILE *fp);

/* The table slot of fp in table t (lock held), or NULL.  Inline: the first probe,
 * which finds nearly every stream (a few open streams in 4096 slots). */
static inline iol_stdio_stream *iol_stdio_find_in(iol_stdio_stream *t, FILE *fp)
{
    iol_stdio_stream *e = &t[((uintptr_t)fp >> 4) & (IOL_STDIO_NSTREAMS - 1)];
    if (__builtin_expect(e->fp == fp && (uintptr_t)e->a > (uintptr_t)IOL_STDIO_TOMB, 1))
        return e;
    return iol_stdio_find_probe(t, fp);
}
static inline iol_stdio_stream *iol_stdio_find(FILE *fp)
{
    iol_stdio_stream *t = iol_stdio_st.streams;
    return t ? iol_stdio_find_in(t, fp) : NULL;
}

/* Lock the module for an event on fp.  Returns the stream's slot with the lock
 * held, or NULL (lock not held) when the module is off or fp untracked. */
static inline __attribute__((always_inline)) iol_stdio_stream *iol_stdio_enter(FILE *fp)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    /* The table, once set, stays until a fork child resets the module.  It is set
     * by activate, after the module's state became 1: with a table, the module
     * exists and is active unless frozen (checked under the lock), so
     * iol_mod_enter's other tests are not needed here. */
    iol_stdio_stream *t = __atomic_load_n(&iol_stdio_st.streams, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t == NULL, 0)) {
        iol_stdio_first_use();
        t = __atomic_load_n(&iol_stdio_st.streams, __ATOMIC_ACQUIRE);
        if (!t)
            return NULL;
    }
    if (!iol_trylock_own(&m->lock))
        return NULL;
    iol_stdio_stream *e = NULL;
    if (__builtin_expect(m->state == 1 && !m->frozen, 1))
        e = iol_stdio_find_in(t, fp);
    if (!e)
        iol_mod_leave(m);
    return e;
}

/* One read (kind 0), write (1) or flush (2: a 0-byte write counted as a flush);
 * always inlined with a constant kind. */
static inline __attribute__((always_inline)) void iol_stdio_io(FILE *fp, const int kind,
                                                               int64_t bytes, const iol_span *sp)
{
    iol_stdio_stream *e = iol_stdio_enter(fp);
    if (!e)
        return;
    stdio_aux *a = e->a;
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
    iol_mod_leave(iol_mod(IOL_MOD_STDIO));
}

extern const iol_module_desc iol_stdio_module;
#endif
