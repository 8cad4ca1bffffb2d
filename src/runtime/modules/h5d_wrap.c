/* Wrappers of the H5D functions and of the H5O calls that can open or close a
 * dataset (wrappers/hdf5.def).  What a record needs from HDF5 (names, dataspace,
 * type, chunking, selection) is asked here, outside the module's lock, with the
 * library's error printing off; the module (h5d.c) then only counts. */
#include <string.h>

#include "hdf5.h"

#define NAME_MAX_LEN 256     /* record names as upstream builds them: 255 chars */

/* The record name (spec 2.4): the file's name, cleaned when it fits, then ':', the
 * location's path and the dataset name, each appended only while it fits. */
static int dataset_name(hid_t loc, const char *dsname, iol_h5d_open_info *o)
{
    char raw[NAME_MAX_LEN] = "";
    ssize_t n = iol_h5.H5Fget_name(loc, raw, NAME_MAX_LEN - 1);
    if (n < 0)
        return -1;
    if (n >= NAME_MAX_LEN - 1) {             /* too long: kept raw, no file id */
        memcpy(o->name, raw, sizeof o->name);
        o->name[NAME_MAX_LEN - 1] = '\0';
        return 0;
    }
    char clean[IOL_PATH_LEN];
    iol_clean_path(raw, clean, sizeof clean);
    o->file_rec_id = iol_hash(clean, strlen(clean));
    size_t len = strnlen(clean, NAME_MAX_LEN - 1);
    memcpy(o->name, clean, len);
    o->name[len] = '\0';
    if (len + 2 > NAME_MAX_LEN - 1)
        return 0;
    o->name[len++] = ':';
    o->name[len] = '\0';
    size_t room = NAME_MAX_LEN - 1 - len;
    ssize_t k = iol_h5.H5Iget_name(loc, o->name + len, room);
    if (k < 0)
        return -1;
    if ((size_t)k < room) {
        len = strlen(o->name);
        size_t add = strnlen(dsname ? dsname : "", NAME_MAX_LEN - 1 - len);
        memcpy(o->name + len, dsname, add);
        o->name[len + add] = '\0';
    }
    return 0;
}

static void space_and_type(hid_t type, hid_t space, hid_t dcpl, iol_h5d_open_info *o)
{
    o->ndims = iol_h5.H5Sget_simple_extent_ndims(space);
    o->npoints = iol_h5.H5Sget_simple_extent_npoints(space);
    if (dcpl != IOL_H5P_DEFAULT && iol_h5.H5Pget_layout(dcpl) == IOL_H5D_CHUNKED) {
        hsize_t dims[32] = {0};              /* H5S_MAX_RANK */
        int n = iol_h5.H5Pget_chunk(dcpl, 32, dims);
        if (n > IOL_H5_MAX_NDIMS)
            n = IOL_H5_MAX_NDIMS;
        for (int i = 0; i < n; i++)          /* D1 = the last (fastest) dimension */
            o->chunk[i] = (int64_t)dims[n - i - 1];
    }
    o->type_size = (int64_t)iol_h5.H5Tget_size(type);
}

/* An open or create that returned `ret`; type/space/dcpl < 0: ask the dataset. */
static void opened(hid_t ret, hid_t loc, const char *dsname, hid_t type, hid_t space,
                   hid_t dcpl, int deprecated, const iol_span *sp)
{
    int e = errno;
    if (!iol_h5_ready()) {
        errno = e;
        return;
    }
    iol_h5d_open_info o;
    memset(&o, 0, sizeof o);
    o.deprecated = deprecated;
    int ok = 0;
    IOL_H5_QUIET({
        hid_t t = type, s = space, p = dcpl;
        if (type < 0) {
            t = iol_h5.H5Dget_type(ret);
            s = t >= 0 ? iol_h5.H5Dget_space(ret) : -1;
            p = s >= 0 ? iol_h5.H5Dget_create_plist(ret) : -1;
        }
        if (t >= 0 && s >= 0 && p >= 0 && dataset_name(loc, dsname, &o) == 0) {
            space_and_type(t, s, p, &o);
            ok = 1;
        }
        if (type < 0) {
            if (p >= 0)
                iol_h5.H5Pclose(p);
            if (s >= 0)
                iol_h5.H5Sclose(s);
            if (t >= 0)
                iol_h5.H5Tclose(t);
        }
    });
    if (ok)
        iol_h5d_open(ret, &o, sp);
    errno = e;
}

#define OPEN_BODY(call, loc, dsname, type, space, dcpl, deprecated)                 \
    TIMED_BODY(hid_t, call, ret >= 0, opened(ret, loc, dsname, type, space, dcpl, deprecated, &sp))

hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl)
{
    OPEN_BODY(IOL_H5_REAL(H5Dcreate1)(loc, name, type, space, dcpl), loc, name, type, space,
              dcpl, 1);
}

hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl,
                 hid_t dapl)
{
    OPEN_BODY(IOL_H5_REAL(H5Dcreate2)(loc, name, type, space, lcpl, dcpl, dapl), loc, name,
              type, space, dcpl, 0);
}

hid_t H5Dopen1(hid_t loc, const char *name)
{
    OPEN_BODY(IOL_H5_REAL(H5Dopen1)(loc, name), loc, name, -1, -1, -1, 1);
}

hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl)
{
    OPEN_BODY(IOL_H5_REAL(H5Dopen2)(loc, name, dapl), loc, name, -1, -1, -1, 0);
}

/* H5Oopen*: only a dataset counts.  Without a name argument, the dataset's own
 * path (H5Iget_name) is appended to the location's, as upstream names them. */
