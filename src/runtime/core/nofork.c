/* An exit without fork where fork may be forbidden (issue #34).
 *
 * The exit-time write (exitwrite.c) forks a copy of the process.  A program
 * that forbids fork with a seccomp filter (a sandbox, some language runtimes)
 * would be killed by SIGSYS at that fork (SECCOMP_RET_KILL_*), with no failure
 * to see first; a filter that makes fork fail (SECCOMP_RET_ERRNO) only costs the
 * log.  A filter's rules cannot be read by the process itself, so any filter
 * installed after init counts as forbidding fork: the write is then not tried,
 * the records stay in the safety copy for `iolens recover`, and one line on
 * stderr says so.  Writing in the process itself is not safe there: the exit may
 * come from a signal handler that interrupted malloc or a stdio lock.
 *
 * Filters already present at init (a container's default profile) are taken to
 * allow fork, as the process started under them; a sandbox that forbids fork
 * and execs the program under that filter is not detected (docs/runtime.md).
 * Only the exit-time write is concerned: the destructor and exec write in the
 * process.  The look itself is one prctl(PR_GET_SECCOMP) and, under a filter,
 * an open and a read of /proc/self/status: a filter that kills on those would
 * still kill the process here (fork is the call sandboxes forbid). */
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "nofork.h"
#include "safety.h"

static long filters_at_init = -1;   /* -1: unknown */

/* The value of "<key>\t<n>" in /proc/self/status, or -1.  open/read only. */
static long status_number(const char *key)
{
    char buf[4096];
    int fd = IOL_REAL(open)("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = IOL_REAL(read)(fd, buf, sizeof buf - 1);
    IOL_REAL(close)(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    size_t klen = strlen(key);
    for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, key, klen) != 0 || p[klen] != ':')
            continue;
        p += klen + 1;
        while (*p == ' ' || *p == '\t')
            p++;
        long v = -1;
        for (; *p >= '0' && *p <= '9'; p++)
            v = (v < 0 ? 0 : v * 10) + (*p - '0');
        return v;
    }
    return -1;
}

/* Filters on this process: Seccomp_filters (Linux 5.9+), else 1 when the mode
 * is "filter" (2), else 0. */
static long filters_now(void)
{
    long n = status_number("Seccomp_filters");
    if (n >= 0)
        return n;
    return status_number("Seccomp") == 2 ? 1 : 0;
}

void iol_nofork_note_init(void)
{
    filters_at_init = filters_now();
}

int iol_fork_forbidden(void)
{
    /* No filter at all (the usual case): one prctl, no file to read. */
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0)
        return 0;
    long now = filters_now();
    return now > (filters_at_init < 0 ? 0 : filters_at_init);
}

static size_t put(char *out, size_t at, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (at + n > cap)
        n = cap - at;
    memcpy(out + at, s, n);
    return at + n;
}

void iol_nofork_say(void)
{
    char line[IOL_PATH_LEN + 768];
    size_t cap = sizeof line - 1, n = 0;
    const char *copy = iol_safety_path();
    n = put(line, n, cap, "iolens: fork is forbidden here (seccomp): no log at this exit; ");
    if (copy) {
        n = put(line, n, cap, "the records are kept in ");
        n = put(line, n, cap, copy);
        n = put(line, n, cap, " (run `iolens recover` on it)");
    } else {
        n = put(line, n, cap, "the records are lost (no safety copy)");
    }
    line[n++] = '\n';
    ssize_t w = IOL_REAL(write)(2, line, n);
    (void)w;
}
