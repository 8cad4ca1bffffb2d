/* Wrappers of PnetCDF's variable definition and lookup (ncmpi_def_var,
 * ncmpi_inq_varid) and of every data call, generated from the lists of
 * wrappers/pnetcdf.def: put/get of var, var1, vara, vars, varm, varn (flexible
 * and 12 typed forms, independent and _all), vard, and the nonblocking
 * iput/iget/bput forms.  A successful call is recorded; what its access size
 * needs from PnetCDF or MPI is asked here, before the module's lock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pnetcdf.h"

/* With PnetCDF's header at hand, the compiler checks every wrapper's prototype
 * against the library's declaration (a mismatch is a conflicting-types error). */
#if defined(__has_include)
#if __has_include(<pnetcdf.h>)
#include <pnetcdf.h>
#endif
#endif

/* ------------------------------------------------------------ opens */
static int64_t type_size(int xtype)
{
    switch (xtype) {
    case IOL_NC_BYTE: case IOL_NC_CHAR: case IOL_NC_UBYTE: return 1;
    case IOL_NC_SHORT: case IOL_NC_USHORT: return 2;
    case IOL_NC_INT: case IOL_NC_UINT: case IOL_NC_FLOAT: return 4;
    default: return 8;
    }
}

/* Describe the variable just defined or looked up and record its open. */
static void var_opened(int ncid, const char *varname, int xtype, int ndims, const int *dimids,
                       int varid, const iol_span *sp)
{
    if (!varname || ndims < 0 || (ndims > 0 && !dimids))
        return;
    int pathlen = 0;
    char path[IOL_PATH_LEN], clean[IOL_PATH_LEN], name[IOL_PATH_LEN];
    if (iol_nc.ncmpi_inq_path(ncid, &pathlen, NULL) != IOL_NC_NOERR || pathlen < 0 ||
        pathlen >= IOL_PATH_LEN || iol_nc.ncmpi_inq_path(ncid, NULL, path) != IOL_NC_NOERR)
        return;
    path[pathlen] = '\0';
    iol_clean_path(path, clean, sizeof clean);
    int n = snprintf(name, sizeof name, "%s:%s", clean, varname);
    if (n < 0 || (size_t)n >= sizeof name)
        return;                              /* a name this long is not recorded */
    iol_ncv_open_info o = {.name = name, .file_rec_id = iol_hash(clean, strlen(clean)),
                           .ndims = ndims, .type_size = type_size(xtype), .unlimdimid = -1};
    if (iol_nc.ncmpi_inq_unlimdim(ncid, &o.unlimdimid) != IOL_NC_NOERR)
        o.unlimdimid = -1;
    int i = 0;
    if (ndims > 0 && o.unlimdimid >= 0 && dimids[0] == o.unlimdimid) {
        o.is_record = 1;
        i = 1;                               /* NPOINTS leaves the record dimension out */
    }
    o.npoints = 1;
    for (; i < ndims; i++) {
        MPI_Offset len = 0;
        if (iol_nc.ncmpi_inq_dimlen(ncid, dimids[i], &len) == IOL_NC_NOERR)
            o.npoints *= len;
    }
    iol_ncv_open(varid, &o, sp);
}

typedef int (*def_var_fn)(int, const char *, int, int, const int *, int *);
typedef int (*inq_varid_fn)(int, const char *, int *);
static def_var_fn real_def_var;
static inq_varid_fn real_inq_varid;

int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
                  int *varidp)
{
    def_var_fn fn = IOL_NC_REAL(real_def_var, "ncmpi_def_var");
    if (!iol_on())
        return fn(ncid, name, xtype, ndims, dimidsp, varidp);
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(ncid, name, xtype, ndims, dimidsp, varidp);
    iol_span_end(&sp);
    if (ret == IOL_NC_NOERR && varidp) {
        int e = errno;
        if (iol_nc_ready())
            var_opened(ncid, name, xtype, ndims, dimidsp, *varidp, &sp);
        errno = e;
    }
    return ret;
}

