/* STDIO module (id 9, record version 2): counters of runtime spec section 2.2.
 * Streams map to records through the table of stdio.h (keyed by FILE*, read
 * without a lock); each record has its own lock (stdio_aux.lock).
 *
 * errno: as in posix.c, the stream paths (read, write, flush, seek, close) call
 * nothing that can set errno once the module is active; first use and the name
 * paths (fopen, fdopen) save it. */
#include "stdio.h"

#include <errno.h>
#include <string.h>

#include "../wrappers/real.h"
#include "lustre.h"
#include "modules.h"

#define NSTREAMS IOL_STDIO_NSTREAMS
#define TOMB IOL_STDIO_TOMB

iol_stdio_state iol_stdio_st;


static inline size_t stream_hash(const FILE *fp) { return ((uintptr_t)fp >> 4) & (NSTREAMS - 1); }

/* The linear probes of stdio.h (no lock; the slot contract is there). */
iol_stdio_stream *iol_stdio_find_slot(iol_stdio_stream *t, FILE *fp, stdio_aux **ap)
{
    for (size_t s = stream_hash(fp), k = 0; k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++) {
        stdio_aux *a = __atomic_load_n(&t[s].a, __ATOMIC_ACQUIRE);
        if (!a)
            return NULL;
        if (a != TOMB && __atomic_load_n(&t[s].fp, __ATOMIC_RELAXED) == fp) {
            *ap = a;
            return &t[s];
        }
    }
    return NULL;
}

stdio_aux *iol_stdio_find_probe(iol_stdio_stream *t, FILE *fp)
{
    stdio_aux *a;
    return iol_stdio_find_slot(t, fp, &a) ? a : NULL;
}

/* Newest mapping wins: a live slot of the same FILE* gets the new record (module
 * lock held: the writers of the table take turns; stdio.h has the contract). */
static void map_stream(FILE *fp, stdio_aux *a)
{
    iol_stdio_stream *t = iol_stdio_st.streams;
    stdio_aux *old;
    iol_stdio_stream *e = t ? iol_stdio_find_slot(t, fp, &old) : NULL;
    if (e) {
        __atomic_store_n(&e->a, a, __ATOMIC_RELEASE);
        return;
    }
    for (size_t s = stream_hash(fp), k = 0; t && k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++) {
        stdio_aux *v = __atomic_load_n(&t[s].a, __ATOMIC_RELAXED);
        if (!v || v == TOMB) {
            __atomic_store_n(&t[s].fp, fp, __ATOMIC_RELAXED);
            __atomic_store_n(&t[s].a, a, __ATOMIC_RELEASE);
            return;
        }
    }
    iol_fail(IOL_FAIL_STREAMS);
}

/* The record of a cleaned name (lock held), or NULL. */
static stdio_aux *by_name(iol_module *m, const char *name, uint64_t id)
{
    void *a;
    return iol_rec_get(m, name, id, &a) ? a : NULL;
}

static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    ((stdio_aux *)aux)->rec = rec;
}

/* The standard streams exist from the start, with one open and no timestamps. */
static void activate(iol_module *m)
{
    static const char *const names[3] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
    FILE *const fps[3] = {stdin, stdout, stderr};
    iol_stdio_stream *tab = iol_map(NSTREAMS * sizeof *tab);
    if (!tab)                          /* I/O by stream goes unrecorded */
        iol_partial_set(IOL_MOD_STDIO);
    iol_stdio_st.heatmap = iol_heatmap_register("STDIO", IOL_HM_SLOT_STDIO);
    __atomic_store_n(&iol_stdio_st.streams, tab, __ATOMIC_RELEASE);
    for (int i = 0; i < 3; i++) {
        stdio_aux *a = by_name(m, names[i], iol_name_id(names[i]));
        if (a) {
            a->rec->c[STDIO_OPENS] = 1;
            map_stream(fps[i], a);
        }
    }
}

static void reset(iol_module *m)
{
    iol_unmap(iol_stdio_st.streams, NSTREAMS * sizeof *iol_stdio_st.streams);
    __atomic_store_n(&iol_stdio_st.streams, NULL, __ATOMIC_RELAXED);
    iol_stdio_st.heatmap = NULL;
}

/* ------------------------------------------------------------ entering */
static inline iol_module *stdio_mod(void) { return iol_mod(IOL_MOD_STDIO); }

/* Out of line: runs once (or on every call while the module is off). */
__attribute__((noinline)) void iol_stdio_first_use(void)
{
    int e = errno;
    iol_module *m = stdio_mod();
    if (iol_mod_enter(m))
        iol_mod_leave(m);
    errno = e;
}

int iol_stdio_stream_name(FILE *fp, char *out, size_t len)
{
    stdio_aux *a = iol_stdio_enter(fp);
    if (!a)
        return -1;
    const char *name = iol_name_of(a->rec->id);   /* (order: record -> names) */
    if (name)
        snprintf(out, len, "%s", name);
    iol_stdio_leave(a);
    return name ? 0 : -1;
}

