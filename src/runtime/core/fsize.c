/* The runtime's own files and RLIMIT_FSIZE (`ulimit -f`, which some batch
 * systems set; issue #34).
 *
 * A write, ftruncate or fallocate that would take a file past the soft limit
 * sends SIGXFSZ to the calling thread (default action: die with a core dump)
 * and fails with EFBIG when that signal is blocked or ignored.  The program must
 * never get that signal because of a file of ours, so:
 *  - the files reserved whole at start (the safety copy, its sidecars) are made
 *    only when they fit under the limit (iol_fsize_fits);
 *  - the log, the report line and our messages are written with SIGXFSZ blocked
 *    in the writing thread (iol_fsize_guard ... iol_fsize_unguard): the write
 *    fails with EFBIG instead (the log then goes to the next directory, or the
 *    safety copy stays), and a SIGXFSZ our write left pending on the thread (the
 *    kernel sends it to the thread that wrote, linux mm/filemap.c) is taken
 *    back before the mask is restored.  A SIGXFSZ that was pending before is
 *    the program's and is left alone; the program's errno is kept.
 * Without a limit (the usual case) nothing is done beyond one getrlimit.
 * Async-signal-safe: the exit-time writer calls it. */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "fsize.h"

static int limited(rlim_t *cur)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    *cur = rl.rlim_cur;
    return 1;
}

int iol_fsize_fits(size_t len)
{
    rlim_t cur;
    int e = errno;
    int fits = !limited(&cur) || (rlim_t)len <= cur;
    errno = e;
    return fits;
}

static void xfsz_set(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGXFSZ);
}

void iol_fsize_guard(iol_fsize_guard_t *g)
{
    int e = errno;
    rlim_t cur;
    g->on = limited(&cur);
    if (g->on) {
        sigset_t xfsz, pending;
        xfsz_set(&xfsz);
        pthread_sigmask(SIG_BLOCK, &xfsz, &g->old);
        g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
    }
    errno = e;
}

void iol_fsize_unguard(iol_fsize_guard_t *g)
{
    if (!g->on)
        return;
    int e = errno;
    sigset_t xfsz, pending;
    xfsz_set(&xfsz);
    if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
        struct timespec now = {0, 0};
        sigtimedwait(&xfsz, NULL, &now);       /* ours: taken back, not delivered */
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
    g->on = 0;
    errno = e;
}