static void object_opened(hid_t ret, hid_t loc, const char *name, const iol_span *sp)
{
    int e = errno;
    int dataset = 0;
    char path[NAME_MAX_LEN] = "";
    if (iol_h5_ready())
        IOL_H5_QUIET({
            dataset = iol_h5.H5Iget_type(ret) == IOL_H5I_DATASET;
            if (dataset && !name && iol_h5.H5Iget_name(ret, path, sizeof path) <= 0)
                dataset = 0;
        });
    errno = e;
    if (dataset)
        opened(ret, loc, name ? name : path, -1, -1, -1, 0, sp);
}

#define OBJECT_BODY(call, loc, name) \
    TIMED_BODY(hid_t, call, ret >= 0, object_opened(ret, loc, name, &sp))

hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl)
{
    OBJECT_BODY(IOL_H5_REAL(H5Oopen)(loc, name, lapl), loc, name);
}

hid_t H5Oopen_by_addr(hid_t loc, haddr_t addr)
{
    OBJECT_BODY(IOL_H5_REAL(H5Oopen_by_addr)(loc, addr), loc, NULL);
}

hid_t H5Oopen_by_idx(hid_t loc, const char *group, int idx_type, int order, hsize_t n, hid_t lapl)
{
    OBJECT_BODY(IOL_H5_REAL(H5Oopen_by_idx)(loc, group, idx_type, order, n, lapl), loc, NULL);
}

hid_t H5Oopen_by_token(hid_t loc, iol_h5_token token)
{
    OBJECT_BODY(IOL_H5_REAL(H5Oopen_by_token)(loc, token), loc, NULL);
}

/* The file selection of a transfer (spec 2.4).  The real call succeeded, so its
 * dataspace is valid and these queries cannot fail: they run without the error
 * printing switch, which cost more than they do (bench/hdf5). */
static void selection(hid_t fspace, hid_t dxpl, iol_h5d_sel *s)
{
    memset(s, 0, sizeof *s);
    s->all = fspace == IOL_H5S_ALL;
    if (!s->all) {
        s->npoints = iol_h5.H5Sget_select_npoints(fspace);
        s->type = iol_h5.H5Sget_select_type(fspace);
        if (s->type == IOL_H5S_SEL_HYPERSLABS && iol_h5.H5Sis_regular_hyperslab &&
            iol_h5.H5Sget_regular_hyperslab && iol_h5.H5Sis_regular_hyperslab(fspace) > 0) {
            hsize_t start[32] = {0}, stride[32] = {0}, count[32] = {0}, block[32] = {0};
            s->regular = 1;
            iol_h5.H5Sget_regular_hyperslab(fspace, start, stride, count, block);
            /* right-aligned: D5 = dimension 0, D1 = dimension 4 (spec 2.4) */
            for (int i = 0; i < IOL_H5_MAX_NDIMS; i++) {
                int d = IOL_H5_MAX_NDIMS - 1 - i;
                s->len[i] = (int64_t)(count[d] * block[d]);
                s->stride[i] = (int64_t)stride[d];
            }
        }
    }
    int mode = 0, ok = 0;
    if (dxpl != IOL_H5P_DEFAULT && iol_h5.H5Pget_dxpl_mpio)
        IOL_H5_QUIET(ok = iol_h5.H5Pget_dxpl_mpio(dxpl, &mode) >= 0);
    s->collective = ok && mode == IOL_H5FD_MPIO_COLLECTIVE;
}

static void transferred(hid_t dset, int is_write, hid_t fspace, hid_t dxpl, const iol_span *sp)
{
    int e = errno;
    if (iol_h5_ready() && iol_h5d_tracked(dset)) {
        iol_h5d_sel s;
        selection(fspace, dxpl, &s);
        iol_h5d_io(dset, is_write, &s, sp);
    }
    errno = e;
}

#define IO_BODY(call, dset, is_write, fspace, dxpl) \
    TIMED_BODY(herr_t, call, ret >= 0, transferred(dset, is_write, fspace, dxpl, &sp))

herr_t H5Dread(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf)
{
    IO_BODY(IOL_H5_REAL(H5Dread)(dset, mtype, mspace, fspace, dxpl, buf), dset, 0, fspace, dxpl);
}

herr_t H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, const void *buf)
{
    IO_BODY(IOL_H5_REAL(H5Dwrite)(dset, mtype, mspace, fspace, dxpl, buf), dset, 1, fspace, dxpl);
}

/* A flush or close of a tracked dataset; errno as the real call left it. */
static void flushed(hid_t dset, const iol_span *sp)
{
    int e = errno;
    iol_h5d_flush(dset, sp);
    errno = e;
}

static void closed(hid_t dset, const iol_span *sp)
{
    int e = errno;
    iol_h5d_close(dset, sp);
    errno = e;
}

herr_t H5Dflush(hid_t dset)
{
    TIMED_BODY(herr_t, IOL_H5_REAL(H5Dflush)(dset), ret >= 0, flushed(dset, &sp));
}

#define CLOSE_BODY(call, id) TIMED_BODY(herr_t, call, ret >= 0, closed(id, &sp))

herr_t H5Dclose(hid_t dset)
{
    CLOSE_BODY(IOL_H5_REAL(H5Dclose)(dset), dset);
}

/* Counts only when the id is a dataset we track (the map says so; HDF5 is not
 * asked about an id that is closed by now). */
herr_t H5Oclose(hid_t object_id)
{
    CLOSE_BODY(IOL_H5_REAL(H5Oclose)(object_id), object_id);
}
