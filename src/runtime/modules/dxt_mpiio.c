/* DXT_MPIIO module (id 11, record version 2 as in the 3.5.0 release): one trace
 * record per MPI-IO file read or written, filled by the MPI-IO module (mpiio.c)
 * through the DXT engine (dxt.c).  Only in the MPI runtime; off unless
 * DXT_ENABLE_IO_TRACE or MOD_ENABLE asks for it. */
#include "dxt.h"

const iol_module_desc iol_dxt_mpiio_module = IOL_DXT_MODULE(DXT_MPIIO);
