/* The interposer-grade error path: messages are formatted on the stack and written
 * with one write(2) on stderr (no allocation, no stdio; no SIGXFSZ when stderr is
 * a file at its size limit, fsize.h); at most IOL_MAX_MSGS per process.  Failures
 * inside wrappers are only counted (failures.c), and reported once at shutdown. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../wrappers/real.h"
#include "fsize.h"
#include "rt.h"

#define IOL_MAX_MSGS 16

static int nmsgs;

static const char *const FAILURE_TEXT[IOL_FAIL_COUNT] = {
    [IOL_FAIL_SYMBOL] = "intercepted functions could not be resolved",
    [IOL_FAIL_MEMORY] = "runtime memory requests failed",
    [IOL_FAIL_FDTABLE] = "file descriptors beyond the descriptor table were not tracked",
    [IOL_FAIL_STREAMS] = "streams beyond the stream table were not tracked",
    [IOL_FAIL_AIO] = "asynchronous requests could not be tracked",
    [IOL_FAIL_PATH] = "file names were too long to record",
    [IOL_FAIL_HANDLES] = "DAOS/DFS handles beyond the runtime's tables were not tracked",
};

/* Our own write, not recorded. */
static void own_stderr_write(const char *buf, size_t n)
{
    int busy = iol_busy;
    iol_busy = 1;
    iol_fsize_guard_t g;
    iol_fsize_guard(&g);
    ssize_t w = IOL_REAL(write)(2, buf, n);
    (void)w;
    iol_fsize_unguard(&g);
    iol_busy = busy;
}

void iol_warn(const char *fmt, ...)
{
    if (__atomic_add_fetch(&nmsgs, 1, __ATOMIC_RELAXED) > IOL_MAX_MSGS)
        return;
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "iolens: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
    va_end(ap);
    n += (m < 0) ? 0 : (m >= (int)(sizeof buf - n - 1) ? (int)(sizeof buf - n - 2) : m);
    buf[n++] = '\n';
    own_stderr_write(buf, (size_t)n);
}

void iol_write_line(const char *line)
{
    char buf[IOL_PATH_LEN + 2];
    int n = snprintf(buf, sizeof buf - 1, "%s", line);
    if (n < 0)
        return;
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    own_stderr_write(buf, (size_t)n);
}

void iol_report_failures(void)
{
    for (int i = 0; i < IOL_FAIL_COUNT; i++) {
        unsigned long n = iol_failures((enum iol_failure)i);
        if (n)
            iol_warn("%lu %s", n, FAILURE_TEXT[i]);
    }
}
