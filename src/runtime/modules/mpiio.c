/* MPI-IO module: record logic (runtime spec 2.3).  Handles map to records through
 * an open-addressing table keyed by the MPI_File value; the module lock guards it. */
#include "mpiio.h"

#include <ctype.h>
#include <string.h>

#define NHANDLES 4096
#define TOMB 0xffffffffu

typedef struct handle_ent {
    uintptr_t fh;
    uint32_t rec;            /* index + 1; 0 empty; TOMB removed */
} handle_ent;

static handle_ent *handles;
static iol_heatmap *heatmap;
static iol_dxt *dxt;
int iol_mpiio_dxt_offsets;

static size_t handle_hash(uintptr_t fh) { return (fh ^ (fh >> 12)) & (NHANDLES - 1); }

static handle_ent *slot_of(uintptr_t fh)
{
    for (size_t s = handle_hash(fh), k = 0; handles && k < NHANDLES; s = (s + 1) & (NHANDLES - 1), k++) {
        if (handles[s].rec == 0)
            return NULL;
        if (handles[s].rec != TOMB && handles[s].fh == fh)
            return &handles[s];
    }
    return NULL;
}

static mpiio_rec *by_handle(iol_module *m, MPI_File fh, mpiio_aux **aux)
{
    handle_ent *e = slot_of((uintptr_t)fh);
    if (!e)
        return NULL;
    *aux = (mpiio_aux *)m->aux + (e->rec - 1);
    return (mpiio_rec *)m->recs + (e->rec - 1);
}

/* Newest mapping wins. */
static void map_handle(iol_module *m, MPI_File fh, mpiio_rec *r)
{
    handle_ent *old = slot_of((uintptr_t)fh);
    if (old)
        old->rec = TOMB;
    for (size_t s = handle_hash((uintptr_t)fh), k = 0; handles && k < NHANDLES;
         s = (s + 1) & (NHANDLES - 1), k++)
        if (handles[s].rec == 0 || handles[s].rec == TOMB) {
            handles[s].fh = (uintptr_t)fh;
            handles[s].rec = (uint32_t)(iol_rec_index(m, r) + 1);
            return;
        }
    iol_fail(IOL_FAIL_STREAMS);
}

static void activate(iol_module *m)
{
    handles = iol_map(NHANDLES * sizeof *handles);
    heatmap = iol_heatmap_register("MPIIO", IOL_HM_SLOT_MPIIO);
    dxt = iol_dxt_attach(IOL_MOD_DXT_MPIIO);
    /* Upstream's Open MPI builds store -1 for every MPI-IO segment offset (runtime
     * spec 5), and its logs are the reference: the same here unless asked. */
#ifdef OPEN_MPI
    iol_mpiio_dxt_offsets = dxt && iol_cfg.dxt_mpiio_offsets;
#else
    iol_mpiio_dxt_offsets = dxt != NULL;
#endif
}

static void reset(iol_module *m)
{
    iol_unmap(handles, NHANDLES * sizeof *handles);
    handles = NULL;
    heatmap = NULL;
    dxt = NULL;
    iol_mpiio_dxt_offsets = 0;
}

static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    iol_cv_init(&((mpiio_aux *)aux)->access);
}

/* ROMIO and OMPIO accept a file-system prefix ("ufs:", "lustre:"): the record
 * is named after the path without it. */
