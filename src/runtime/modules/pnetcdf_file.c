/* PNETCDF_FILE module (id 5, record version 3; runtime spec 2.5): one record per
 * file named by the path given to ncmpi_create/ncmpi_open (ROMIO prefix stripped,
 * cleaned).  Open ncids map to their record for the file's later calls. */
#include <string.h>

#include "hidrec.h"
#include "region.h"
#include "pnetcdf.h"

typedef struct ncf_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[PNETCDF_FILE_NUM_INDICES];
    double f[PNETCDF_FILE_F_NUM_INDICES];
} ncf_rec;

_Static_assert(sizeof(ncf_rec) == 152, "PNETCDF_FILE record of log format 3.41 (version 3)");

typedef struct ncf_aux {
    double last_meta_end, last_wait_end;
} ncf_aux;

static iol_hidmap open_files;

static iol_module *ncf_mod(void) { return iol_mod(IOL_MOD_PNETCDF_FILE); }


/* A ROMIO prefix ("ufs:/x") is dropped; a one-letter one is a drive letter. */
static const char *strip_prefix(const char *path)
{
    const char *colon = strchr(path, ':');
    return colon && colon > path + 1 ? colon + 1 : path;
}

void iol_ncf_open(int ncid, const char *path, int created, const iol_span *sp)
{
    iol_module *m = ncf_mod();
    void *aux;
    ncf_rec *r = path ? iol_rec_enter_path(m, strip_prefix(path), &aux) : NULL;
    if (!r)
        return;
    ncf_aux *a = aux;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[created ? PNETCDF_FILE_CREATES : PNETCDF_FILE_OPENS]++;
    iol_stamp(&r->f[PNETCDF_FILE_F_OPEN_START_TIMESTAMP], &r->f[PNETCDF_FILE_F_OPEN_END_TIMESTAMP],
              t1, t2);
    iol_time_add(&r->f[PNETCDF_FILE_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_PNETCDF, IOL_REGION_META, 0, t1, t2);
    iol_hidmap_put(&open_files, ncid, (uint32_t)iol_rec_index(m, r) + 1);
    iol_mod_leave(m);
}

static ncf_rec *enter_id(int ncid, ncf_aux **a)
{
    return iol_hidrec_enter(ncf_mod(), &open_files, ncid, (void **)a);
}

void iol_ncf_meta(int ncid, enum iol_ncf_meta what, const iol_span *sp)
{
    ncf_aux *a;
    ncf_rec *r = enter_id(ncid, &a);
    if (!r)
        return;
    if (what == IOL_NCF_REDEF)
        r->c[PNETCDF_FILE_REDEFS]++;
    else if (what == IOL_NCF_SYNC)
        r->c[PNETCDF_FILE_SYNCS]++;
    iol_time_add_span(&r->f[PNETCDF_FILE_F_META_TIME], &a->last_meta_end, sp);
    iol_region_io_span(IOL_REGION_PNETCDF, IOL_REGION_META, 0, sp);
    iol_mod_leave(ncf_mod());
}

void iol_ncf_wait(int ncid, int collective, int ok, const iol_span *sp)
{
    ncf_aux *a;
    ncf_rec *r = enter_id(ncid, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    if (!ok)
        r->c[PNETCDF_FILE_WAIT_FAILURES]++;
    else
        r->c[collective ? PNETCDF_FILE_COLL_WAITS : PNETCDF_FILE_INDEP_WAITS]++;
    iol_stamp(&r->f[PNETCDF_FILE_F_WAIT_START_TIMESTAMP], &r->f[PNETCDF_FILE_F_WAIT_END_TIMESTAMP],
              t1, t2);
    iol_time_add(&r->f[PNETCDF_FILE_F_WAIT_TIME], &a->last_wait_end, t1, t2);
    iol_mod_leave(ncf_mod());
}

/* A byte counter gains `n`, unless n is unknown or the counter already is: -1. */
static void add_bytes(int64_t *counter, int64_t n)
{
    *counter = n >= 0 && *counter >= 0 ? *counter + n : -1;
}

void iol_ncf_close(int ncid, int64_t put_size, int64_t get_size, const iol_span *sp)
{
    ncf_aux *a;
    ncf_rec *r = enter_id(ncid, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    add_bytes(&r->c[PNETCDF_FILE_BYTES_WRITTEN], put_size);
    add_bytes(&r->c[PNETCDF_FILE_BYTES_READ], get_size);
    iol_stamp(&r->f[PNETCDF_FILE_F_CLOSE_START_TIMESTAMP], &r->f[PNETCDF_FILE_F_CLOSE_END_TIMESTAMP],
              t1, t2);
    iol_time_add(&r->f[PNETCDF_FILE_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_PNETCDF, IOL_REGION_META, 0, t1, t2);
    iol_hidmap_del(&open_files, ncid);
    iol_mod_leave(ncf_mod());
}

IOL_HIDREC_HOOKS(open_files)

const iol_module_desc iol_pnetcdf_file_module = {
    .id = IOL_MOD_PNETCDF_FILE,
    .name = "PNETCDF_FILE",
    .version = 3,
    .rec_size = sizeof(ncf_rec),
    .aux_size = sizeof(ncf_aux),
    .default_records = 1024,
    .path_names = 1,
    .activate = activate,
    .reset = reset,
};
