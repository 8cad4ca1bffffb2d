/* The DFS module: records of DFS objects (dfs.h has the naming contract).
 *
 * Side tables, under the module lock (daos_handles.h): the mounted containers
 * (dfs_t * -> the pool and container uuids) and the open objects (dfs_obj_t * ->
 * record). */
#include "dfs.h"

#include <errno.h>
#include <string.h>

#include "../core/rt.h"
#include "daos_handles.h"
#include "daos_io.h"
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

typedef iol_daos_io_state dfs_aux;

static const iol_daos_io_idx IO = {
    .bytes = {DFS_BYTES_READ, DFS_BYTES_WRITTEN},
    .size0 = {DFS_SIZE_READ_0_100, DFS_SIZE_WRITE_0_100},
    .max_size = {DFS_MAX_READ_TIME_SIZE, DFS_MAX_WRITE_TIME_SIZE},
    .start = {DFS_F_READ_START_TIMESTAMP, DFS_F_WRITE_START_TIMESTAMP},
    .end = {DFS_F_READ_END_TIMESTAMP, DFS_F_WRITE_END_TIMESTAMP},
    .max_time = {DFS_F_MAX_READ_TIME, DFS_F_MAX_WRITE_TIME},
    .time = {DFS_F_READ_TIME, DFS_F_WRITE_TIME},
    .access1 = DFS_ACCESS1_ACCESS, .count1 = DFS_ACCESS1_COUNT,
    .rw_switches = DFS_RW_SWITCHES,
};

static struct {
    iol_daos_container mounts[IOL_DAOS_CONTAINERS];    /* dfs_t * -> uuids */
    iol_daos_handles objs;                             /* dfs_obj_t * -> record */
    iol_heatmap *heatmap;
} st;

static inline iol_module *dfs_mod(void) { return iol_mod(IOL_MOD_DFS); }
static inline uint64_t key_of(const void *p) { return (uint64_t)(uintptr_t)p; }

/* The record of an open object (module lock held), or NULL. */
static dfs_rec *rec_of(iol_module *m, dfs_obj_t *obj, dfs_aux **aux)
{
    iol_daos_handle *h = obj ? iol_daos_handle_find(&st.objs, key_of(obj)) : NULL;
    if (!h)
        return NULL;
    *aux = (dfs_aux *)(m->aux + (size_t)h->index * m->d->aux_size);
    return (dfs_rec *)(m->recs + (size_t)h->index * m->d->rec_size);
}

/* Lock the module and find the record of an open object: the record (lock held)
 * or NULL (lock not held). */
