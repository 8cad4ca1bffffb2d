/* The DFS module: records of DFS objects (dfs.h has the naming contract).
 *
 * Side tables, under the module lock: the mounted containers (dfs_t * -> the
 * pool and container uuids) and the open objects (dfs_obj_t * -> record), both
 * fixed in size so that memory stays bounded; a handle that finds its table
 * full is not followed (a counted failure), and its calls go unrecorded.
 * Asynchronous calls (with an event) are not recorded (docs/deviations.md). */
#include "dfs.h"

#include <errno.h>
#include <string.h>

#include "../core/rt.h"
#include "heatmap.h"

typedef struct dfs_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[DFS_NUM_INDICES];
    double f[DFS_F_NUM_INDICES];
    unsigned char uuids[32];          /* pool, then container */
} dfs_rec;
_Static_assert(offsetof(dfs_rec, f) == 16 + 8 * DFS_NUM_INDICES &&
               sizeof(dfs_rec) == 16 + 8 * (DFS_NUM_INDICES + DFS_F_NUM_INDICES) + 32,
               "dfs_rec does not match the DFS counter table and upstream's uuids");

enum { LAST_NONE, LAST_READ, LAST_WRITE };

typedef struct dfs_aux {
    iol_cv sizes;
    double last_meta_end, last_read_end, last_write_end;
    int last_io;
} dfs_aux;

#define NMOUNTS 64
#define NOBJS 4096                    /* a power of two */
#define TOMB ((dfs_obj_t *)1)

typedef struct mount_ent {
    dfs_t *dfs;                       /* NULL: free */
    unsigned char uuids[32];
} mount_ent;

typedef struct obj_ent {
    dfs_obj_t *obj;                   /* NULL: free, TOMB: released */
    uint32_t index;                   /* the record's */
} obj_ent;

static struct {
    mount_ent mounts[NMOUNTS];
    obj_ent *objs;                    /* NOBJS entries, iol_map'd at activation */
    iol_heatmap *heatmap;
} st;

static inline iol_module *dfs_mod(void) { return iol_mod(IOL_MOD_DFS); }

/* ------------------------------------------------------------ side tables */
static mount_ent *mount_of(dfs_t *dfs)
{
    for (int i = 0; i < NMOUNTS; i++)
        if (st.mounts[i].dfs == dfs)
            return &st.mounts[i];
    return NULL;
}

static size_t obj_hash(const dfs_obj_t *obj) { return ((uintptr_t)obj >> 4) & (NOBJS - 1); }

static obj_ent *obj_slot(dfs_obj_t *obj)
{
    for (size_t s = obj_hash(obj), k = 0; st.objs && k < NOBJS; s = (s + 1) & (NOBJS - 1), k++) {
        if (!st.objs[s].obj)
            return NULL;
        if (st.objs[s].obj == obj)
            return &st.objs[s];
    }
    return NULL;
}

/* Newest mapping wins (a released handle's address may come back). */
static void map_obj(dfs_obj_t *obj, uint32_t index)
{
    obj_ent *e = obj_slot(obj);
    for (size_t s = obj_hash(obj), k = 0; !e && st.objs && k < NOBJS; s = (s + 1) & (NOBJS - 1), k++)
        if (!st.objs[s].obj || st.objs[s].obj == TOMB)
            e = &st.objs[s];
    if (!e) {
        iol_fail(IOL_FAIL_FDTABLE);
        return;
    }
    e->obj = obj;
    e->index = index;
}

/* The record of an open object (module lock held), or NULL. */
static dfs_rec *rec_of(iol_module *m, dfs_obj_t *obj, dfs_aux **aux)
{
    obj_ent *e = obj ? obj_slot(obj) : NULL;
    if (!e)
        return NULL;
    *aux = (dfs_aux *)(m->aux + (size_t)e->index * m->d->aux_size);
    return (dfs_rec *)(m->recs + (size_t)e->index * m->d->rec_size);
}

/* The record of id, registered under `name` when new, with the uuids. */
static dfs_rec *rec_get(iol_module *m, uint64_t id, const char *name, const unsigned char *uuids,
                        dfs_aux **aux)
{
    void *a;
    dfs_rec *r = iol_rec_find(m, id, &a);
    if (!r && (r = iol_rec_register(m, name, id, &a)) != NULL)
        memcpy(r->uuids, uuids, 32);
    *aux = a;
    return r;
}

/* Upstream's name of an entry: the parent record's name followed by the entry's
 * (no separator is added), "/" + the entry at the root (no parent), the entry
 * alone under an object not followed. */
