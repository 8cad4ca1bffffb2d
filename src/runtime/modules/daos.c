/* The DAOS module: records of DAOS objects (daos_module.h has the contract).
 *
 * Side tables, under the module lock (daos_handles.h): the open containers
 * (container handle -> the pool and container uuids) and the open objects
 * (object handle -> record). */
#include "daos_module.h"

#include <errno.h>
#include <string.h>

#include "../core/rt.h"
#include "daos_handles.h"
#include "daos_io.h"
#include "heatmap.h"

typedef struct daos_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[DAOS_NUM_INDICES];
    double f[DAOS_F_NUM_INDICES];
    unsigned char uuids[32];          /* pool, then container */
    uint64_t oid_hi, oid_lo;
} daos_rec;
_Static_assert(offsetof(daos_rec, f) == 16 + 8 * DAOS_NUM_INDICES &&
               sizeof(daos_rec) == 16 + 8 * (DAOS_NUM_INDICES + DAOS_F_NUM_INDICES) + 48,
               "daos_rec does not match the DAOS counter table and upstream's ids");

typedef iol_daos_io_state daos_aux;

static const iol_daos_io_idx IO = {
    .bytes = {DAOS_BYTES_READ, DAOS_BYTES_WRITTEN},
    .size0 = {DAOS_SIZE_READ_0_100, DAOS_SIZE_WRITE_0_100},
    .max_size = {DAOS_MAX_READ_TIME_SIZE, DAOS_MAX_WRITE_TIME_SIZE},
    .start = {DAOS_F_READ_START_TIMESTAMP, DAOS_F_WRITE_START_TIMESTAMP},
    .end = {DAOS_F_READ_END_TIMESTAMP, DAOS_F_WRITE_END_TIMESTAMP},
    .max_time = {DAOS_F_MAX_READ_TIME, DAOS_F_MAX_WRITE_TIME},
    .time = {DAOS_F_READ_TIME, DAOS_F_WRITE_TIME},
    .access1 = DAOS_ACCESS1_ACCESS, .count1 = DAOS_ACCESS1_COUNT,
    .rw_switches = DAOS_RW_SWITCHES,
};

static struct {
    iol_daos_container conts[IOL_DAOS_CONTAINERS];     /* coh -> uuids */
    iol_daos_handles objs;                             /* oh -> record */
    iol_heatmap *heatmap;
} st;

static inline iol_module *daos_mod(void) { return iol_mod(IOL_MOD_DAOS); }

/* The record of an open object handle (module lock held), or NULL. */
static daos_rec *rec_of(iol_module *m, daos_handle_t oh, daos_aux **aux)
{
    iol_daos_handle *h = iol_daos_handle_find(&st.objs, oh.cookie);
    if (!h)
        return NULL;
    *aux = (daos_aux *)(m->aux + (size_t)h->index * m->d->aux_size);
    return (daos_rec *)(m->recs + (size_t)h->index * m->d->rec_size);
}

/* Lock the module and find the record of an open object handle: the record (lock
 * held) or NULL (lock not held). */
static daos_rec *enter_obj(daos_handle_t oh, daos_aux **aux)
{
    iol_module *m = daos_mod();
    if (!iol_mod_enter(m))
        return NULL;
    daos_rec *r = rec_of(m, oh, aux);
    if (!r)
        iol_mod_leave(m);
    return r;
}

static void activate(iol_module *m)
{
    (void)m;
    if (iol_daos_handles_open(&st.objs) != 0)
        iol_partial_set(IOL_MOD_DAOS);
    st.heatmap = iol_heatmap_register("DAOS", IOL_HM_SLOT_DAOS);
}

static void reset(iol_module *m)
{
    (void)m;
    iol_daos_handles_close(&st.objs);
    memset(&st, 0, sizeof st);
}

/* Records written: those with an object fetch through recx list, an array read
 * through destroy, or a kv get through destroy (as upstream). */
static size_t output(iol_module *m, void **payload)
{
    static const int ops[3][2] = {{DAOS_OBJ_FETCHES, DAOS_OBJ_RECX_LISTS},
                                  {DAOS_ARRAY_READS, DAOS_ARRAY_DESTROYS},
                                  {DAOS_KV_GETS, DAOS_KV_DESTROYS}};
    return iol_daos_output_active(m, ops, 3, payload);
}

/* ------------------------------------------------------------ record functions */
void iol_daos_cont_opened(daos_handle_t poh, daos_handle_t coh)
{
    unsigned char uuids[32];
    if (iol_daos_uuids(poh, coh, uuids) != 0)
        return;
    iol_module *m = daos_mod();
    if (!iol_mod_enter(m))
        return;
    iol_daos_container_put(st.conts, coh.cookie, uuids);
    iol_mod_leave(m);
}