static dfs_rec *enter_obj(dfs_obj_t *obj, dfs_aux **aux)
{
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return NULL;
    dfs_rec *r = rec_of(m, obj, aux);
    if (!r)
        iol_mod_leave(m);
    return r;
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
static void activate(iol_module *m)
{
    (void)m;
    if (iol_daos_handles_open(&st.objs) != 0)
        iol_partial_set(IOL_MOD_DFS);
    st.heatmap = iol_heatmap_register("DFS", IOL_HM_SLOT_DFS);
}

static void reset(iol_module *m)
{
    (void)m;
    iol_daos_handles_close(&st.objs);
    memset(&st, 0, sizeof st);
}

/* Records written: those with a read, write, size, punch, removal or stat (as
 * upstream). */
static size_t output(iol_module *m, void **payload)
{
    static const int ops[1][2] = {{DFS_READS, DFS_STATS}};
    return iol_daos_output_active(m, ops, 1, payload);
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
    iol_daos_container_put(st.mounts, key_of(dfs), uuids);
    iol_mod_leave(m);
}

void iol_dfs_unmounted(dfs_t *dfs)
{
    iol_module *m = dfs_mod();
    if (!dfs || !iol_mod_enter(m))
        return;
    iol_daos_container_drop(st.mounts, key_of(dfs));
    iol_mod_leave(m);
}

/* The open-side counters of a reached object (lock held). */
static void count_open(iol_module *m, dfs_rec *r, dfs_aux *a, dfs_obj_t *obj, int counter,
                       const iol_span *sp)
{
    r->c[counter]++;
    iol_daos_stamp_meta(r->f, DFS_F_OPEN_START_TIMESTAMP, DFS_F_OPEN_END_TIMESTAMP,
                        DFS_F_META_TIME, &a->last_meta_end, sp);
    iol_daos_handle_put(&st.objs, key_of(obj), (uint32_t)iol_rec_index(m, r));
}

void iol_dfs_opened(dfs_t *dfs, dfs_obj_t *obj, dfs_obj_t *parent, const char *name,
                    const char *path, int counter, const iol_span *sp)
{
    daos_obj_id_t oid;
    __typeof__(iol_daos.dfs_obj2id) obj2id = IOL_DAOS_CALLED(dfs_obj2id);
    if (!obj || !obj2id || obj2id(obj, &oid) != 0)
        return;
    iol_module *m = dfs_mod();
    if (!iol_mod_enter(m))
        return;
    char buf[IOL_PATH_LEN];
    const char *rname = path ? path : name ? entry_name(m, parent, name, buf, sizeof buf) : NULL;
    const unsigned char *uuids = iol_daos_container_uuids(st.mounts, key_of(dfs));
    dfs_aux *a;
    dfs_rec *r = rec_get(m, iol_daos_object_id(uuids, oid), rname, uuids, &a);
    if (r)
        count_open(m, r, a, obj, counter, sp);
    iol_mod_leave(m);
}

void iol_dfs_duped(dfs_obj_t *obj, dfs_obj_t *new_obj, const iol_span *sp)
{
    dfs_aux *a;
    dfs_rec *r = new_obj ? enter_obj(obj, &a) : NULL;
    if (!r)
        return;
    count_open(dfs_mod(), r, a, new_obj, DFS_DUPS, sp);
    iol_mod_leave(dfs_mod());
}

void iol_dfs_released(dfs_obj_t *obj, const iol_span *sp)
{
    dfs_aux *a;
    dfs_rec *r = enter_obj(obj, &a);
    if (!r)
        return;
    iol_daos_stamp_meta(r->f, DFS_F_CLOSE_START_TIMESTAMP, DFS_F_CLOSE_END_TIMESTAMP,
                        DFS_F_META_TIME, &a->last_meta_end, sp);
    iol_daos_handle_drop(&st.objs, key_of(obj));
    iol_mod_leave(dfs_mod());
}

/* The chunk size, once per record, as upstream asks it at the first read or write
 * (get_chunk: dfs_get_chunk_size, resolved before the module lock was taken). */
static void note_chunk(dfs_rec *r, dfs_obj_t *obj,
                       int (*get_chunk)(dfs_obj_t *, daos_size_t *))
{
    daos_size_t chunk;
    if (r->c[DFS_CHUNK_SIZE] == 0 && get_chunk && get_chunk(obj, &chunk) == 0)
        r->c[DFS_CHUNK_SIZE] = (int64_t)chunk;
}

void iol_dfs_moved(dfs_obj_t *obj, int counter, int64_t bytes, int is_write, int nb,
                   const iol_span *sp)
{
    __typeof__(iol_daos.dfs_get_chunk_size) get_chunk = IOL_DAOS_CALLED(dfs_get_chunk_size);
    dfs_aux *a;
    dfs_rec *r = enter_obj(obj, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_hm_add(st.heatmap, IOL_HM_SLOT_DFS, t1, t2, bytes, is_write);
    r->c[counter]++;
    if (nb)
        r->c[is_write ? DFS_NB_WRITES : DFS_NB_READS]++;
    note_chunk(r, obj, get_chunk);
    iol_daos_io_count(&IO, r->c, r->f, a, bytes, is_write, t1, t2);
    iol_mod_leave(dfs_mod());
}

void iol_dfs_meta(dfs_obj_t *obj, enum iol_dfs_meta what, const iol_span *sp)
{
    static const int counter[] = {DFS_GET_SIZES, DFS_PUNCHES, DFS_STATS};
    dfs_aux *a;
    dfs_rec *r = enter_obj(obj, &a);
    if (!r)
        return;
    r->c[counter[what]]++;
    iol_time_add_span(&r->f[DFS_F_META_TIME], &a->last_meta_end, sp);
    iol_mod_leave(dfs_mod());
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
    const unsigned char *uuids = iol_daos_container_uuids(st.mounts, key_of(dfs));
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
    .rec_init = iol_daos_rec_init,
    .activate = activate,
    .output = output,
    .reset = reset,
};