static const char *entry_name(iol_module *m, dfs_obj_t *parent, const char *name, char *buf,
                              size_t len)
{
    const char *pname = "/";
    if (parent) {
        dfs_aux *pa;
        dfs_rec *pr = rec_of(m, parent, &pa);
        pname = pr ? iol_name_of(pr->id) : NULL;
    }
    snprintf(buf, len, "%s%s", pname ? pname : "", name);
    return buf;
}

/* ------------------------------------------------------------ the module */
static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    (void)m, (void)name, (void)rec;
    iol_cv_init(&((dfs_aux *)aux)->sizes);
}

static void activate(iol_module *m)
{
    (void)m;
    st.objs = iol_map(NOBJS * sizeof *st.objs);
    if (!st.objs)
        iol_partial_set(IOL_MOD_DFS);
    st.heatmap = iol_heatmap_register("DFS", IOL_HM_SLOT_DFS);
}

static void reset(iol_module *m)
{
    (void)m;
    iol_unmap(st.objs, NOBJS * sizeof *st.objs);
    memset(&st, 0, sizeof st);
}

/* Upstream writes only the records with an operation beyond opening (reads,
 * writes, sizes, punches, removals, stats): compacted in place. */
static size_t output(iol_module *m, void **payload)
{
    size_t kept = 0;
    for (size_t i = 0; i < m->count; i++) {
        dfs_rec *r = (dfs_rec *)(m->recs + i * sizeof(dfs_rec));
        int ops = 0;
        for (int k = DFS_READS; k <= DFS_STATS && !ops; k++)
            ops = r->c[k] != 0;
        if (!ops)
            continue;
        if (kept != i)
            memmove(m->recs + kept * sizeof(dfs_rec), r, sizeof(dfs_rec));
        kept++;
    }
    *payload = m->recs;
    return kept * sizeof(dfs_rec);
}

/* ------------------------------------------------------------ record functions */
void iol_dfs_mounted(dfs_t *dfs, daos_handle_t poh, daos_handle_t coh)
{
    unsigned char uuids[32];
    if (!dfs || iol_daos_uuids(poh, coh, uuids) != 0)
        return;                       /* upstream: no mount entry, zero uuids */
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    mount_ent *e = mount_of(dfs);
    if (!e)
        e = mount_of(NULL);
    if (e) {
        e->dfs = dfs;
        memcpy(e->uuids, uuids, 32);
    } else {
        iol_fail(IOL_FAIL_FDTABLE);
    }
    iol_mod_leave(m);
}

void iol_dfs_unmounted(dfs_t *dfs)
{
    iol_module *m = dfs_mod();
    if (!dfs || !iol_mod_enter(m))
        return;
    mount_ent *e = mount_of(dfs);
    if (e)
        memset(e, 0, sizeof *e);
    iol_mod_leave(m);
}

static const unsigned char *uuids_of(dfs_t *dfs)
{
    static const unsigned char none[32];
    mount_ent *e = dfs ? mount_of(dfs) : NULL;
    return e ? e->uuids : none;
}

