/* DXT_POSIX module (id 10, record version 1 as in the 3.5.0 release): one trace
 * record per POSIX file read or written, filled by the POSIX module's data path
 * (posix.h, iol_posix_io_update) through the DXT engine (dxt.c).  Off unless
 * DXT_ENABLE_IO_TRACE or MOD_ENABLE asks for it. */
#include "dxt.h"

const iol_module_desc iol_dxt_posix_module = IOL_DXT_MODULE(DXT_POSIX);
