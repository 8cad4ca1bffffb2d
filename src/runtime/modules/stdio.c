/* STDIO module (id 9, record version 2): counters of runtime spec section 2.2.
 * Streams map to records through a small open-addressing table keyed by FILE*. */
#include "stdio.h"

#include <string.h>

#include "../core/stats.h"
#include "modules.h"

#define NSTREAMS 4096
#define TOMB 0xffffffffu

typedef struct stream_ent {
    FILE *fp;
    uint32_t rec;            /* index + 1; 0 empty; TOMB removed */
} stream_ent;

static stream_ent *streams;
static iol_heatmap *heatmap;
static uint64_t std_ids[3];

static size_t stream_hash(const FILE *fp) { return ((uintptr_t)fp >> 4) & (NSTREAMS - 1); }

static stdio_rec *by_stream(iol_module *m, FILE *fp, stdio_aux **aux)
{
    if (!streams)
        return NULL;
    for (size_t s = stream_hash(fp), k = 0; k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++) {
        if (streams[s].rec == 0)
            return NULL;
        if (streams[s].rec != TOMB && streams[s].fp == fp) {
            *aux = (stdio_aux *)m->aux + (streams[s].rec - 1);
            return (stdio_rec *)m->recs + (streams[s].rec - 1);
        }
    }
    return NULL;
}

static void unmap_stream(FILE *fp)
{
    for (size_t s = stream_hash(fp), k = 0; streams && k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++) {
        if (streams[s].rec == 0)
            return;
        if (streams[s].rec != TOMB && streams[s].fp == fp) {
            streams[s].rec = TOMB;
            return;
        }
    }
}

/* Newest mapping wins: an old entry for the same FILE* is replaced. */
static void map_stream(iol_module *m, FILE *fp, stdio_rec *r)
{
    unmap_stream(fp);
    for (size_t s = stream_hash(fp), k = 0; streams && k < NSTREAMS; s = (s + 1) & (NSTREAMS - 1), k++)
        if (streams[s].rec == 0 || streams[s].rec == TOMB) {
            streams[s].fp = fp;
            streams[s].rec = (uint32_t)(iol_rec_index(m, r) + 1);
            return;
        }
    iol_fail(IOL_FAIL_STREAMS);
}

static stdio_rec *by_name(iol_module *m, const char *clean, stdio_aux **aux)
{
    uint64_t id = iol_name_id(clean);
    void *a;
    stdio_rec *r = iol_rec_find(m, id, &a);
    if (!r)
        r = iol_rec_register(m, clean, id, &a);
    *aux = a;
    return r;
}

/* The standard streams exist from the start, with one open and no timestamps. */
static void activate(iol_module *m)
{
    static const char *const names[3] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
    FILE *const fps[3] = {stdin, stdout, stderr};
    streams = iol_map(NSTREAMS * sizeof *streams);
    heatmap = iol_heatmap_register("STDIO");
    for (int i = 0; i < 3; i++) {
        stdio_aux *a;
        std_ids[i] = iol_name_id(names[i]);
        stdio_rec *r = by_name(m, names[i], &a);
        if (r) {
            r->c[STDIO_OPENS] = 1;
            map_stream(m, fps[i], r);
        }
    }
}

static void reset(iol_module *m)
{
    iol_unmap(streams, NSTREAMS * sizeof *streams);
    streams = NULL;
    heatmap = NULL;
}

int iol_stdio_stream_name(FILE *fp, char *out, size_t len)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return -1;
    stdio_aux *a;
    stdio_rec *r = by_stream(m, fp, &a);
    const char *name = r ? iol_name_of(r->id) : NULL;
    if (name)
        snprintf(out, len, "%s", name);
    iol_mod_leave(m);
    return name ? 0 : -1;
}

