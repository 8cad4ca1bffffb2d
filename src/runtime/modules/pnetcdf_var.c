/* PNETCDF_VAR module (id 6, record version 1; runtime spec 2.5): one record per
 * variable, named "<cleaned file path>:<variable name>", with the id of its
 * file's path.  A data call finds its record by varid alone, as upstream does:
 * the newest def_var/inq_varid of a varid number wins, whatever the file. */
#include <string.h>

#include "hidrec.h"
#include "region.h"
#include "pnetcdf.h"
#include "tuple_cv.h"

typedef struct ncv_rec {
    uint64_t id;
    int64_t rank;
    uint64_t file_rec_id;
    int64_t c[PNETCDF_VAR_NUM_INDICES];
    double f[PNETCDF_VAR_F_NUM_INDICES];
} ncv_rec;

_Static_assert(sizeof(ncv_rec) == 1120, "PNETCDF_VAR record of log format 3.41 (version 1)");

typedef struct ncv_aux {
    double last_read_end, last_write_end, last_meta_end;
    int last_io;             /* 0 none, 1 read, 2 write */
    int unlimdimid;          /* of the newest open */
    iol_tuple_cv cv;
} ncv_aux;

static iol_hidmap open_vars;

static iol_module *ncv_mod(void) { return iol_mod(IOL_MOD_PNETCDF_VAR); }


void iol_ncv_open(int varid, const iol_ncv_open_info *o, const iol_span *sp)
{
    iol_module *m = ncv_mod();
    if (!iol_mod_enter(m))
        return;
    void *aux;
    ncv_rec *r = iol_rec_get(m, o->name, iol_hash(o->name, strlen(o->name)), &aux);
    if (!r) {
        iol_mod_leave(m);
        return;
    }
    ncv_aux *a = aux;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    r->c[PNETCDF_VAR_OPENS]++;
    iol_stamp(&r->f[PNETCDF_VAR_F_OPEN_START_TIMESTAMP], &r->f[PNETCDF_VAR_F_OPEN_END_TIMESTAMP],
              t1, t2);
    iol_time_add(&r->f[PNETCDF_VAR_F_META_TIME], &a->last_meta_end, t1, t2);
    iol_region_io(IOL_REGION_PNETCDF, IOL_REGION_META, 0, t1, t2);
    a->unlimdimid = o->unlimdimid;
    if (o->is_record)
        r->c[PNETCDF_VAR_IS_RECORD_VAR] = 1;          /* never cleared */
    r->c[PNETCDF_VAR_NPOINTS] = o->npoints;
    r->c[PNETCDF_VAR_NDIMS] = o->ndims;
    r->c[PNETCDF_VAR_DATATYPE_SIZE] = o->type_size;
    r->file_rec_id = o->file_rec_id;
    iol_hidmap_put(&open_vars, varid, (uint32_t)iol_rec_index(m, r) + 1);
    iol_mod_leave(m);
}

/* The record of a varid, with the lock held; NULL (no lock) if untracked. */
static ncv_rec *enter_id(int varid, ncv_aux **a)
{
    return iol_hidrec_enter(ncv_mod(), &open_vars, varid, (void **)a);
}

int iol_ncv_unlimdim(int varid)
{
    ncv_aux *a;
    if (!enter_id(varid, &a))
        return -2;
    int d = a->unlimdimid;
    iol_mod_leave(ncv_mod());
    return d;
}

/* Elements the call accessed and the tuple's LEN/STRIDE values (spec 2.5): the
 * last five dimensions of vara/vars/varm, left-aligned in C order. */
static int64_t elements(const ncv_rec *r, const iol_nc_access *x, int64_t *tuple)
{
    int64_t ndims = r->c[PNETCDF_VAR_NDIMS];
    switch (x->shape) {
    case IOL_NC_S_var:
        return r->c[PNETCDF_VAR_NPOINTS] * (x->unlim_len >= 0 ? x->unlim_len : 1);
    case IOL_NC_S_var1:
        return 1;
    case IOL_NC_S_vara:
    case IOL_NC_S_vars:
    case IOL_NC_S_varm: {
        if (ndims <= 0 || !x->count)
            return 1;
        int64_t n = 1;
        for (int64_t i = 0; i < ndims; i++)
            n *= x->count[i];
        int64_t first = ndims > IOL_TUPLE_DIMS ? ndims - IOL_TUPLE_DIMS : 0;
        for (int64_t i = first; i < ndims; i++) {
            tuple[1 + i - first] = x->count[i];
            if (x->strided)
                tuple[1 + IOL_TUPLE_DIMS + i - first] = x->stride ? x->stride[i] : 1;
        }
        return n;
    }
    case IOL_NC_S_varn: {
        if (!x->counts)
            return x->num;
        int64_t n = 0;
        for (int i = 0; i < x->num; i++) {
            int64_t k = 1;
            for (int64_t j = 0; j < ndims; j++)
                k *= x->counts[i][j];
            n += k;
        }
        return n;
    }
    case IOL_NC_S_vard:
        break;
    }
    return 0;
}