int ncmpi_inq_varid(int ncid, const char *name, int *varidp)
{
    inq_varid_fn fn = IOL_NC_REAL(real_inq_varid, "ncmpi_inq_varid");
    if (!iol_on())
        return fn(ncid, name, varidp);
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(ncid, name, varidp);
    iol_span_end(&sp);
    if (ret == IOL_NC_NOERR && varidp) {
        int e = errno;
        int xtype, ndims, dimids[IOL_NC_MAX_DIMS];
        if (iol_nc_ready() && iol_nc.ncmpi_inq_vartype(ncid, *varidp, &xtype) == IOL_NC_NOERR &&
            iol_nc.ncmpi_inq_varndims(ncid, *varidp, &ndims) == IOL_NC_NOERR &&
            ndims <= IOL_NC_MAX_DIMS &&
            iol_nc.ncmpi_inq_vardimid(ncid, *varidp, dimids) == IOL_NC_NOERR)
            var_opened(ncid, name, xtype, ndims, dimids, *varidp, &sp);
        errno = e;
    }
    return ret;
}

/* ------------------------------------------------------------ data calls */
/* A successful data call: complete what the access size needs, then record. */
static void accessed(int ncid, int varid, iol_nc_access *x, const iol_span *sp)
{
    int e = errno;
    x->unlim_len = -1;
    if (x->shape == IOL_NC_S_var) {
        int dimid = iol_ncv_unlimdim(varid);
        MPI_Offset len;
        if (dimid == -2) {
            errno = e;
            return;                          /* untracked variable */
        }
        if (dimid >= 0 && iol_nc_ready() &&
            iol_nc.ncmpi_inq_dimlen(ncid, dimid, &len) == IOL_NC_NOERR)
            x->unlim_len = len;
    }
    iol_ncv_access(varid, x, sp);
    errno = e;
}