static const char *strip_prefix(const char *path)
{
    const char *p = path;
    while (*p && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    return (*p == ':' && p - path >= 2) ? p + 1 : path;
}

void iol_mpiio_open(MPI_File fh, const char *path, int amode, int comm_size, int has_info,
                    double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    void *av;
    mpiio_rec *r = iol_rec_enter_path(m, strip_prefix(path), &av);
    if (r) {
        mpiio_aux *a = av;
        r->c[MPIIO_MODE] = amode;
        r->c[comm_size > 1 ? MPIIO_COLL_OPENS : MPIIO_INDEP_OPENS]++;
        if (has_info)
            r->c[MPIIO_HINTS]++;
        iol_stamp(&r->f[MPIIO_F_OPEN_START_TIMESTAMP], &r->f[MPIIO_F_OPEN_END_TIMESTAMP], t1, t2);
        iol_time_add(&r->f[MPIIO_F_META_TIME], &a->last_meta_end, t1, t2);
        map_handle(m, fh, r);
        iol_mod_leave(m);
    }
}

static void io_update(mpiio_rec *r, mpiio_aux *a, int kind, int wr, int64_t n, int64_t off,
                      double t1, double t2)
{
    static const int counter[2][4] = {
        {MPIIO_INDEP_READS, MPIIO_COLL_READS, MPIIO_SPLIT_READS, MPIIO_NB_READS},
        {MPIIO_INDEP_WRITES, MPIIO_COLL_WRITES, MPIIO_SPLIT_WRITES, MPIIO_NB_WRITES}};
    int64_t *c = r->c;
    double *f = r->f;
    int io = wr ? 2 : 1;
    if (a->last_io && a->last_io != io)
        c[MPIIO_RW_SWITCHES]++;
    a->last_io = io;
    c[counter[wr][kind]]++;
    c[wr ? MPIIO_BYTES_WRITTEN : MPIIO_BYTES_READ] += n;
    c[(wr ? MPIIO_SIZE_WRITE_AGG_0_100 : MPIIO_SIZE_READ_AGG_0_100) + iol_size_bin(n < 0 ? 0 : n)]++;
    if (n >= 0)
        iol_cv_add(&a->access, n, &c[MPIIO_ACCESS1_ACCESS], &c[MPIIO_ACCESS1_COUNT]);
    if (wr) {
        iol_stamp(&f[MPIIO_F_WRITE_START_TIMESTAMP], &f[MPIIO_F_WRITE_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[MPIIO_F_WRITE_TIME], &a->last_write_end, t1, t2);
    } else {
        iol_stamp(&f[MPIIO_F_READ_START_TIMESTAMP], &f[MPIIO_F_READ_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[MPIIO_F_READ_TIME], &a->last_read_end, t1, t2);
    }
    double *maxt = &f[wr ? MPIIO_F_MAX_WRITE_TIME : MPIIO_F_MAX_READ_TIME];
    if (t2 - t1 > *maxt) {
        *maxt = t2 - t1;
        c[wr ? MPIIO_MAX_WRITE_TIME_SIZE : MPIIO_MAX_READ_TIME_SIZE] = n;
    }
    if (n >= 0)
        iol_hm_add(heatmap, IOL_HM_SLOT_MPIIO, t1, t2, n, wr);
    if (dxt) {
        int64_t d1 = iol_dxt_ns(t1), d2 = iol_dxt_ns(t2);
        if (wr)
            iol_dxt_add(dxt, IOL_DXT_SLOT_MPIIO, &a->dxt, r->id, 1, off, n, d1, d2);
        else
            iol_dxt_add(dxt, IOL_DXT_SLOT_MPIIO, &a->dxt, r->id, 0, off, n, d1, d2);
    }
}

/* Lock the module for an event on an open handle: its record with the lock held
 * (*a its aux), or NULL with the lock not held. */
static mpiio_rec *enter_handle(MPI_File fh, mpiio_aux **a)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    if (!iol_mod_enter(m))
        return NULL;
    mpiio_rec *r = by_handle(m, fh, a);
    if (!r)
        iol_mod_leave(m);
    return r;
}

static void leave(void) { iol_mod_leave(iol_mod(IOL_MOD_MPIIO)); }

void iol_mpiio_io(MPI_File fh, int kind, int wr, int bytes, int64_t off, double t1, double t2)
{
    mpiio_aux *a;
    mpiio_rec *r = enter_handle(fh, &a);
    if (!r)
        return;
    io_update(r, a, kind, wr, bytes, off, t1, t2);
    leave();
}

void iol_mpiio_sync(MPI_File fh, double t1, double t2)
{
    mpiio_aux *a;
    mpiio_rec *r = enter_handle(fh, &a);
    if (!r)
        return;
    r->c[MPIIO_SYNCS]++;
    iol_time_add(&r->f[MPIIO_F_WRITE_TIME], &a->last_write_end, t1, t2);
    leave();
}

void iol_mpiio_view(MPI_File fh, int has_info, double t1, double t2)
{
    mpiio_aux *a;
    mpiio_rec *r = enter_handle(fh, &a);
    if (!r)
        return;
    r->c[MPIIO_VIEWS]++;
    if (has_info) {
        r->c[MPIIO_HINTS]++;
        iol_time_add(&r->f[MPIIO_F_META_TIME], &a->last_meta_end, t1, t2);
    }
    leave();
}

size_t iol_mpiio_close_begin(MPI_File fh)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    if (!iol_mod_enter(m))
        return 0;
    handle_ent *e = slot_of((uintptr_t)fh);
    size_t idx = e ? e->rec : 0;
    if (e)
        e->rec = TOMB;
    iol_mod_leave(m);
    return idx;
}

void iol_mpiio_close_end(size_t idx, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    if (!idx || !iol_mod_enter(m))
        return;
    mpiio_rec *r = (mpiio_rec *)m->recs + (idx - 1);
    mpiio_aux *a = (mpiio_aux *)m->aux + (idx - 1);
    iol_stamp(&r->f[MPIIO_F_CLOSE_START_TIMESTAMP], &r->f[MPIIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[MPIIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_mod_leave(m);
}

const iol_module_desc iol_mpiio_module = {
    IOL_MODULE_IDENTITY(MPIIO),
    .rec_size = sizeof(mpiio_rec),
    .aux_size = sizeof(mpiio_aux),
    .default_records = 1024,
    .path_names = 1,
    .rec_init = rec_init,
    .activate = activate,
    .reset = reset,
};
