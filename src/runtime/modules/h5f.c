/* H5F module (id 3, record version 3; runtime spec 2.4): one record per HDF5 file,
 * named by the path given to H5Fcreate/H5Fopen (ROMIO prefix stripped, cleaned).
 * Open file ids map to their record so that flush and close find it. */
#include <string.h>

#include "hdf5.h"
#include "region.h"
#include "hidrec.h"

typedef struct h5f_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[H5F_NUM_INDICES];
    double f[H5F_F_NUM_INDICES];
} h5f_rec;
IOL_ASSERT_RECORD_LAYOUT(h5f_rec, H5F);

typedef struct h5f_aux {
    double last_meta_end;
} h5f_aux;

static iol_hidmap open_files;

static iol_module *h5f_mod(void) { return iol_mod(IOL_MOD_H5F); }


/* MPI-IO file names may carry a ROMIO prefix ("ufs:/x"); a one-letter one is a
 * drive letter and stays (runtime spec 2.0.1). */
static const char *strip_prefix(const char *path)
{
    const char *colon = strchr(path, ':');
    return colon && colon > path + 1 ? colon + 1 : path;
}

void iol_h5f_open(hid_t id, const char *filename, int use_mpio, const iol_span *sp)
{
    iol_module *m = h5f_mod();
    void *aux;
    h5f_rec *r = filename ? iol_rec_enter_path(m, strip_prefix(filename), &aux) : NULL;
    if (!r)
        return;
    h5f_aux *a = aux;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[H5F_USE_MPIIO] = use_mpio;          /* set by every open, not or-ed (spec 2.4) */
    r->c[H5F_OPENS]++;
    iol_stamp(&r->f[H5F_F_OPEN_START_TIMESTAMP], &r->f[H5F_F_OPEN_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[H5F_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_HDF5, IOL_REGION_META, 0, t1, t2);
    iol_hidmap_put(&open_files, id, (uint32_t)iol_rec_index(m, r) + 1);
    iol_mod_leave(m);
}

/* The record of an open id, with the lock held; NULL (no lock) if untracked. */
static h5f_rec *enter_id(hid_t id, h5f_aux **a)
{
    return iol_hidrec_enter(h5f_mod(), &open_files, id, (void **)a);
}

void iol_h5f_flush(hid_t file_id, const iol_span *sp)
{
    h5f_aux *a;
    h5f_rec *r = enter_id(file_id, &a);
    if (!r)
        return;
    r->c[H5F_FLUSHES]++;
    iol_time_add_span(&r->f[H5F_F_META_TIME], &a->last_meta_end, sp);
    iol_region_io_span(IOL_REGION_HDF5, IOL_REGION_META, 0, sp);
    iol_mod_leave(h5f_mod());
}

void iol_h5f_close(hid_t file_id, const iol_span *sp)
{
    h5f_aux *a;
    h5f_rec *r = enter_id(file_id, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_stamp(&r->f[H5F_F_CLOSE_START_TIMESTAMP], &r->f[H5F_F_CLOSE_END_TIMESTAMP], t1, t2);
    iol_time_add(&r->f[H5F_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_HDF5, IOL_REGION_META, 0, t1, t2);
    iol_hidmap_del(&open_files, file_id);
    iol_mod_leave(h5f_mod());
}

IOL_HIDREC_HOOKS(open_files)

const iol_module_desc iol_h5f_module = {
    IOL_MODULE_IDENTITY(H5F),
    .rec_size = sizeof(h5f_rec),
    .aux_size = sizeof(h5f_aux),
    .default_records = 1024,
    .path_names = 1,
    .activate = activate,
    .reset = reset,
};