/* vard's access size: the file type's size in bytes (0 for MPI_DATATYPE_NULL). */
static int64_t filetype_bytes(MPI_Datatype filetype)
{
    int n = 0;
    if (filetype == MPI_DATATYPE_NULL || PMPI_Type_size(filetype, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

#define IOL_UNPACK(...) __VA_ARGS__

/* Each shape's parameters before the buffer (P), the same as arguments (A), and
 * the iol_nc_access fields they fill (D). */
#define SHAPE_P_var
#define SHAPE_A_var
#define SHAPE_D_var
#define SHAPE_P_var1 const MPI_Offset *start,
#define SHAPE_A_var1 start,
#define SHAPE_D_var1
#define SHAPE_P_vara const MPI_Offset *start, const MPI_Offset *count,
#define SHAPE_A_vara start, count,
#define SHAPE_D_vara .count = count,
#define SHAPE_P_vars const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,
#define SHAPE_A_vars start, count, stride,
#define SHAPE_D_vars .count = count, .stride = stride, .strided = 1,
#define SHAPE_P_varm                                                                    \
    const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,         \
        const MPI_Offset *imap,
#define SHAPE_A_varm start, count, stride, imap,
#define SHAPE_D_varm .count = count, .stride = stride, .strided = 1,
#define SHAPE_P_varn int num, MPI_Offset *const *starts, MPI_Offset *const *counts,
#define SHAPE_A_varn num, starts, counts,
#define SHAPE_D_varn .num = num, .counts = counts,
#define SHAPE_P_vard MPI_Datatype filetype,
#define SHAPE_A_vard filetype,
#define SHAPE_D_vard .vard_bytes = filetype_bytes(filetype),

/* The buffer is const for the writing operations. */
#define CONST_put const
#define CONST_iput const
#define CONST_bput const
#define CONST_get
#define CONST_iget
#define OP_put IOL_NC_PUT
#define OP_get IOL_NC_GET
#define OP_iput IOL_NC_IPUT
#define OP_iget IOL_NC_IGET
#define OP_bput IOL_NC_BPUT

/* One wrapper.  BUFP/BUFA: the parameters/arguments after the shape's, in
 * parentheses. */
#define NC_WRAPPER(NAME, OPNAME, SHAPE, COLL, BUFP, BUFA)                               \
    typedef int (*NAME##_fn)(int ncid, int varid, SHAPE_P_##SHAPE IOL_UNPACK BUFP);       \
    static NAME##_fn NAME##_real;                                                         \
    int NAME(int ncid, int varid, SHAPE_P_##SHAPE IOL_UNPACK BUFP)                        \
    {                                                                                     \
        NAME##_fn fn = IOL_NC_REAL(NAME##_real, #NAME);                                   \
        if (!iol_on())                                                                    \
            return fn(ncid, varid, SHAPE_A_##SHAPE IOL_UNPACK BUFA);                      \
        iol_span sp;                                                                      \
        iol_span_begin(&sp);                                                              \
        int ret = fn(ncid, varid, SHAPE_A_##SHAPE IOL_UNPACK BUFA);                       \
        iol_span_end(&sp);                                                                \
        if (ret == IOL_NC_NOERR) {                                                        \
            iol_nc_access x = {.op = OP_##OPNAME, .shape = IOL_NC_S_##SHAPE,              \
                               .collective = COLL, SHAPE_D_##SHAPE};                      \
            accessed(ncid, varid, &x, &sp);                                               \
        }                                                                                 \
        return ret;                                                                       \
    }

#define FLEX_P(OP) (CONST_##OP void *buf, MPI_Offset bufcount, MPI_Datatype buftype)
#define FLEX_REQ_P(OP) (CONST_##OP void *buf, MPI_Offset bufcount, MPI_Datatype buftype, int *req)
#define FLEX_A (buf, bufcount, buftype)
#define FLEX_REQ_A (buf, bufcount, buftype, req)

/* Blocking: flexible and typed, independent and _all. */
#define NC_BLOCKING_TYPED(T, CT, OP, SHAPE)                                              \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE##_##T, OP, SHAPE, 0, (CONST_##OP CT *buf), (buf))     \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE##_##T##_all, OP, SHAPE, 1, (CONST_##OP CT *buf), (buf))
#define NC_BLOCKING(OP, SHAPE)                                                           \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE, OP, SHAPE, 0, FLEX_P(OP), FLEX_A)                    \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE##_all, OP, SHAPE, 1, FLEX_P(OP), FLEX_A)              \
    IOL_NC_TYPES(NC_BLOCKING_TYPED, OP, SHAPE)

/* Nonblocking: flexible and typed; they take a request id. */
#define NC_NONBLOCKING_TYPED(T, CT, OP, SHAPE)                                           \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE##_##T, OP, SHAPE, 0, (CONST_##OP CT *buf, int *req),  \
               (buf, req))
#define NC_NONBLOCKING(OP, SHAPE)                                                        \
    NC_WRAPPER(ncmpi_##OP##_##SHAPE, OP, SHAPE, 0, FLEX_REQ_P(OP), FLEX_REQ_A)            \
    IOL_NC_TYPES(NC_NONBLOCKING_TYPED, OP, SHAPE)

IOL_NC_BLOCKING(NC_BLOCKING)
IOL_NC_NONBLOCKING(NC_NONBLOCKING)
NC_WRAPPER(ncmpi_put_vard, put, vard, 0, FLEX_P(put), FLEX_A)
NC_WRAPPER(ncmpi_put_vard_all, put, vard, 1, FLEX_P(put), FLEX_A)
NC_WRAPPER(ncmpi_get_vard, get, vard, 0, FLEX_P(get), FLEX_A)
NC_WRAPPER(ncmpi_get_vard_all, get, vard, 1, FLEX_P(get), FLEX_A)
