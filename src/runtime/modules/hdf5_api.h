/* The part of the HDF5 ABI the H5F and H5D modules use, and the table of HDF5
 * functions resolved at run time (wrappers/hdf5.def, hdf5_api.c).
 *
 * No HDF5 header is needed to build the runtime and no HDF5 library is linked:
 * these are the ABI facts of HDF5 1.10 and later (hid_t is 64 bits since 1.10;
 * the enum values below are unchanged through 1.14).  A process that loads an
 * older HDF5 is not instrumented (iol_h5_ready says why). */
#ifndef IOLENS_RUNTIME_HDF5_API_H
#define IOLENS_RUNTIME_HDF5_API_H

#include <stdint.h>
#include <sys/types.h>

typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef unsigned long long hsize_t;
typedef long long hssize_t;
typedef uint64_t haddr_t;
typedef struct iol_h5_token {        /* H5O_token_t (1.12+), passed by value */
    uint8_t data[16];
} iol_h5_token;

enum {
    IOL_H5P_DEFAULT = 0, IOL_H5S_ALL = 0, IOL_H5E_DEFAULT = 0,
    IOL_H5I_DATASET = 5,                                   /* H5I_type_t */
    IOL_H5S_SEL_POINTS = 1, IOL_H5S_SEL_HYPERSLABS = 2,    /* H5S_sel_type */
    IOL_H5D_CHUNKED = 2,                                   /* H5D_layout_t */
    IOL_H5FD_MPIO_COLLECTIVE = 1,                          /* H5FD_mpio_xfer_t */
    IOL_H5_MAX_NDIMS = 5                                   /* dimensions the counters keep */
};

typedef struct iol_h5_table {
#define IOL_H5_FN(ret, name, params) ret (*name) params;
#define IOL_H5_API IOL_H5_FN
#include "hdf5.def"
#undef IOL_H5_FN
#undef IOL_H5_API
} iol_h5_table;

/* The functions of the HDF5 library the process uses; valid once iol_h5_ready()
 * returned 1.  Entries the library lacks (H5Dflush before 1.10, H5Oopen_by_token
 * before 1.12, H5FD_mpio_init in serial builds) stay NULL. */
extern iol_h5_table iol_h5;

/* Resolve the table once (thread-safe; later calls are one load).  1 when the
 * library is one the modules can instrument (1.10 or later, every function they
 * need present); 0 otherwise, and the modules then only pass calls through. */
int iol_h5_ready(void);

/* An intercepted function's real definition, for a wrapper called before (or
 * without) iol_h5_ready: NULL only when no loaded library defines it, which
 * cannot happen for a function the application calls. */
void *iol_h5_real(const char *name, void **slot);
#define IOL_H5_REAL(name)                                                            \
    (__builtin_expect(iol_h5.name != NULL, 1)                                        \
         ? iol_h5.name                                                               \
         : (__typeof__(iol_h5.name))iol_h5_real(#name, (void **)&iol_h5.name))

/* Run `stmt` with HDF5's automatic error printing off: the modules' probes may
 * fail on ids of other kinds, and must not print the library's error stack. */
#define IOL_H5_QUIET(...)                                                           \
    do {                                                                             \
        void *efunc_ = NULL, *edata_ = NULL;                                         \
        int saved_ = iol_h5.H5Eget_auto2(IOL_H5E_DEFAULT, &efunc_, &edata_) >= 0;    \
        if (saved_)                                                                  \
            iol_h5.H5Eset_auto2(IOL_H5E_DEFAULT, NULL, NULL);                        \
        __VA_ARGS__;                                                                      \
        if (saved_)                                                                  \
            iol_h5.H5Eset_auto2(IOL_H5E_DEFAULT, efunc_, edata_);                    \
    } while (0)

#endif
