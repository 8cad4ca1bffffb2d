/* DXT_REGION module (id 42, ours: include/iolens/dxt_region.h): the region each
 * segment of DXT_POSIX and DXT_MPIIO ran in.  It keeps nothing of its own: the
 * DXT stores carry a region index per segment (dxt.c) and this module's payload
 * is built from them at shutdown, after the DXT triggers have chosen the files
 * kept, so that its records parallel the DXT records one for one. */
#include "dxt.h"

const iol_module_desc iol_dxt_region_module = {
    IOL_MODULE_IDENTITY(DXT_REGION), .own_memory = 1, .finish = iol_dxt_region_finish,
    .output = iol_dxt_region_output, .reset = iol_dxt_region_reset,
};
