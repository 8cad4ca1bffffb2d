/* H5D module (id 4, record version 2; runtime spec 2.4): one record per dataset,
 * named "<cleaned file path>:<location path><dataset name>" (h5d_wrap.c builds
 * the name), with the id of its file's H5F record.  Open dataset ids map to their
 * record for reads, writes, flushes and closes. */
#include <stddef.h>
#include <string.h>

#include "hdf5.h"
#include "region.h"
#include "hidrec.h"
#include "tuple_cv.h"

typedef struct h5d_rec {
    uint64_t id;
    int64_t rank;
    uint64_t file_rec_id;
    int64_t c[H5D_NUM_INDICES];
    double f[H5D_F_NUM_INDICES];
} h5d_rec;

/* Not IOL_ASSERT_RECORD_LAYOUT: the file's record id sits between base and counters. */
_Static_assert(offsetof(h5d_rec, c) == 24 && sizeof(h5d_rec) ==
               24 + 8 * (H5D_NUM_INDICES + H5D_F_NUM_INDICES),
               "h5d_rec does not match the H5D counter table");

typedef struct h5d_aux {
    double last_read_end, last_write_end, last_meta_end;
    int last_io;             /* 0 none, 1 read, 2 write */
    iol_tuple_cv cv;
} h5d_aux;

static iol_hidmap open_sets;

static iol_module *h5d_mod(void) { return iol_mod(IOL_MOD_H5D); }


