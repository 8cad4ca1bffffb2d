/* The H5F and H5D modules (h5f.c, h5d.c): record functions their wrappers
 * (h5f_wrap.c, h5d_wrap.c) call after a successful real call, with the call's
 * clock readings.  Each takes its module's lock itself; callers hold no lock, and
 * every HDF5 query is made before it (hdf5_api.h), so HDF5's own lock is never
 * taken inside ours. */
#ifndef IOLENS_RUNTIME_HDF5_H
#define IOLENS_RUNTIME_HDF5_H

#include "../core/stats.h"
#include "hdf5_api.h"

void iol_h5f_open(hid_t id, const char *filename, int use_mpio, const iol_span *sp);
void iol_h5f_flush(hid_t file_id, const iol_span *sp);
void iol_h5f_close(hid_t file_id, const iol_span *sp);

/* What an open of a dataset found out (h5d_wrap.c fills it from HDF5). */
typedef struct iol_h5d_open_info {
    char name[256];          /* <cleaned file path>:<location path><dataset name> */
    uint64_t file_rec_id;    /* record id of the file's H5F name, 0 if unknown */
    int64_t ndims, npoints, type_size;
    int64_t chunk[IOL_H5_MAX_NDIMS];   /* D1 = the last (fastest) dimension */
    int deprecated;
} iol_h5d_open_info;

/* What a read or write's file selection says (h5d_wrap.c). */
typedef struct iol_h5d_sel {
    int all;                 /* H5S_ALL: the dataset's npoints */
    int type;                /* H5S_sel_type */
    int regular;             /* a regular hyperslab: len/stride below are set */
    int64_t npoints;
    int64_t len[IOL_H5_MAX_NDIMS], stride[IOL_H5_MAX_NDIMS];   /* right-aligned, D5 = dim 0 */
    int collective;          /* the transfer list asks for collective MPI-IO */
} iol_h5d_sel;

void iol_h5d_open(hid_t id, const iol_h5d_open_info *info, const iol_span *sp);
void iol_h5d_io(hid_t id, int is_write, const iol_h5d_sel *sel, const iol_span *sp);
void iol_h5d_flush(hid_t id, const iol_span *sp);
/* A close of a tracked dataset id (H5Dclose, or H5Oclose of a dataset). */
int iol_h5d_close(hid_t id, const iol_span *sp);
int iol_h5d_tracked(hid_t id);

#endif
