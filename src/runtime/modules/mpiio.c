/* MPI-IO module: record logic (runtime spec 2.3).  Handles map to records through
 * an open-addressing table keyed by the MPI_File value, read without a lock:
 *   - `rec` is 0 (empty: ends a probe), TOMB (removed: a probe goes on) or the
 *     index + 1 of the handle `fh`'s record;
 *   - a slot is filled by MPI_File_open (under the module lock, which orders the
 *     writers) only while its `rec` is 0 or TOMB: `fh` first, then `rec` with
 *     release; a handle that is mapped already gets its new record in place;
 *   - MPI_File_close removes its slot with one exchange of `rec` to TOMB (no
 *     lock: the handle is still open, so no other thread maps this value now);
 *   - readers load `rec` with acquire and then `fh`.  A slot refilled for
 *     another handle between the two loads shows a foreign `fh`, which does not
 *     match: a handle in use was mapped before any thread could use it, and its
 *     live slot comes first on its probe chain (as stdio.h explains for streams).
 * Each record has its own lock (mpiio_aux.lock): data, sync and view calls take
 * only that, and so does a traced op's append to its file's DXT_MPIIO trace
 * (dxt.h, "Locking": the store locks itself where files share anything). */
#include "mpiio.h"
#include "region.h"

#include <ctype.h>
#include <string.h>

#define NHANDLES 4096
#define TOMB 0xffffffffu

typedef struct handle_ent {
    uintptr_t fh;
    uint32_t rec;            /* index + 1; 0 empty; TOMB removed */
} handle_ent;

static handle_ent *handles;  /* published (release) by activate, after the module's
                                records exist; NULL again after a fork child's reset */
static iol_heatmap *heatmap;
static iol_dxt *dxt;
int iol_mpiio_dxt_offsets;

static size_t handle_hash(uintptr_t fh) { return (fh ^ (fh >> 12)) & (NHANDLES - 1); }

/* The live slot of fh (no lock needed), *idx its record index + 1, or NULL. */
static handle_ent *slot_of(handle_ent *t, uintptr_t fh, uint32_t *idx)
{
    for (size_t s = handle_hash(fh), k = 0; t && k < NHANDLES; s = (s + 1) & (NHANDLES - 1), k++) {
        uint32_t v = __atomic_load_n(&t[s].rec, __ATOMIC_ACQUIRE);
        if (v == 0)
            return NULL;
        if (v != TOMB && __atomic_load_n(&t[s].fh, __ATOMIC_RELAXED) == fh) {
            *idx = v;
            return &t[s];
        }
    }
    return NULL;
}

/* Newest mapping wins (module lock held). */
static void map_handle(iol_module *m, MPI_File fh, mpiio_rec *r)
{
    uint32_t idx = (uint32_t)(iol_rec_index(m, r) + 1), old;
    handle_ent *e = slot_of(handles, (uintptr_t)fh, &old);
    if (e) {
        __atomic_store_n(&e->rec, idx, __ATOMIC_RELEASE);
        return;
    }
    for (size_t s = handle_hash((uintptr_t)fh), k = 0; handles && k < NHANDLES;
         s = (s + 1) & (NHANDLES - 1), k++) {
        uint32_t v = __atomic_load_n(&handles[s].rec, __ATOMIC_RELAXED);
        if (v == 0 || v == TOMB) {
            __atomic_store_n(&handles[s].fh, (uintptr_t)fh, __ATOMIC_RELAXED);
            __atomic_store_n(&handles[s].rec, idx, __ATOMIC_RELEASE);
            return;
        }
    }
    iol_fail(IOL_FAIL_STREAMS);
}