/* Both locks held (module: the table; record: its counters). */
static void opened(FILE *fp, stdio_aux *a, const iol_span *sp)
{
    stdio_rec *r = a->rec;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    map_stream(fp, a);
    r->c[STDIO_OPENS]++;
    iol_stamp(&r->f[STDIO_F_OPEN_START_TIMESTAMP], &r->f[STDIO_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_STDIO, IOL_REGION_META, 0, t1, t2);
}

/* With the module lock held and a record's aux (or NULL): the record's lock as
 * well (rt.h iol_rec_lock_in_mod; another stream of the same file may be
 * updating it).  Returns a with both locks held, or NULL with neither. */
static stdio_aux *to_record(iol_module *m, stdio_aux *a)
{
    if (!a) {
        iol_mod_leave(m);
        return NULL;
    }
    return iol_rec_lock_in_mod(m, &a->lock) ? a : NULL;
}

void iol_stdio_open(FILE *fp, const char *path, const iol_span *sp)
{
    int e = errno;
    void *av = NULL;
    iol_module *m = stdio_mod();
    iol_rec_enter_path(m, path, &av);   /* sets av only with the record (lock held) */
    stdio_aux *a = av ? to_record(m, av) : NULL;
    if (a) {
        a->offset = 0;
        opened(fp, a, sp);
        iol_rec_leave_mod(m, &a->lock);
    }
    errno = e;
}

/* Recorded only when POSIX tracks the descriptor: the name comes from there. */
void iol_stdio_fdopen(FILE *fp, int fd, const iol_span *sp)
{
    int e = errno;
    char name[IOL_PATH_LEN];
    iol_module *m = stdio_mod();
    if (iol_posix_fd_name(fd, name, sizeof name) == 0 && iol_mod_enter(m)) {
        stdio_aux *a = to_record(m, by_name(m, name, iol_name_id(name)));
        if (a) {
            a->rec->c[STDIO_FDOPENS]++;
            opened(fp, a, sp);
            iol_rec_leave_mod(m, &a->lock);
        }
    }
    errno = e;
}

/* fclose is split around the real call, as POSIX close is: the FILE* may be
 * handed out again by another thread's fopen as soon as the real fclose frees
 * it, so the mapping goes first, with one exchange and no lock (stdio.h), and
 * the close is recorded on the remembered record (its aux, valid while the
 * module is not frozen) under the record's lock.  A removal after shutdown has
 * frozen the module is harmless. */
uintptr_t iol_stdio_close_begin(FILE *fp)
{
    iol_stdio_stream *t = iol_stdio_table();
    stdio_aux *a;
    iol_stdio_stream *e = t ? iol_stdio_find_slot(t, fp, &a) : NULL;
    if (!e)
        return 0;
    a = __atomic_exchange_n(&e->a, TOMB, __ATOMIC_ACQ_REL);
    return (uintptr_t)a > (uintptr_t)TOMB ? (uintptr_t)a : 0;   /* (a racing fclose: 0) */
}

/* On a Lustre node: the layout is read while the stream's fd is still open. */
static uintptr_t close_begin_lustre(FILE *fp)
{
    uintptr_t a = iol_stdio_close_begin(fp);
    if (a)
        iol_lustre_closing(IOL_REAL(fileno)(fp), ((stdio_aux *)a)->rec->id);
    return a;
}

uintptr_t (*iol_stdio_close_begin_fn)(FILE *fp) = iol_stdio_close_begin;

static void setup(iol_module *m)
{
    (void)m;
    int lustre = __atomic_load_n(&iol_close_extras, __ATOMIC_RELAXED) & IOL_CLOSE_LUSTRE;
    iol_stdio_close_begin_fn = lustre ? close_begin_lustre : iol_stdio_close_begin;
}

void iol_stdio_close_end(uintptr_t handle, const iol_span *sp)
{
    stdio_aux *a = (stdio_aux *)handle;
    if (!handle || !iol_rec_lock(stdio_mod(), &a->lock))
        return;
    stdio_rec *r = a->rec;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_stamp(&r->f[STDIO_F_CLOSE_START_TIMESTAMP], &r->f[STDIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_STDIO, IOL_REGION_META, 0, t1, t2);
    iol_stdio_leave(a);
}

void iol_stdio_flush(FILE *fp, const iol_span *sp) { iol_stdio_io(fp, 2, 0, sp); }

void iol_stdio_seek(FILE *fp, int64_t pos, const iol_span *sp)
{
    stdio_aux *a = iol_stdio_enter(fp);
    if (!a)
        return;
    a->offset = pos;
    a->rec->c[STDIO_SEEKS]++;
    iol_time_add_span(&a->rec->f[STDIO_F_META_TIME], &a->last_meta_end, sp);
    iol_region_io_span(IOL_REGION_STDIO, IOL_REGION_META, 0, sp);
    iol_stdio_leave(a);
}

/* The standard streams are dropped unless they were read or written. */
static size_t output(iol_module *m, void **payload)
{
    stdio_rec *recs = (stdio_rec *)m->recs;
    size_t k = 0;
    for (size_t i = 0; i < m->count; i++) {
        stdio_rec *r = &recs[i];
        if (iolens_stdio_idle_std_stream(r->id, r->c[STDIO_READS], r->c[STDIO_WRITES]))
            continue;
        if (k != i)
            recs[k] = *r;
        k++;
    }
    *payload = recs;
    return k * sizeof *recs;
}

const iol_module_desc iol_stdio_module = {
    IOL_MODULE_IDENTITY(STDIO),
    .rec_size = sizeof(stdio_rec),
    .aux_size = sizeof(stdio_aux),
    .default_records = 1024,
    .path_names = 1,
    .rec_locks = 1,
    .rec_init = rec_init,
    .setup = setup,
    .activate = activate,
    .output = output,
    .reset = reset,
};
