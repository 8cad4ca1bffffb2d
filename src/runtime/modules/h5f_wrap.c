/* Wrappers of the H5F functions (wrappers/hdf5.def).  The real call is made
 * first; only a successful one is recorded, and only once the HDF5 library the
 * process uses is known to be instrumentable (iol_h5_ready).  errno is kept as the
 * real call left it. */
#include "hdf5.h"

/* Does the access list select the MPI-IO driver?  (Spec 2.4's probe with
 * H5Pget_fapl_mpio duplicates the communicator, which would then have to be
 * freed; comparing drivers answers the same question without that.) */
static int uses_mpio(hid_t fapl)
{
    if (fapl == IOL_H5P_DEFAULT || !iol_h5.H5Pget_driver || !iol_h5.H5FD_mpio_init)
        return 0;
    hid_t drv = -1, mpio = -2;
    IOL_H5_QUIET(drv = iol_h5.H5Pget_driver(fapl); mpio = iol_h5.H5FD_mpio_init());
    return drv >= 0 && drv == mpio;
}

static void opened(hid_t ret, const char *filename, hid_t fapl, const iol_span *sp)
{
    int e = errno;
    if (iol_h5_ready())
        iol_h5f_open(ret, filename, uses_mpio(fapl), sp);
    errno = e;
}

hid_t H5Fcreate(const char *filename, unsigned flags, hid_t fcpl, hid_t fapl)
{
    TIMED_BODY(hid_t, IOL_H5_REAL(H5Fcreate)(filename, flags, fcpl, fapl), ret >= 0, opened(ret, filename, fapl, &sp));
}

hid_t H5Fopen(const char *filename, unsigned flags, hid_t fapl)
{
    TIMED_BODY(hid_t, IOL_H5_REAL(H5Fopen)(filename, flags, fapl), ret >= 0, opened(ret, filename, fapl, &sp));
}

/* Any object id may be flushed: its file's id is asked for, and released with the
 * real H5Fclose (not ours: that is no close of the application's). */
static void flushed(hid_t object_id, const iol_span *sp)
{
    int e = errno;
    if (iol_h5_ready()) {
        hid_t file_id = -1;
        IOL_H5_QUIET(file_id = iol_h5.H5Iget_file_id(object_id));
        if (file_id >= 0) {
            iol_h5f_flush(file_id, sp);
            iol_h5.H5Fclose(file_id);
        }
    }
    errno = e;
}

herr_t H5Fflush(hid_t object_id, int scope)
{
    TIMED_BODY(herr_t, IOL_H5_REAL(H5Fflush)(object_id, scope), ret >= 0, flushed(object_id, &sp));
}

static void closed(hid_t file_id, const iol_span *sp)
{
    int e = errno;
    iol_h5f_close(file_id, sp);
    errno = e;
}

herr_t H5Fclose(hid_t file_id)
{
    TIMED_BODY(herr_t, IOL_H5_REAL(H5Fclose)(file_id), ret >= 0, closed(file_id, &sp));
}
