/* Wrappers of PnetCDF's file-level functions (runtime spec 1.2, 2.5).  The real
 * call is made first and timed; errno is kept as the real call left it. */
#include <errno.h>

#include "pnetcdf.h"

typedef int (*open_fn)(MPI_Comm, const char *, int, MPI_Info, int *);
typedef int (*ncid_fn)(int);
typedef int (*wait_fn)(int, int, int *, int *);

static open_fn real_create, real_open;
static ncid_fn real_close, real_enddef, real_redef, real_sync;
static wait_fn real_wait, real_wait_all;

static int opened(open_fn *slot, const char *name, int created, MPI_Comm comm, const char *path,
                  int mode, MPI_Info info, int *ncidp)
{
    open_fn fn = IOL_NC_REAL(*slot, name);
    if (!iol_on())
        return fn(comm, path, mode, info, ncidp);
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(comm, path, mode, info, ncidp);
    iol_span_end(&sp);
    if (ret == IOL_NC_NOERR && ncidp) {
        int e = errno;
        iol_ncf_open(*ncidp, path, created, &sp);
        errno = e;
    }
    return ret;
}

int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp)
{
    return opened(&real_create, "ncmpi_create", 1, comm, path, cmode, info, ncidp);
}

int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp)
{
    return opened(&real_open, "ncmpi_open", 0, comm, path, omode, info, ncidp);
}

/* redef, enddef, sync: a successful call adds meta time (and its counter). */
static int meta_call(ncid_fn *slot, const char *name, int ncid, enum iol_ncf_meta what)
{
    ncid_fn fn = IOL_NC_REAL(*slot, name);
    if (!iol_on())
        return fn(ncid);
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(ncid);
    iol_span_end(&sp);
    if (ret == IOL_NC_NOERR) {
        int e = errno;
        iol_ncf_meta(ncid, what, &sp);
        errno = e;
    }
    return ret;
}

int ncmpi_redef(int ncid) { return meta_call(&real_redef, "ncmpi_redef", ncid, IOL_NCF_REDEF); }
int ncmpi_enddef(int ncid) { return meta_call(&real_enddef, "ncmpi_enddef", ncid, IOL_NCF_ENDDEF); }
int ncmpi_sync(int ncid) { return meta_call(&real_sync, "ncmpi_sync", ncid, IOL_NCF_SYNC); }

/* A wait is recorded whether it succeeds or not (a failure counts as one). */
static int wait_call(wait_fn *slot, const char *name, int collective, int ncid, int count,
                     int *reqs, int *statuses)
{
    wait_fn fn = IOL_NC_REAL(*slot, name);
    if (!iol_on())
        return fn(ncid, count, reqs, statuses);
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(ncid, count, reqs, statuses);
    iol_span_end(&sp);
    int e = errno;
    iol_ncf_wait(ncid, collective, ret == IOL_NC_NOERR, &sp);
    errno = e;
    return ret;
}

int ncmpi_wait(int ncid, int count, int array_of_requests[], int array_of_statuses[])
{
    return wait_call(&real_wait, "ncmpi_wait", 0, ncid, count, array_of_requests,
                     array_of_statuses);
}

int ncmpi_wait_all(int ncid, int count, int array_of_requests[], int array_of_statuses[])
{
    return wait_call(&real_wait_all, "ncmpi_wait_all", 1, ncid, count, array_of_requests,
                     array_of_statuses);
}

/* The library's byte counts are asked before the real close, which frees them. */
int ncmpi_close(int ncid)
{
    ncid_fn fn = IOL_NC_REAL(real_close, "ncmpi_close");
    if (!iol_on())
        return fn(ncid);
    int e = errno;
    MPI_Offset put = -1, get = -1;
    if (iol_nc_ready()) {
        if (iol_nc.ncmpi_inq_put_size(ncid, &put) != IOL_NC_NOERR)
            put = -1;
        if (iol_nc.ncmpi_inq_get_size(ncid, &get) != IOL_NC_NOERR)
            get = -1;
    }
    errno = e;
    iol_span sp;
    iol_span_begin(&sp);
    int ret = fn(ncid);
    iol_span_end(&sp);
    if (ret == IOL_NC_NOERR) {
        e = errno;
        iol_ncf_close(ncid, put, get, &sp);
        errno = e;
    }
    return ret;
}
