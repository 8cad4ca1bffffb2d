/* MPI-IO module (id 2, record version 3): counters of runtime spec section 2.3.
 * Only in the MPI runtime.  Record functions take the locks they need themselves
 * (an event on an open handle: only its record's lock, rt.h iol_rec_lock; open:
 * the module's and the record's) and are called by mpiio_wrap.c after the real
 * call succeeded (close: always). */
#ifndef IOLENS_RUNTIME_MPIIO_H
#define IOLENS_RUNTIME_MPIIO_H

#include <mpi.h>

#include "../core/rt.h"
#include "../core/stats.h"
#include "heatmap.h"
#include "dxt.h"

typedef struct mpiio_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[MPIIO_NUM_INDICES];
    double f[MPIIO_F_NUM_INDICES];
} mpiio_rec;
IOL_ASSERT_RECORD_LAYOUT(mpiio_rec, MPIIO);

typedef struct mpiio_aux {
    IOL_REC_HEAD;            /* lock and sequence word (rt.h): first */
    int last_io;             /* 0 none, 1 read, 2 write */
    double last_meta_end, last_read_end, last_write_end;
    iol_cv access;
    iol_dxt_file *dxt;       /* the file's trace (dxt.h), NULL before its first op */
} __attribute__((aligned(64))) mpiio_aux;   /* two records' locks never share a line */
IOL_REC_HEAD_CHECK(mpiio_aux);

/* What kind of data call (selects the INDEP/COLL/SPLIT/NB counter). */
enum iol_mpiio_kind { IOL_MPIIO_INDEP, IOL_MPIIO_COLL, IOL_MPIIO_SPLIT, IOL_MPIIO_NB };

void iol_mpiio_open(MPI_File fh, const char *path, int amode, int comm_size, int has_info,
                    double t1, double t2);
/* bytes: the requested size, int count x type size in C int arithmetic (spec 2.3);
 * off: the byte offset for the DXT_MPIIO trace, -1 when unknown. */
void iol_mpiio_io(MPI_File fh, int kind, int wr, int bytes, int64_t off, double t1, double t2);
/* Non-zero when the wrappers should find byte offsets for the trace (DXT_MPIIO on,
 * and the MPI is not Open MPI or IOLENS_DXT_MPIIO_OFFSETS asks; see mpiio.c). */
extern int iol_mpiio_dxt_offsets;
void iol_mpiio_sync(MPI_File fh, double t1, double t2);
void iol_mpiio_view(MPI_File fh, int has_info, double t1, double t2);
/* close is split around the real call: the handle is unmapped first (the real
 * close frees it and a new open may get the same value); returns index + 1 or 0. */
size_t iol_mpiio_close_begin(MPI_File fh);
void iol_mpiio_close_end(size_t idx, double t1, double t2);

extern const iol_module_desc iol_mpiio_module;
#endif
