/* Status codes: stable names, and the per-handle error detail. */
#include <stdarg.h>
#include <stdio.h>
#include "internal.h"
#include "log_impl.h"

const char *iolens_strerror(int status)
{
    switch (status) {
    case IOLENS_OK: return "success";
    case IOLENS_E_IO: return "input/output error";
    case IOLENS_E_NOMEM: return "out of memory";
    case IOLENS_E_TRUNCATED: return "truncated log";
    case IOLENS_E_BAD_MAGIC: return "not a Darshan log (bad magic number)";
    case IOLENS_E_BAD_VERSION: return "unsupported log version";
    case IOLENS_E_BAD_COMPRESSION: return "unknown compression type";
    case IOLENS_E_BAD_REGION: return "region outside the file";
    case IOLENS_E_DECOMPRESS: return "region does not decompress";
    case IOLENS_E_BAD_JOB: return "malformed job region";
    case IOLENS_E_BAD_NAMES: return "malformed name region";
    case IOLENS_E_BAD_MODULE_VERSION: return "unsupported module record version";
    case IOLENS_E_BAD_RECORD: return "malformed module record";
    case IOLENS_E_UNKNOWN_MODULE: return "unknown module";
    case IOLENS_E_INVALID_ARG: return "invalid argument";
    case IOLENS_E_UNSUPPORTED: return "unsupported feature";
    case IOLENS_E_NOT_PRESENT: return "module not present in log";
    case IOLENS_E_NOT_REGULAR: return "not a regular file";
    default: return "unknown error";
    }
}

/* Formats into the handle's fixed buffer: no allocation on the error path. */
int iol_log_fail(iolens_log *log, int code, const char *fmt, ...)
{
    if (log) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(log->err, sizeof log->err, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *iolens_log_error(const iolens_log *log)
{
    return log ? log->err : "no log handle";
}
