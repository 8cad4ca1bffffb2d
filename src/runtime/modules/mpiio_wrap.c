/* MPI-IO wrappers (runtime spec 1.2 and 2.3): each times the real PMPI_ call and,
 * if it succeeded, hands the requested size to mpiio.c.  MPI_File_X and
 * PMPI_File_X are one function (alias), so calls made straight to PMPI_ (Fortran
 * bindings, other layers) are seen too.  Not wrapped, as upstream: *_end,
 * MPI_Wait*, seek, set_size and the other queries.
 *
 * Contract: return values pass through untouched and errno is preserved. */
#include <errno.h>

#include "../mpi/mpi_int.h"
#include "mpiio.h"

/* Requested bytes: type size x count in C int arithmetic, as upstream (it wraps
 * above 2 GiB, also for the _c large-count calls). */
static int req_bytes(long long count, MPI_Datatype dt)
{
    int ts = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &ts) != MPI_SUCCESS)
        return 0;
    return (int)(unsigned)((unsigned long long)ts * (unsigned long long)count);
}

#define IOL_PARAMS_A(B, N, L) (MPI_File fh, B buf, N count, MPI_Datatype dt, L last)
#define IOL_PARAMS_B(B, N, L) (MPI_File fh, MPI_Offset off, B buf, N count, MPI_Datatype dt, L last)
#define IOL_PARAMS_C(B, N, L) (MPI_File fh, B buf, N count, MPI_Datatype dt)
#define IOL_PARAMS_D(B, N, L) (MPI_File fh, MPI_Offset off, B buf, N count, MPI_Datatype dt)
#define IOL_ARGS_A (fh, buf, count, dt, last)
#define IOL_ARGS_B (fh, off, buf, count, dt, last)
#define IOL_ARGS_C (fh, buf, count, dt)
#define IOL_ARGS_D (fh, off, buf, count, dt)

/* The byte offset of a data call for its DXT_MPIIO segment, -1 when unknown or
 * not wanted (iol_mpiio_dxt_offsets).  Local queries only: explicit offsets are
 * converted after the call, the individual pointer is read before it (the call
 * moves it), and the shared pointer is not read (reading it is I/O). */
static int64_t byte_offset(MPI_File fh, MPI_Offset off)
{
    MPI_Offset b;
    int e = errno;
    int ok = PMPI_File_get_byte_offset(fh, off, &b) == MPI_SUCCESS;
    errno = e;
    return ok ? (int64_t)b : -1;
}
static int64_t individual_offset(MPI_File fh)
{
    MPI_Offset p;
    int e = errno;
    int ok = PMPI_File_get_position(fh, &p) == MPI_SUCCESS;
    errno = e;
    return ok ? byte_offset(fh, p) : -1;
}
#define IOL_POS_BEFORE_AT(fh) -1
#define IOL_POS_BEFORE_IND(fh) (iol_mpiio_dxt_offsets ? individual_offset(fh) : -1)
#define IOL_POS_BEFORE_SHR(fh) -1
#define IOL_POS_AFTER_AT(fh, pos) (iol_mpiio_dxt_offsets ? byte_offset(fh, off) : -1)
#define IOL_POS_AFTER_IND(fh, pos) pos
#define IOL_POS_AFTER_SHR(fh, pos) pos

#define IOL_MPIIO_WRAP(fn, pfn, shape, kind, wr, pos, B, N, L)                              \
    int fn IOL_PARAMS_##shape(B, N, L)                                                     \
    {                                                                                      \
        if (!iol_on())                                                                     \
            return IOL_MPI_REAL(pfn) IOL_ARGS_##shape;                                     \
        int64_t pos_ = IOL_POS_BEFORE_##pos(fh);                                           \
        (void)pos_;                                                                        \
        double t1 = iol_wtime();                                                           \
        int ret = IOL_MPI_REAL(pfn) IOL_ARGS_##shape;                                      \
        double t2 = iol_wtime();                                                           \
        if (ret == MPI_SUCCESS)                                                            \
            KEEP_ERRNO(iol_mpiio_io(fh, IOL_MPIIO_##kind, wr, req_bytes(count, dt),          \
                                    IOL_POS_AFTER_##pos(fh, pos_), t1, t2));               \
        return ret;                                                                        \
    }                                                                                      \
    int pfn IOL_PARAMS_##shape(B, N, L) __attribute__((alias(#fn)));

#if MPI_VERSION >= 4
#define IOL_MPIIO_RW(fn, shape, kind, wr, pos, B, L)                       \
    IOL_MPIIO_WRAP(fn, P##fn, shape, kind, wr, pos, B, int, L)             \
    IOL_MPIIO_WRAP(fn##_c, P##fn##_c, shape, kind, wr, pos, B, MPI_Count, L)
#else
#define IOL_MPIIO_RW(fn, shape, kind, wr, pos, B, L) \
    IOL_MPIIO_WRAP(fn, P##fn, shape, kind, wr, pos, B, int, L)
#endif
#include "mpiio_rw.def"
#undef IOL_MPIIO_RW

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    if (!iol_on())
        return IOL_MPI_REAL(PMPI_File_open)(comm, filename, amode, info, fh);
    double t1 = iol_wtime();
    int ret = IOL_MPI_REAL(PMPI_File_open)(comm, filename, amode, info, fh);
    double t2 = iol_wtime();
    if (ret == MPI_SUCCESS && filename && fh) {
        int e = errno, size = 1;
        PMPI_Comm_size(comm, &size);
        iol_mpiio_open(*fh, filename, amode, size, info != MPI_INFO_NULL, t1, t2);
        errno = e;
    }
    return ret;
}
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
    __attribute__((alias("MPI_File_open")));

/* Recorded whatever the real close returns (spec 2.3). */
int MPI_File_close(MPI_File *fh)
{
    if (!iol_on() || !fh)
        return IOL_MPI_REAL(PMPI_File_close)(fh);
    size_t idx;
    KEEP_ERRNO(idx = iol_mpiio_close_begin(*fh));
    double t1 = iol_wtime();
    int ret = IOL_MPI_REAL(PMPI_File_close)(fh);
    double t2 = iol_wtime();
    if (idx)
        KEEP_ERRNO(iol_mpiio_close_end(idx, t1, t2));
    return ret;
}
int PMPI_File_close(MPI_File *fh) __attribute__((alias("MPI_File_close")));

int MPI_File_sync(MPI_File fh)
{
    if (!iol_on())
        return IOL_MPI_REAL(PMPI_File_sync)(fh);
    double t1 = iol_wtime();
    int ret = IOL_MPI_REAL(PMPI_File_sync)(fh);
    double t2 = iol_wtime();
    if (ret == MPI_SUCCESS)
        KEEP_ERRNO(iol_mpiio_sync(fh, t1, t2));
    return ret;
}
int PMPI_File_sync(MPI_File fh) __attribute__((alias("MPI_File_sync")));

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    if (!iol_on())
        return IOL_MPI_REAL(PMPI_File_set_view)(fh, disp, etype, filetype, datarep, info);
    double t1 = iol_wtime();
    int ret = IOL_MPI_REAL(PMPI_File_set_view)(fh, disp, etype, filetype, datarep, info);
    double t2 = iol_wtime();
    if (ret == MPI_SUCCESS)
        KEEP_ERRNO(iol_mpiio_view(fh, info != MPI_INFO_NULL, t1, t2));
    return ret;
}
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info) __attribute__((alias("MPI_File_set_view")));