/* ------------------------------------------------------------ events */
void iol_h5d_open(hid_t id, const iol_h5d_open_info *o, const iol_span *sp)
{
    iol_module *m = h5d_mod();
    if (!iol_mod_enter(m))
        return;
    void *aux;
    h5d_rec *r = iol_rec_get(m, o->name, iol_hash(o->name, strlen(o->name)), &aux);
    if (!r) {
        iol_mod_leave(m);
        return;
    }
    h5d_aux *a = aux;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[H5D_OPENS]++;
    r->c[H5D_USE_DEPRECATED] = o->deprecated;          /* the last open decides */
    iol_stamp(&r->f[H5D_F_OPEN_START_TIMESTAMP], &r->f[H5D_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[H5D_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_HDF5, IOL_REGION_META, 0, t1, t2);
    r->c[H5D_DATASPACE_NDIMS] = o->ndims;
    r->c[H5D_DATASPACE_NPOINTS] = o->npoints;
    for (int i = 0; i < IOL_H5_MAX_NDIMS; i++)
        if (o->chunk[i])
            r->c[H5D_CHUNK_SIZE_D1 + i] = o->chunk[i];
    r->c[H5D_DATATYPE_SIZE] = o->type_size;
    r->file_rec_id = o->file_rec_id;
    iol_hidmap_put(&open_sets, id, (uint32_t)iol_rec_index(m, r) + 1);
    iol_mod_leave(m);
}

/* The record of an open id, with the lock held; NULL (no lock) if untracked. */
static h5d_rec *enter_id(hid_t id, h5d_aux **a)
{
    return iol_hidrec_enter(h5d_mod(), &open_sets, id, (void **)a);
}

int iol_h5d_tracked(hid_t id)
{
    h5d_aux *a;
    if (!enter_id(id, &a))
        return 0;
    iol_mod_leave(h5d_mod());
    return 1;
}

void iol_h5d_io(hid_t id, int is_write, const iol_h5d_sel *s, const iol_span *sp)
{
    h5d_aux *a;
    h5d_rec *r = enter_id(id, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[is_write ? H5D_WRITES : H5D_READS]++;
    if (a->last_io && a->last_io != 1 + is_write)
        r->c[H5D_RW_SWITCHES]++;
    a->last_io = 1 + is_write;
    int64_t tuple[IOL_TUPLE_LEN] = {0};
    int64_t npoints = s->all ? r->c[H5D_DATASPACE_NPOINTS] : s->npoints;
    if (!s->all && s->type == IOL_H5S_SEL_POINTS) {
        r->c[H5D_POINT_SELECTS]++;
    } else if (!s->all && s->type == IOL_H5S_SEL_HYPERSLABS) {
        r->c[s->regular ? H5D_REGULAR_HYPERSLAB_SELECTS : H5D_IRREGULAR_HYPERSLAB_SELECTS]++;
        if (s->regular)
            for (int i = 0; i < IOL_H5_MAX_NDIMS; i++) {
                tuple[1 + i] = s->len[i];
                tuple[1 + IOL_H5_MAX_NDIMS + i] = s->stride[i];
            }
    }
    /* bytes = selected points x the dataset's element size (not the memory type's) */
    int64_t bytes = npoints * r->c[H5D_DATATYPE_SIZE];
    tuple[0] = bytes;
    r->c[is_write ? H5D_BYTES_WRITTEN : H5D_BYTES_READ] += bytes;
    r->c[(is_write ? H5D_SIZE_WRITE_AGG_0_100 : H5D_SIZE_READ_AGG_0_100) +
         iol_size_bin(bytes < 0 ? 0 : bytes)]++;
    iol_tuple_add(&a->cv, tuple, &r->c[H5D_ACCESS1_ACCESS], &r->c[H5D_ACCESS1_COUNT]);
    if (s->collective)
        r->c[H5D_USE_MPIIO_COLLECTIVE] = 1;
    double *last_end = is_write ? &a->last_write_end : &a->last_read_end;
    if (is_write) {
        iol_stamp(&r->f[H5D_F_WRITE_START_TIMESTAMP], &r->f[H5D_F_WRITE_END_TIMESTAMP], t1, t2);
        if (t2 - t1 > r->f[H5D_F_MAX_WRITE_TIME]) {
            r->f[H5D_F_MAX_WRITE_TIME] = t2 - t1;
            r->c[H5D_MAX_WRITE_TIME_SIZE] = bytes;
        }
        iol_time_add(&r->f[H5D_F_WRITE_TIME], last_end, t1, t2);
    } else {
        iol_stamp(&r->f[H5D_F_READ_START_TIMESTAMP], &r->f[H5D_F_READ_END_TIMESTAMP], t1, t2);
        if (t2 - t1 > r->f[H5D_F_MAX_READ_TIME]) {
            r->f[H5D_F_MAX_READ_TIME] = t2 - t1;
            r->c[H5D_MAX_READ_TIME_SIZE] = bytes;
        }
        iol_time_add(&r->f[H5D_F_READ_TIME], last_end, t1, t2);
    }
    iol_region_io(IOL_REGION_HDF5, is_write ? IOL_REGION_WRITE : IOL_REGION_READ,
                  bytes < 0 ? 0 : bytes, t1, t2);
    iol_mod_leave(h5d_mod());
}

void iol_h5d_flush(hid_t id, const iol_span *sp)
{
    h5d_aux *a;
    h5d_rec *r = enter_id(id, &a);
    if (!r)
        return;
    r->c[H5D_FLUSHES]++;
    iol_time_add_span(&r->f[H5D_F_META_TIME], &a->last_meta_end, sp);
    iol_region_io_span(IOL_REGION_HDF5, IOL_REGION_META, 0, sp);
    iol_mod_leave(h5d_mod());
}

int iol_h5d_close(hid_t id, const iol_span *sp)
{
    h5d_aux *a;
    h5d_rec *r = enter_id(id, &a);
    if (!r)
        return 0;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_stamp(&r->f[H5D_F_CLOSE_START_TIMESTAMP], &r->f[H5D_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[H5D_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_HDF5, IOL_REGION_META, 0, t1, t2);
    iol_hidmap_del(&open_sets, id);
    iol_mod_leave(h5d_mod());
    return 1;
}

IOL_HIDREC_HOOKS(open_sets)

const iol_module_desc iol_h5d_module = {
    IOL_MODULE_IDENTITY(H5D),
    .rec_size = sizeof(h5d_rec),
    .aux_size = sizeof(h5d_aux),
    .default_records = 1024,
    .path_names = 1,
    .activate = activate,
    .reset = reset,
};