static const int KIND_BASE[] = {
    [IOL_NC_PUT] = PNETCDF_VAR_PUT_VAR, [IOL_NC_GET] = PNETCDF_VAR_GET_VAR,
    [IOL_NC_IPUT] = PNETCDF_VAR_IPUT_VAR, [IOL_NC_IGET] = PNETCDF_VAR_IGET_VAR,
    [IOL_NC_BPUT] = PNETCDF_VAR_BPUT_VAR,
};

/* The counters of reads ([0]) and writes ([1]). */
typedef struct io_counters {
    int bytes, size_bin0, max_size;                  /* int64 counters */
    int start, end, max_time, time;                  /* double counters */
} io_counters;
static const io_counters IO[2] = {
    {PNETCDF_VAR_BYTES_READ, PNETCDF_VAR_SIZE_READ_AGG_0_100, PNETCDF_VAR_MAX_READ_TIME_SIZE,
     PNETCDF_VAR_F_READ_START_TIMESTAMP, PNETCDF_VAR_F_READ_END_TIMESTAMP,
     PNETCDF_VAR_F_MAX_READ_TIME, PNETCDF_VAR_F_READ_TIME},
    {PNETCDF_VAR_BYTES_WRITTEN, PNETCDF_VAR_SIZE_WRITE_AGG_0_100, PNETCDF_VAR_MAX_WRITE_TIME_SIZE,
     PNETCDF_VAR_F_WRITE_START_TIMESTAMP, PNETCDF_VAR_F_WRITE_END_TIMESTAMP,
     PNETCDF_VAR_F_MAX_WRITE_TIME, PNETCDF_VAR_F_WRITE_TIME},
};

void iol_ncv_access(int varid, const iol_nc_access *x, const iol_span *sp)
{
    ncv_aux *a;
    ncv_rec *r = enter_id(varid, &a);
    if (!r)
        return;
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    int is_write = x->op != IOL_NC_GET && x->op != IOL_NC_IGET;
    r->c[KIND_BASE[x->op] + x->shape]++;
    if (x->op == IOL_NC_PUT)
        r->c[x->collective ? PNETCDF_VAR_COLL_WRITES : PNETCDF_VAR_INDEP_WRITES]++;
    else if (x->op == IOL_NC_GET)
        r->c[x->collective ? PNETCDF_VAR_COLL_READS : PNETCDF_VAR_INDEP_READS]++;
    else
        r->c[is_write ? PNETCDF_VAR_NB_WRITES : PNETCDF_VAR_NB_READS]++;

    int64_t tuple[IOL_TUPLE_LEN] = {0};
    /* vard's size is the file type's, in bytes; the others count elements */
    int64_t bytes = x->shape == IOL_NC_S_vard
                        ? x->vard_bytes
                        : elements(r, x, tuple) * r->c[PNETCDF_VAR_DATATYPE_SIZE];
    tuple[0] = bytes;
    if (a->last_io && a->last_io != 1 + is_write)
        r->c[PNETCDF_VAR_RW_SWITCHES]++;
    a->last_io = 1 + is_write;
    const io_counters *k = &IO[is_write];
    r->c[k->bytes] += bytes;
    r->c[k->size_bin0 + iol_size_bin(bytes < 0 ? 0 : bytes)]++;
    iol_tuple_add(&a->cv, tuple, &r->c[PNETCDF_VAR_ACCESS1_ACCESS], &r->c[PNETCDF_VAR_ACCESS1_COUNT]);
    iol_stamp(&r->f[k->start], &r->f[k->end], t1, t2);
    if (t2 - t1 > r->f[k->max_time]) {
        r->f[k->max_time] = t2 - t1;
        r->c[k->max_size] = bytes;
    }
    iol_time_add(&r->f[k->time], is_write ? &a->last_write_end : &a->last_read_end, t1, t2);
    iol_region_io(IOL_REGION_PNETCDF, is_write ? IOL_REGION_WRITE : IOL_REGION_READ,
                  bytes < 0 ? 0 : bytes, t1, t2);
    iol_mod_leave(ncv_mod());
}

IOL_HIDREC_HOOKS(open_vars)

const iol_module_desc iol_pnetcdf_var_module = {
    .id = IOL_MOD_PNETCDF_VAR,
    .name = "PNETCDF_VAR",
    .version = 1,
    .rec_size = sizeof(ncv_rec),
    .aux_size = sizeof(ncv_aux),
    .default_records = 1024,
    .path_names = 1,
    .activate = activate,
    .reset = reset,
};
