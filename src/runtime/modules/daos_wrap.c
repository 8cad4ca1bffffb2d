/* Wrappers of the DAOS container, object, array and key-value APIs
 * (wrappers/daos_fns.def; runtime behaviour as upstream 3.5.0's DAOS module).
 * The real call is made first and timed; only a call that returned 0 is recorded;
 * errno is kept as the real call left it.  A call given an event is recorded when
 * it completes (PENDING, daos_async.h), not when it returns. */
#include <errno.h>

#include "daos_async.h"
#include "daos_module.h"

/* Bytes of a fetch or update: a single value's size, or each extent's records
 * times the record size (counted before the call, as upstream). */
static int64_t iod_bytes(const daos_iod_t *iods, unsigned int nr)
{
    int64_t n = 0;
    for (unsigned int i = 0; iods && i < nr; i++) {
        if (iods[i].iod_type == IOL_DAOS_IOD_SINGLE)
            n += (int64_t)iods[i].iod_size;
        else if (iods[i].iod_recxs)
            for (uint32_t j = 0; j < iods[i].iod_nr; j++)
                n += (int64_t)(iods[i].iod_size * iods[i].iod_recxs[j].rx_nr);
    }
    return n;
}

/* Cells of an array I/O (the module multiplies by the cell size). */
static int64_t array_cells(const daos_array_iod_t *iod)
{
    int64_t n = 0;
    for (daos_size_t i = 0; iod && iod->arr_rgs && i < iod->arr_nr; i++)
        n += (int64_t)iod->arr_rgs[i].rg_len;
    return n;
}

/* ------------------------------------------------------------ calls given an event */
static void cont_done(const iol_daos_pending *p, const iol_span *sp)
{
    (void)sp;
    iol_daos_cont_opened(p->h, *p->out_h);
}

static void opened_done(const iol_daos_pending *p, const iol_span *sp)
{
    int64_t cell = p->size ? (int64_t)*p->size : p->amount;      /* array_open: filled in */
    int64_t chunk = p->size2 ? (int64_t)*p->size2 : p->amount2;
    iol_daos_obj_opened(p->coh, p->oid, *p->out_h, p->counter, cell, chunk, 1, sp);
}

static void closed_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_daos_obj_closed(p->h, sp);
}

static void read_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_daos_obj_moved(p->h, p->counter, p->size ? (int64_t)*p->size : p->amount, 0, 1, sp);
}

static void write_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_daos_obj_moved(p->h, p->counter, p->amount, 1, 1, sp);
}

static void meta_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_daos_obj_meta(p->h, p->counter, 1, sp);
}

/* TIMED_BODY of an int call that follows a PENDING, settled when it returns; `rec`
 * is "condition, record step" (the macros below give both, so the expansion reaches
 * TIMED_BODY as its two last arguments). */
#define TIMED_INT(call, rec) TIMED_BODY(int, SETTLED(call), rec)

/* ------------------------------------------------------------ containers */
/* daos_cont_open as DAOS 2.x programs call it (wrappers/daos_fns.def). */
int daos_cont_open2(daos_handle_t poh, const char *cont, unsigned int flags, daos_handle_t *coh,
                    daos_cont_info_t *info, daos_event_t *ev)
{
    PENDING_IF(coh, cont_done, .h = poh, .out_h = coh);
    int ret = SETTLED(IOL_DAOS_REAL(daos_cont_open2)(poh, cont, flags, coh, info, ev));
    if (ret == 0 && !ev && coh && iol_on())
        KEEP_ERRNO(iol_daos_cont_opened(poh, *coh));
    return ret;
}

int daos_cont_global2local(daos_handle_t poh, d_iov_t glob, daos_handle_t *coh)
{
    int ret = IOL_DAOS_REAL(daos_cont_global2local)(poh, glob, coh);
    if (ret == 0 && coh && iol_on())
        KEEP_ERRNO(iol_daos_cont_opened(poh, *coh));
    return ret;
}

int daos_cont_close(daos_handle_t coh, daos_event_t *ev)
{
    if (iol_on())
        KEEP_ERRNO(iol_daos_cont_closed(coh));
    return IOL_DAOS_REAL(daos_cont_close)(coh, ev);
}

/* ------------------------------------------------------------ opens and closes */
#define OPENED(coh, oid, oh, counter, cell, chunk)                                   \
    ret == 0 && !ev && oh, KEEP_ERRNO(iol_daos_obj_opened(coh, oid, *(oh), counter, cell, chunk, 0, &sp))

int daos_obj_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
                  daos_event_t *ev)
{
    PENDING(opened_done, .coh = coh, .oid = oid, .out_h = oh, .counter = DAOS_OBJ_OPENS);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_open)(coh, oid, mode, oh, ev),
               OPENED(coh, oid, oh, DAOS_OBJ_OPENS, 0, 0));
}

