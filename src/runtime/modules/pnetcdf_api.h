/* The part of the PnetCDF API the PNETCDF_FILE and PNETCDF_VAR modules use, and
 * the table of PnetCDF functions resolved at run time (wrappers/pnetcdf.def,
 * pnetcdf_api.c).
 *
 * No PnetCDF header is needed to build the runtime and PnetCDF is never linked:
 * the constants below are those of the netCDF/PnetCDF API (unchanged since
 * PnetCDF 1.0).  PnetCDF exists only for MPI programs, so this file is only
 * built into the MPI runtime, and only into its shared library. */
#ifndef IOLENS_RUNTIME_PNETCDF_API_H
#define IOLENS_RUNTIME_PNETCDF_API_H

#include <mpi.h>

enum {
    IOL_NC_NOERR = 0,
    /* nc_type */
    IOL_NC_BYTE = 1, IOL_NC_CHAR = 2, IOL_NC_SHORT = 3, IOL_NC_INT = 4,
    IOL_NC_FLOAT = 5, IOL_NC_DOUBLE = 6, IOL_NC_UBYTE = 7, IOL_NC_USHORT = 8,
    IOL_NC_UINT = 9,
    IOL_NC_MAX_DIMS = 1024   /* dimensions of a variable the module describes */
};

typedef int nc_type;        /* as pnetcdf.h has it */

typedef struct iol_nc_table {
#define IOL_NC_API(ret, name, params) ret (*name) params;
#include "pnetcdf.def"
#undef IOL_NC_API
} iol_nc_table;

/* The PnetCDF functions the modules call; valid once iol_nc_ready() returned 1. */
extern iol_nc_table iol_nc;

/* Resolve the table once (thread-safe; later calls are one load): 1 when every
 * function is there, else 0 and the modules only pass calls through. */
int iol_nc_ready(void);

/* An intercepted function's real definition (the next one after ours), stored
 * into *slot.  Never NULL: a function no library defines (which the application
 * cannot have called) becomes one that fails with -1. */
void *iol_nc_real(const char *name, void **slot);
#define IOL_NC_REAL(slot, name)                                                      \
    (__builtin_expect((slot) != NULL, 1)                                             \
         ? (slot)                                                                    \
         : (__typeof__(slot))iol_nc_real(name, (void **)&(slot)))

#endif