void iol_daos_cont_closed(daos_handle_t coh)
{
    iol_module *m = daos_mod();
    if (!iol_mod_enter(m))
        return;
    iol_daos_container_drop(st.conts, coh.cookie);
    iol_mod_leave(m);
}

/* The record of oid in the container of coh, registered when new (lock held). */
static daos_rec *object_rec(iol_module *m, daos_handle_t coh, daos_obj_id_t oid, daos_aux **aux)
{
    const unsigned char *uuids = iol_daos_container_uuids(st.conts, coh.cookie);
    static const unsigned char none[32];
    if (memcmp(uuids, none, 32) == 0)
        return NULL;                  /* a container not seen opening */
    uint64_t id = iol_daos_object_id(uuids, oid);
    void *a;
    daos_rec *r = iol_rec_find(m, id, &a);
    if (!r && (r = iol_rec_register(m, NULL, id, &a)) != NULL) {
        memcpy(r->uuids, uuids, 32);
        r->oid_hi = oid.hi;
        r->oid_lo = oid.lo;
    }
    *aux = a;
    return r;
}

void iol_daos_obj_opened(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t oh, int counter,
                         int64_t cell_size, int64_t chunk_size, int nb, const iol_span *sp)
{
    iol_module *m = daos_mod();
    if (!iol_mod_enter(m))
        return;
    daos_aux *a;
    daos_rec *r = object_rec(m, coh, oid, &a);
    if (r) {
        r->c[counter]++;
        r->c[DAOS_NB_OPS] += nb;
        if (cell_size)
            r->c[DAOS_ARRAY_CELL_SIZE] = cell_size;
        if (chunk_size)
            r->c[DAOS_ARRAY_CHUNK_SIZE] = chunk_size;
        r->c[DAOS_OBJ_OTYPE] = iol_daos_otype(oid);
        iol_daos_stamp_meta(r->f, DAOS_F_OPEN_START_TIMESTAMP, DAOS_F_OPEN_END_TIMESTAMP,
                            DAOS_F_META_TIME, &a->last_meta_end, sp);
        iol_daos_handle_put(&st.objs, oh.cookie, (uint32_t)iol_rec_index(m, r));
    }
    iol_mod_leave(m);
}

void iol_daos_obj_closed(daos_handle_t oh, const iol_span *sp)
{
    daos_aux *a;
    daos_rec *r = enter_obj(oh, &a);
    if (!r)
        return;
    iol_daos_stamp_meta(r->f, DAOS_F_CLOSE_START_TIMESTAMP, DAOS_F_CLOSE_END_TIMESTAMP,
                        DAOS_F_META_TIME, &a->last_meta_end, sp);
    iol_daos_handle_drop(&st.objs, oh.cookie);
    iol_mod_leave(daos_mod());
}

void iol_daos_obj_moved(daos_handle_t oh, int counter, int64_t amount, int is_write, int nb,
                        const iol_span *sp)
{
    daos_aux *a;
    daos_rec *r = enter_obj(oh, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    int64_t bytes = amount;
    if (counter == DAOS_ARRAY_READS || counter == DAOS_ARRAY_WRITES)
        bytes *= r->c[DAOS_ARRAY_CELL_SIZE];
    iol_hm_add(st.heatmap, IOL_HM_SLOT_DAOS, t1, t2, bytes, is_write);
    r->c[counter]++;
    r->c[DAOS_NB_OPS] += nb;
    iol_daos_io_count(&IO, r->c, r->f, a, bytes, is_write, t1, t2);
    iol_mod_leave(daos_mod());
}

void iol_daos_obj_meta(daos_handle_t oh, int counter, int nb, const iol_span *sp)
{
    daos_aux *a;
    daos_rec *r = enter_obj(oh, &a);
    if (!r)
        return;
    r->c[counter]++;
    r->c[DAOS_NB_OPS] += nb;
    iol_time_add_span(&r->f[DAOS_F_META_TIME], &a->last_meta_end, sp);
    iol_mod_leave(daos_mod());
}

const iol_module_desc iol_daos_module = {
    IOL_MODULE_IDENTITY(DAOS),
    .rec_size = sizeof(daos_rec),
    .aux_size = sizeof(daos_aux),
    .default_records = 1024,
    .rec_init = iol_daos_rec_init,
    .activate = activate,
    .output = output,
    .reset = reset,
};
