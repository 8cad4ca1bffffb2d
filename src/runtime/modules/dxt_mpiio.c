/* DXT_MPIIO module (id 11, record version 2 as in the 3.5.0 release): one trace
 * record per MPI-IO file read or written, filled by the MPI-IO module (mpiio.c)
 * through the DXT engine (dxt.c).  Only in the MPI runtime; off unless
 * DXT_ENABLE_IO_TRACE or MOD_ENABLE asks for it. */
#include "dxt.h"

const iol_module_desc iol_dxt_mpiio_module = {
    IOL_MODULE_IDENTITY(DXT_MPIIO),
    .own_memory = 1,
    .activate = iol_dxt_activate,
    .finish = iol_dxt_finish,
    .output = iol_dxt_output,
    .reset = iol_dxt_reset,
    .out_version = iol_dxt_version,
};
