/* DXT_POSIX module (id 10, record version 1 as in the 3.5.0 release): one trace
 * record per POSIX file read or written, filled by the POSIX module's data path
 * (posix.h, iol_posix_io_update) through the DXT engine (dxt.c).  Off unless
 * DXT_ENABLE_IO_TRACE or MOD_ENABLE asks for it. */
#include "dxt.h"

const iol_module_desc iol_dxt_posix_module = {
    IOL_MODULE_IDENTITY(DXT_POSIX),
    .own_memory = 1,
    .activate = iol_dxt_activate,
    .finish = iol_dxt_finish,
    .output = iol_dxt_output,
    .reset = iol_dxt_reset,
    .out_version = iol_dxt_version,
};
