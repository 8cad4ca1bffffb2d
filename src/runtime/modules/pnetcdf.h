/* The PNETCDF_FILE and PNETCDF_VAR modules (pnetcdf_file.c, pnetcdf_var.c):
 * record functions their wrappers (pnetcdf_file_wrap.c, pnetcdf_var_wrap.c) call
 * after the real call, with the call's clock readings.  Each takes its module's
 * lock itself; callers hold no lock, and every PnetCDF query is made before (the
 * module code calls no PnetCDF function). */
#ifndef IOLENS_RUNTIME_PNETCDF_H
#define IOLENS_RUNTIME_PNETCDF_H

#include "../core/stats.h"
#include "pnetcdf_api.h"

/* ------------------------------------------------------------ PNETCDF_FILE */
enum iol_ncf_meta { IOL_NCF_REDEF, IOL_NCF_ENDDEF, IOL_NCF_SYNC };

void iol_ncf_open(int ncid, const char *path, int created, const iol_span *sp);
void iol_ncf_meta(int ncid, enum iol_ncf_meta what, const iol_span *sp);
/* A wait (ok: it returned NC_NOERR); recorded whatever it returned. */
void iol_ncf_wait(int ncid, int collective, int ok, const iol_span *sp);
/* A successful close; put/get_size: the library's byte counts, -1 if unknown. */
void iol_ncf_close(int ncid, int64_t put_size, int64_t get_size, const iol_span *sp);

/* ------------------------------------------------------------ PNETCDF_VAR */
/* What def_var/inq_varid found out (pnetcdf_var_wrap.c asks PnetCDF). */
typedef struct iol_ncv_open_info {
    const char *name;        /* <cleaned file path>:<variable name> */
    uint64_t file_rec_id;
    int64_t ndims, npoints, type_size;
    int is_record;
    int unlimdimid;          /* the file's record dimension, -1 none */
} iol_ncv_open_info;

enum iol_nc_op { IOL_NC_PUT, IOL_NC_GET, IOL_NC_IPUT, IOL_NC_IGET, IOL_NC_BPUT };
/* The order of the kind counters (PUT_VAR, PUT_VAR1, ... PUT_VARD). */
enum iol_nc_shape { IOL_NC_S_var, IOL_NC_S_var1, IOL_NC_S_vara, IOL_NC_S_vars,
                    IOL_NC_S_varm, IOL_NC_S_varn, IOL_NC_S_vard };

/* One successful data call: the arguments its access size depends on. */
typedef struct iol_nc_access {
    enum iol_nc_op op;
    enum iol_nc_shape shape;
    int collective;                          /* an _all form */
    const MPI_Offset *count, *stride;        /* vara, vars, varm */
    int strided;                             /* vars, varm: strides are counted */
    int num;                                 /* varn */
    MPI_Offset *const *counts;               /* varn */
    int64_t unlim_len;                       /* var: record dimension's length, -1 none */
    int64_t vard_bytes;                      /* vard: the file type's size */
} iol_nc_access;

void iol_ncv_open(int varid, const iol_ncv_open_info *info, const iol_span *sp);
/* The record dimension the variable of varid was opened with: -1 none, -2 untracked. */
int iol_ncv_unlimdim(int varid);
void iol_ncv_access(int varid, const iol_nc_access *a, const iol_span *sp);

#endif