int daos_array_create(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th, daos_size_t cell_size,
                      daos_size_t chunk_size, daos_handle_t *oh, daos_event_t *ev)
{
    PENDING(opened_done, .coh = coh, .oid = oid, .out_h = oh, .counter = DAOS_ARRAY_OPENS,
            .amount = (int64_t)cell_size, .amount2 = (int64_t)chunk_size);
    TIMED_INT( IOL_DAOS_REAL(daos_array_create)(coh, oid, th, cell_size, chunk_size, oh, ev),
               OPENED(coh, oid, oh, DAOS_ARRAY_OPENS, (int64_t)cell_size, (int64_t)chunk_size));
}

int daos_array_open(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th, unsigned int mode,
                    daos_size_t *cell_size, daos_size_t *chunk_size, daos_handle_t *oh,
                    daos_event_t *ev)
{
    PENDING(opened_done, .coh = coh, .oid = oid, .out_h = oh, .counter = DAOS_ARRAY_OPENS,
            .size = cell_size, .size2 = chunk_size);
    TIMED_INT(
               IOL_DAOS_REAL(daos_array_open)(coh, oid, th, mode, cell_size, chunk_size, oh, ev),
               OPENED(coh, oid, oh, DAOS_ARRAY_OPENS, cell_size ? (int64_t)*cell_size : 0,
                      chunk_size ? (int64_t)*chunk_size : 0));
}

int daos_array_open_with_attr(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th,
                              unsigned int mode, daos_size_t cell_size, daos_size_t chunk_size,
                              daos_handle_t *oh, daos_event_t *ev)
{
    PENDING(opened_done, .coh = coh, .oid = oid, .out_h = oh, .counter = DAOS_ARRAY_OPENS,
            .amount = (int64_t)cell_size, .amount2 = (int64_t)chunk_size);
    TIMED_INT(
               IOL_DAOS_REAL(daos_array_open_with_attr)(coh, oid, th, mode, cell_size, chunk_size,
                                                        oh, ev),
               OPENED(coh, oid, oh, DAOS_ARRAY_OPENS, (int64_t)cell_size, (int64_t)chunk_size));
}

int daos_kv_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
                 daos_event_t *ev)
{
    PENDING(opened_done, .coh = coh, .oid = oid, .out_h = oh, .counter = DAOS_KV_OPENS);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_open)(coh, oid, mode, oh, ev),
               OPENED(coh, oid, oh, DAOS_KV_OPENS, 0, 0));
}

#define CLOSED(oh) ret == 0 && !ev, KEEP_ERRNO(iol_daos_obj_closed(oh, &sp))
#define PENDING_CLOSE(oh) PENDING(closed_done, .h = oh)

int daos_obj_close(daos_handle_t oh, daos_event_t *ev)
{
    PENDING_CLOSE(oh);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_close)(oh, ev), CLOSED(oh));
}

int daos_array_close(daos_handle_t oh, daos_event_t *ev)
{
    PENDING_CLOSE(oh);
    TIMED_INT( IOL_DAOS_REAL(daos_array_close)(oh, ev), CLOSED(oh));
}

int daos_kv_close(daos_handle_t oh, daos_event_t *ev)
{
    PENDING_CLOSE(oh);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_close)(oh, ev), CLOSED(oh));
}

/* ------------------------------------------------------------ data */
#define MOVED(oh, counter, amount, w)                                               \
    ret == 0 && !ev, KEEP_ERRNO(iol_daos_obj_moved(oh, counter, amount, w, 0, &sp))

int daos_obj_fetch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
                   unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_iom_t *ioms,
                   daos_event_t *ev)
{
    int64_t bytes = iod_bytes(iods, nr);
    PENDING(read_done, .h = oh, .counter = DAOS_OBJ_FETCHES, .amount = bytes);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_fetch)(oh, th, flags, dkey, nr, iods, sgls, ioms, ev),
               MOVED(oh, DAOS_OBJ_FETCHES, bytes, 0));
}

int daos_obj_update(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
                    unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_event_t *ev)
{
    int64_t bytes = iod_bytes(iods, nr);
    PENDING(write_done, .h = oh, .counter = DAOS_OBJ_UPDATES, .amount = bytes);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_update)(oh, th, flags, dkey, nr, iods, sgls, ev),
               MOVED(oh, DAOS_OBJ_UPDATES, bytes, 1));
}

int daos_array_read(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
                    daos_event_t *ev)
{
    int64_t cells = array_cells(iod);
    PENDING(read_done, .h = oh, .counter = DAOS_ARRAY_READS, .amount = cells);
    TIMED_INT( IOL_DAOS_REAL(daos_array_read)(oh, th, iod, sgl, ev),
               MOVED(oh, DAOS_ARRAY_READS, cells, 0));
}

int daos_array_write(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
                     daos_event_t *ev)
{
    int64_t cells = array_cells(iod);
    PENDING(write_done, .h = oh, .counter = DAOS_ARRAY_WRITES, .amount = cells);
    TIMED_INT( IOL_DAOS_REAL(daos_array_write)(oh, th, iod, sgl, ev),
               MOVED(oh, DAOS_ARRAY_WRITES, cells, 1));
}