static void activate(iol_module *m)
{
    heatmap = iol_heatmap_register("MPIIO", IOL_HM_SLOT_MPIIO);
    dxt = iol_dxt_attach(IOL_MOD_DXT_MPIIO);
    handle_ent *tab = iol_map(NHANDLES * sizeof *handles);
    if (!tab)                          /* I/O by file handle goes unrecorded */
        iol_partial_set(IOL_MOD_MPIIO);
    __atomic_store_n(&handles, tab, __ATOMIC_RELEASE);
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
    __atomic_store_n(&handles, NULL, __ATOMIC_RELAXED);
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
    void *av = NULL;
    mpiio_rec *r = iol_rec_enter_path(m, strip_prefix(path), &av);
    /* The record's lock too (another handle of the file may be updating it). */
    if (r && iol_rec_lock_in_mod(m, &((mpiio_aux *)av)->lock)) {
        mpiio_aux *a = av;
        r->c[MPIIO_MODE] = amode;
        r->c[comm_size > 1 ? MPIIO_COLL_OPENS : MPIIO_INDEP_OPENS]++;
        if (has_info)
            r->c[MPIIO_HINTS]++;
        iol_stamp(&r->f[MPIIO_F_OPEN_START_TIMESTAMP], &r->f[MPIIO_F_OPEN_END_TIMESTAMP], t1, t2);
        iol_time_add(&r->f[MPIIO_F_META_TIME], &a->last_meta_end, t1, t2);
        iol_region_io(IOL_REGION_MPIIO, IOL_REGION_META, 0, t1, t2);
        map_handle(m, fh, r);
        iol_rec_leave_mod(m, &a->lock);
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
    iol_region_io(IOL_REGION_MPIIO, wr ? IOL_REGION_WRITE : IOL_REGION_READ, n < 0 ? 0 : n, t1, t2);
    double *maxt = &f[wr ? MPIIO_F_MAX_WRITE_TIME : MPIIO_F_MAX_READ_TIME];
    if (t2 - t1 > *maxt) {
        *maxt = t2 - t1;
        c[wr ? MPIIO_MAX_WRITE_TIME_SIZE : MPIIO_MAX_READ_TIME_SIZE] = n;
    }
    if (n >= 0)
        iol_hm_add(heatmap, IOL_HM_SLOT_MPIIO, t1, t2, n, wr);
    if (dxt) {                  /* the record's lock is enough (dxt.h, "Locking") */
        int64_t d1 = iol_dxt_ns(t1), d2 = iol_dxt_ns(t2);
        if (wr)
            iol_dxt_add(dxt, IOL_DXT_SLOT_MPIIO, &a->dxt, r->id, 1, off, n, d1, d2);
        else
            iol_dxt_add(dxt, IOL_DXT_SLOT_MPIIO, &a->dxt, r->id, 0, off, n, d1, d2);
    }
}

/* Lock the record of an open handle for an event on it: the record with its
 * lock held (*a its aux; leave with leave(*a)), or NULL with no lock held (module
 * off or frozen, handle untracked).  The table exists only while the module is
 * active (published after recs/aux), so `state` needs no test. */
static mpiio_rec *enter_handle(MPI_File fh, mpiio_aux **a)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    uint32_t idx;
    handle_ent *t = __atomic_load_n(&handles, __ATOMIC_ACQUIRE);
    if (!t || !slot_of(t, (uintptr_t)fh, &idx))
        return NULL;
    *a = (mpiio_aux *)m->aux + (idx - 1);
    if (!iol_rec_lock(m, &(*a)->lock))
        return NULL;
    return (mpiio_rec *)m->recs + (idx - 1);
}

static void leave(mpiio_aux *a) { iol_rec_unlock(&a->lock); }

void iol_mpiio_io(MPI_File fh, int kind, int wr, int bytes, int64_t off, double t1, double t2)
{
    mpiio_aux *a;
    mpiio_rec *r = enter_handle(fh, &a);
    if (!r)
        return;
    io_update(r, a, kind, wr, bytes, off, t1, t2);
    leave(a);
}

void iol_mpiio_sync(MPI_File fh, double t1, double t2)
{
    mpiio_aux *a;
    mpiio_rec *r = enter_handle(fh, &a);
    if (!r)
        return;
    r->c[MPIIO_SYNCS]++;
    iol_time_add(&r->f[MPIIO_F_WRITE_TIME], &a->last_write_end, t1, t2);
    iol_region_io(IOL_REGION_MPIIO, IOL_REGION_META, 0, t1, t2);
    leave(a);
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
        iol_region_io(IOL_REGION_MPIIO, IOL_REGION_META, 0, t1, t2);
    }
    leave(a);
}

/* The mapping goes first, with one exchange and no lock (the handle is still
 * open); the close is recorded on the remembered record under its lock.  A
 * removal after shutdown has frozen the module is harmless. */
size_t iol_mpiio_close_begin(MPI_File fh)
{
    uint32_t idx;
    handle_ent *t = __atomic_load_n(&handles, __ATOMIC_ACQUIRE);
    handle_ent *e = t ? slot_of(t, (uintptr_t)fh, &idx) : NULL;
    if (!e)
        return 0;
    idx = __atomic_exchange_n(&e->rec, TOMB, __ATOMIC_ACQ_REL);
    return idx != 0 && idx != TOMB ? idx : 0;   /* (a racing close: 0) */
}

void iol_mpiio_close_end(size_t idx, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_MPIIO);
    if (!idx || __atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != 1)   /* (records released) */
        return;
    mpiio_aux *a = (mpiio_aux *)m->aux + (idx - 1);
    if (!iol_rec_lock(m, &a->lock))
        return;
    mpiio_rec *r = (mpiio_rec *)m->recs + (idx - 1);
    iol_stamp(&r->f[MPIIO_F_CLOSE_START_TIMESTAMP], &r->f[MPIIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[MPIIO_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_MPIIO, IOL_REGION_META, 0, t1, t2);
    leave(a);
}

const iol_module_desc iol_mpiio_module = {
    IOL_MODULE_IDENTITY(MPIIO),
    .rec_size = sizeof(mpiio_rec),
    .aux_size = sizeof(mpiio_aux),
    .default_records = 1024,
    .path_names = 1,
    .rec_locks = 1,
    .rec_init = rec_init,
    .activate = activate,
    .reset = reset,
};
