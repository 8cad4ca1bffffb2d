/* STDIO module (id 9, record version 2): counters of runtime spec section 2.2.
 * Streams map to records through the table of stdio.h (keyed by FILE*).
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

/* The rest of iol_stdio_find_in's linear probe (lock held). */
iol_stdio_stream *iol_stdio_find_probe(iol_stdio_stream *t, FILE *fp)
{
    for (size_t s = stream_hash(fp), k = 0; k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++) {
        if (t[s].fp == fp && t[s].a != TOMB && t[s].a)
            return &t[s];
        if (!t[s].a)
            return NULL;
    }
    return NULL;
}

/* Newest mapping wins: an old entry for the same FILE* is replaced. */
static void map_stream(FILE *fp, stdio_aux *a)
{
    iol_stdio_stream *old = iol_stdio_find(fp);
    if (old) {
        old->a = a;
        return;
    }
    iol_stdio_stream *t = iol_stdio_st.streams;
    for (size_t s = stream_hash(fp), k = 0; t && k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++)
        if (!t[s].a || t[s].a == TOMB) {
            t[s].fp = fp;
            t[s].a = a;
            return;
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
    iol_stdio_stream *e = iol_stdio_enter(fp);
    if (!e)
        return -1;
    const char *name = iol_name_of(e->a->rec->id);
    if (name)
        snprintf(out, len, "%s", name);
    iol_mod_leave(stdio_mod());
    return name ? 0 : -1;
}

static void opened(FILE *fp, stdio_aux *a, const iol_span *sp)
{
    stdio_rec *r = a->rec;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    map_stream(fp, a);
    r->c[STDIO_OPENS]++;
    iol_stamp(&r->f[STDIO_F_OPEN_START_TIMESTAMP], &r->f[STDIO_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
}

void iol_stdio_open(FILE *fp, const char *path, const iol_span *sp)
{
    int e = errno;
    void *av;
    if (iol_rec_enter_path(stdio_mod(), path, &av)) {
        stdio_aux *a = av;
        a->offset = 0;
        opened(fp, a, sp);
        iol_mod_leave(stdio_mod());
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
        stdio_aux *a = by_name(m, name, iol_name_id(name));
        if (a) {
            a->rec->c[STDIO_FDOPENS]++;
            opened(fp, a, sp);
        }
        iol_mod_leave(m);
    }
    errno = e;
}

/* fclose is split around the real call, as POSIX close is: the FILE* may be
 * handed out again by another thread's fopen as soon as the real fclose frees
 * it, so the mapping goes first and the close is recorded on the remembered
 * record (its aux, valid while the module is not frozen). */
uintptr_t iol_stdio_close_begin(FILE *fp)
{
    iol_stdio_stream *e = iol_stdio_enter(fp);
    if (!e)
        return 0;
    stdio_aux *a = e->a;
    e->a = TOMB;
    iol_mod_leave(stdio_mod());
    return (uintptr_t)a;
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
    iol_module *m = stdio_mod();
    if (!handle || !iol_mod_enter(m))
        return;
    stdio_aux *a = (stdio_aux *)handle;
    stdio_rec *r = a->rec;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_stamp(&r->f[STDIO_F_CLOSE_START_TIMESTAMP], &r->f[STDIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_mod_leave(m);
}

void iol_stdio_flush(FILE *fp, const iol_span *sp) { iol_stdio_io(fp, 2, 0, sp); }

void iol_stdio_seek(FILE *fp, int64_t pos, const iol_span *sp)
{
    iol_stdio_stream *e = iol_stdio_enter(fp);
    if (!e)
        return;
    stdio_aux *a = e->a;
    a->offset = pos;
    a->rec->c[STDIO_SEEKS]++;
    iol_time_add_span(&a->rec->f[STDIO_F_META_TIME], &a->last_meta_end, sp);
    iol_mod_leave(stdio_mod());
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
    .rec_init = rec_init,
    .setup = setup,
    .activate = activate,
    .output = output,
    .reset = reset,
};