/* A get's bytes are the value size the call returns. */
int daos_kv_get(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
                daos_size_t *size, void *buf, daos_event_t *ev)
{
    PENDING_IF(size, read_done, .h = oh, .counter = DAOS_KV_GETS, .size = size);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_get)(oh, th, flags, key, size, buf, ev),
               MOVED(oh, DAOS_KV_GETS, size ? (int64_t)*size : 0, 0));
}

int daos_kv_put(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
                daos_size_t size, const void *buf, daos_event_t *ev)
{
    PENDING(write_done, .h = oh, .counter = DAOS_KV_PUTS, .amount = (int64_t)size);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_put)(oh, th, flags, key, size, buf, ev),
               MOVED(oh, DAOS_KV_PUTS, (int64_t)size, 1));
}

/* ------------------------------------------------------------ other calls */
#define META(oh, counter) ret == 0 && !ev, KEEP_ERRNO(iol_daos_obj_meta(oh, counter, 0, &sp))
#define PENDING_META(oh, counter_) PENDING(meta_done, .h = oh, .counter = counter_)

int daos_obj_punch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_PUNCHES);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_punch)(oh, th, flags, ev), META(oh, DAOS_OBJ_PUNCHES));
}

int daos_obj_punch_dkeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, unsigned int nr,
                         daos_key_t *dkeys, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_DKEY_PUNCHES);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_punch_dkeys)(oh, th, flags, nr, dkeys, ev),
               META(oh, DAOS_OBJ_DKEY_PUNCHES));
}

int daos_obj_punch_akeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
                         unsigned int nr, daos_key_t *akeys, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_AKEY_PUNCHES);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_punch_akeys)(oh, th, flags, dkey, nr, akeys, ev),
               META(oh, DAOS_OBJ_AKEY_PUNCHES));
}

int daos_obj_list_dkey(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
                       d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_DKEY_LISTS);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_list_dkey)(oh, th, nr, kds, sgl, anchor, ev),
               META(oh, DAOS_OBJ_DKEY_LISTS));
}

int daos_obj_list_akey(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, uint32_t *nr,
                       daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor,
                       daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_AKEY_LISTS);
    TIMED_INT( IOL_DAOS_REAL(daos_obj_list_akey)(oh, th, dkey, nr, kds, sgl, anchor, ev),
               META(oh, DAOS_OBJ_AKEY_LISTS));
}

int daos_obj_list_recx(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, daos_key_t *akey,
                       daos_size_t *size, uint32_t *nr, daos_recx_t *recxs,
                       daos_epoch_range_t *eprs, daos_anchor_t *anchor, bool incr_order,
                       daos_event_t *ev)
{
    PENDING_META(oh, DAOS_OBJ_RECX_LISTS);
    TIMED_INT(
               IOL_DAOS_REAL(daos_obj_list_recx)(oh, th, dkey, akey, size, nr, recxs, eprs, anchor,
                                                 incr_order, ev),
               META(oh, DAOS_OBJ_RECX_LISTS));
}

int daos_array_get_size(daos_handle_t oh, daos_handle_t th, daos_size_t *size, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_ARRAY_GET_SIZES);
    TIMED_INT( IOL_DAOS_REAL(daos_array_get_size)(oh, th, size, ev),
               META(oh, DAOS_ARRAY_GET_SIZES));
}

int daos_array_set_size(daos_handle_t oh, daos_handle_t th, daos_size_t size, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_ARRAY_SET_SIZES);
    TIMED_INT( IOL_DAOS_REAL(daos_array_set_size)(oh, th, size, ev),
               META(oh, DAOS_ARRAY_SET_SIZES));
}

int daos_array_stat(daos_handle_t oh, daos_handle_t th, daos_array_stbuf_t *stbuf, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_ARRAY_STATS);
    TIMED_INT( IOL_DAOS_REAL(daos_array_stat)(oh, th, stbuf, ev), META(oh, DAOS_ARRAY_STATS));
}

int daos_array_punch(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_ARRAY_PUNCHES);
    TIMED_INT( IOL_DAOS_REAL(daos_array_punch)(oh, th, iod, ev),
               META(oh, DAOS_ARRAY_PUNCHES));
}

int daos_array_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_ARRAY_DESTROYS);
    TIMED_INT( IOL_DAOS_REAL(daos_array_destroy)(oh, th, ev), META(oh, DAOS_ARRAY_DESTROYS));
}

int daos_kv_remove(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
                   daos_event_t *ev)
{
    PENDING_META(oh, DAOS_KV_REMOVES);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_remove)(oh, th, flags, key, ev), META(oh, DAOS_KV_REMOVES));
}

int daos_kv_list(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
                 d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_KV_LISTS);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_list)(oh, th, nr, kds, sgl, anchor, ev),
               META(oh, DAOS_KV_LISTS));
}

int daos_kv_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev)
{
    PENDING_META(oh, DAOS_KV_DESTROYS);
    TIMED_INT( IOL_DAOS_REAL(daos_kv_destroy)(oh, th, ev), META(oh, DAOS_KV_DESTROYS));
}