static void opened(iol_module *m, FILE *fp, stdio_rec *r, stdio_aux *a, double t1, double t2)
{
    map_stream(m, fp, r);
    r->c[STDIO_OPENS]++;
    iol_stamp(&r->f[STDIO_F_OPEN_START_TIMESTAMP], &r->f[STDIO_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
}

void iol_stdio_open(FILE *fp, const char *path, double t1, double t2)
{
    char clean[IOL_PATH_LEN];
    iol_clean_path(path, clean, sizeof clean);
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return;
    stdio_aux *a;
    stdio_rec *r = by_name(m, clean, &a);
    if (r) {
        a->offset = 0;
        opened(m, fp, r, a, t1, t2);
    }
    iol_mod_leave(m);
}

/* Recorded only when POSIX tracks the descriptor: the name comes from there. */
void iol_stdio_fdopen(FILE *fp, int fd, double t1, double t2)
{
    char name[IOL_PATH_LEN];
    if (iol_posix_fd_name(fd, name, sizeof name) != 0)
        return;
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return;
    stdio_aux *a;
    stdio_rec *r = by_name(m, name, &a);
    if (r) {
        r->c[STDIO_FDOPENS]++;
        opened(m, fp, r, a, t1, t2);
    }
    iol_mod_leave(m);
}

/* fclose is split around the real call, as POSIX close is: the FILE* may be
 * handed out again by another thread's fopen as soon as the real fclose frees
 * it, so the mapping goes first and the close is recorded on the remembered
 * record.  Returns the record index + 1, or 0. */
size_t iol_stdio_close_begin(FILE *fp)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return 0;
    stdio_aux *a;
    stdio_rec *r = by_stream(m, fp, &a);
    size_t idx = r ? iol_rec_index(m, r) + 1 : 0;
    if (r)
        unmap_stream(fp);
    iol_mod_leave(m);
    return idx;
}

void iol_stdio_close_end(size_t idx, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!idx || !iol_mod_enter(m))
        return;
    stdio_rec *r = (stdio_rec *)m->recs + (idx - 1);
    stdio_aux *a = (stdio_aux *)m->aux + (idx - 1);
    iol_stamp(&r->f[STDIO_F_CLOSE_START_TIMESTAMP], &r->f[STDIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_mod_leave(m);
}

void iol_stdio_io(FILE *fp, int kind, int64_t bytes, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return;
    stdio_aux *a;
    stdio_rec *r = by_stream(m, fp, &a);
    if (!r) {
        iol_mod_leave(m);
        return;
    }
    int64_t *c = r->c;
    double *f = r->f;
    int wr = kind != 0;
    if (kind == 2)
        c[STDIO_FLUSHES]++;
    else
        c[wr ? STDIO_WRITES : STDIO_READS]++;
    c[wr ? STDIO_BYTES_WRITTEN : STDIO_BYTES_READ] += bytes;
    int64_t *maxb = &c[wr ? STDIO_MAX_BYTE_WRITTEN : STDIO_MAX_BYTE_READ];
    if (a->offset + bytes - 1 > *maxb)
        *maxb = a->offset + bytes - 1;
    a->offset += bytes;
    if (wr) {
        iol_stamp(&f[STDIO_F_WRITE_START_TIMESTAMP], &f[STDIO_F_WRITE_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[STDIO_F_WRITE_TIME], &a->last_write_end, t1, t2);
    } else {
        iol_stamp(&f[STDIO_F_READ_START_TIMESTAMP], &f[STDIO_F_READ_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[STDIO_F_READ_TIME], &a->last_read_end, t1, t2);
    }
    iol_heatmap_update(heatmap, t1, t2, bytes, wr);
    iol_mod_leave(m);
}

void iol_stdio_seek(FILE *fp, int64_t pos, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_STDIO);
    if (!iol_mod_enter(m))
        return;
    stdio_aux *a;
    stdio_rec *r = by_stream(m, fp, &a);
    if (r) {
        a->offset = pos;
        r->c[STDIO_SEEKS]++;
        iol_time_add(&r->f[STDIO_F_META_TIME], &a->last_meta_end, t1, t2);
    }
    iol_mod_leave(m);
}

/* The standard streams are dropped unless they were read or written. */
static size_t output(iol_module *m, void **payload)
{
    stdio_rec *recs = (stdio_rec *)m->recs;
    size_t k = 0;
    for (size_t i = 0; i < m->count; i++) {
        stdio_rec *r = &recs[i];
        int std = r->id == std_ids[0] || r->id == std_ids[1] || r->id == std_ids[2];
        if (std && r->c[STDIO_READS] == 0 && r->c[STDIO_WRITES] == 0)
            continue;
        if (k != i)
            recs[k] = *r;
        k++;
    }
    *payload = recs;
    return k * sizeof *recs;
}

const iol_module_desc iol_stdio_module = {
    .id = IOL_MOD_STDIO,
    .name = "STDIO",
    .version = 2,
    .rec_size = sizeof(stdio_rec),
    .aux_size = sizeof(stdio_aux),
    .default_records = 1024,
    .path_names = 1,
    .activate = activate,
    .output = output,
    .reset = reset,
};