/* The open-side counters of a reached object (lock held). */
static void count_open(iol_module *m, dfs_rec *r, dfs_aux *a, dfs_obj_t *obj, int counter,
                       const iol_span *sp)
{
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[counter]++;
    iol_stamp(&r->f[DFS_F_OPEN_START_TIMESTAMP], &r->f[DFS_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[DFS_F_META_TIME], &a->last_meta_end, t1, t2);
    map_obj(obj, (uint32_t)iol_rec_index(m, r));
}

void iol_dfs_opened(dfs_t *dfs, dfs_obj_t *obj, dfs_obj_t *parent, const char *name,
                    const char *path, int counter, const iol_span *sp)
{
    daos_obj_id_t oid;
    if (!obj || !iol_daos_ready() || iol_daos.dfs_obj2id(obj, &oid) != 0)
        return;
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    char buf[IOL_PATH_LEN];
    const char *rname = path ? path : name ? entry_name(m, parent, name, buf, sizeof buf) : NULL;
    const unsigned char *uuids = uuids_of(dfs);
    dfs_aux *a;
    dfs_rec *r = rec_get(m, iol_daos_object_id(uuids, oid), rname, uuids, &a);
    if (r)
        count_open(m, r, a, obj, counter, sp);
    iol_mod_leave(m);
}

void iol_dfs_duped(dfs_obj_t *obj, dfs_obj_t *new_obj, const iol_span *sp)
{
    iol_module *m = dfs_mod();
    if (!new_obj || !iol_mod_enter(m))
        return;
    dfs_aux *a;
    dfs_rec *r = rec_of(m, obj, &a);
    if (r)
        count_open(m, r, a, new_obj, DFS_DUPS, sp);
    iol_mod_leave(m);
}

void iol_dfs_released(dfs_obj_t *obj, const iol_span *sp)
{
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    dfs_aux *a;
    dfs_rec *r = rec_of(m, obj, &a);
    if (r) {
        double t1, t2;
        iol_span_sec(sp, &t1, &t2);
        iol_stamp(&r->f[DFS_F_CLOSE_START_TIMESTAMP], &r->f[DFS_F_CLOSE_END_TIMESTAMP], t1, t2);
        iol_time_add(&r->f[DFS_F_META_TIME], &a->last_meta_end, t1, t2);
        obj_slot(obj)->obj = TOMB;
    }
    iol_mod_leave(m);
}

/* The chunk size, once per record, as upstream asks it at the first read or write. */
static void note_chunk(dfs_rec *r, dfs_obj_t *obj)
{
    daos_size_t chunk;
    if (r->c[DFS_CHUNK_SIZE] == 0 && iol_daos.dfs_get_chunk_size(obj, &chunk) == 0)
        r->c[DFS_CHUNK_SIZE] = (int64_t)chunk;
}

void iol_dfs_moved(dfs_obj_t *obj, int counter, int64_t bytes, int is_write, const iol_span *sp)
{
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    dfs_aux *a;
    dfs_rec *r = rec_of(m, obj, &a);
    if (r) {
        double t1, t2;
        iol_span_sec(sp, &t1, &t2);
        iol_hm_add(st.heatmap, IOL_HM_SLOT_DFS, t1, t2, bytes, is_write);
        r->c[counter]++;
        r->c[is_write ? DFS_BYTES_WRITTEN : DFS_BYTES_READ] += bytes;
        r->c[(is_write ? DFS_SIZE_WRITE_0_100 : DFS_SIZE_READ_0_100) + iol_size_bin(bytes)]++;
        iol_cv_add(&a->sizes, bytes, &r->c[DFS_ACCESS1_ACCESS], &r->c[DFS_ACCESS1_COUNT]);
        if (a->last_io == (is_write ? LAST_READ : LAST_WRITE))
            r->c[DFS_RW_SWITCHES]++;
        a->last_io = is_write ? LAST_WRITE : LAST_READ;
        note_chunk(r, obj);
        int start = is_write ? DFS_F_WRITE_START_TIMESTAMP : DFS_F_READ_START_TIMESTAMP;
        int end = is_write ? DFS_F_WRITE_END_TIMESTAMP : DFS_F_READ_END_TIMESTAMP;
        int max = is_write ? DFS_F_MAX_WRITE_TIME : DFS_F_MAX_READ_TIME;
        iol_stamp(&r->f[start], &r->f[end], t1, t2);
        if (r->f[max] < t2 - t1) {
            r->f[max] = t2 - t1;
            r->c[is_write ? DFS_MAX_WRITE_TIME_SIZE : DFS_MAX_READ_TIME_SIZE] = bytes;
        }
        if (is_write)
            iol_time_add(&r->f[DFS_F_WRITE_TIME], &a->last_write_end, t1, t2);
        else
            iol_time_add(&r->f[DFS_F_READ_TIME], &a->last_read_end, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_dfs_meta(dfs_obj_t *obj, enum iol_dfs_meta what, const iol_span *sp)
{
    static const int counter[] = {DFS_GET_SIZES, DFS_PUNCHES, DFS_STATS};
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    dfs_aux *a;
    dfs_rec *r = rec_of(m, obj, &a);
    if (r) {
        r->c[counter[what]]++;
        iol_time_add_span(&r->f[DFS_F_META_TIME], &a->last_meta_end, sp);
    }
    iol_mod_leave(m);
}

/* A removed entry: its record by the object id the call returned, registered
 * under its entry name when the object was never reached before. */
void iol_dfs_removed(dfs_t *dfs, dfs_obj_t *parent, const char *name, daos_obj_id_t oid,
                     const iol_span *sp)
{
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    char buf[IOL_PATH_LEN];
    const unsigned char *uuids = uuids_of(dfs);
    uint64_t id = iol_daos_object_id(uuids, oid);
    dfs_aux *a;
    dfs_rec *r = iol_rec_find(m, id, (void **)&a);
    if (!r && name)
        r = rec_get(m, id, entry_name(m, parent, name, buf, sizeof buf), uuids, &a);
    if (r) {
        r->c[DFS_REMOVES]++;
        iol_time_add_span(&r->f[DFS_F_META_TIME], &a->last_meta_end, sp);
    }
    iol_mod_leave(m);
}

const iol_module_desc iol_dfs_module = {
    IOL_MODULE_IDENTITY(DFS),
    .rec_size = sizeof(dfs_rec),
    .aux_size = sizeof(dfs_aux),
    .default_records = 1024,
    .rec_init = rec_init,
    .activate = activate,
    .output = output,
    .reset = reset,
};
