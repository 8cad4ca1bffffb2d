/* An exit path that bypasses the library destructor: termination signals (the
 * exec family is exec.c).  The log is written normally, then the signal kills
 * the process as it would have.
 *
 * Signal handler contract: the handler does only async-signal-safe things.  The
 * log is written by a forked copy of the process (exitwrite.c) while the handler
 * waits, bounded, with no watchdog signal; whatever the copy cannot write stays
 * in the safety copy for `iolens recover`.  A termination signal that arrives on
 * another thread while the log is being written waits until the write is over,
 * then takes its default action. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitwrite.h"
#include "locks_all.h"
#include "safety.h"

/* MPI mode (exitwrite.h): the log write is collective, so it cannot run from a
 * signal handler or in one process about to exec; the safety copy is kept for
 * `iolens recover` instead. */

static const int SIGS[] = {SIGTERM, SIGINT, SIGHUP};
#define NSIGS (sizeof SIGS / sizeof SIGS[0])
#define IOL_NSIG 65

/* taken[s] = 1 while our handler is installed for s.  The application is shown
 * SIG_DFL instead of it (sigaction/signal below): programs decide things from
 * the disposition they find at start (Python installs its KeyboardInterrupt
 * handler only over SIG_DFL), and ours is the default action plus a log. */
static int taken[IOL_NSIG];

static void set_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    IOL_REAL(sigaction)(sig, &dfl, NULL);
    __atomic_store_n(&taken[sig], 0, __ATOMIC_RELEASE);
}

/* The default action of `sig`, as if we had never been here: it is taken when
 * the handler returns and the signal is unblocked. */
static void die_by(int sig)
{
    set_default(sig);
    raise(sig);
}

void iol_signal_default_now(int sig)
{
    if (sig > 0 && sig < IOL_NSIG) {
        set_default(sig);
        raise(sig);
    }
}

static void on_term(int sig)
{
    int saved = errno;
    if (iol_vfork_child()) {
        /* A vfork child shares our memory (and `taken`): the default action for
         * it alone (its dispositions are its own), nothing else. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        IOL_REAL(sigaction)(sig, &dfl, NULL);
        kill(getpid(), sig);
        errno = saved;
        return;
    }
    int s = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (iol_is_on(s) && !iol_mpi_mode) {
        iol_core_shutdown_async();       /* async-signal-safe; bounded */
    } else if (s == IOL_STOPPING && __atomic_load_n(&iol_log_writing, __ATOMIC_ACQUIRE)) {
        /* Another thread is writing the log.  Inside the runtime this thread may
         * hold a lock the writer needs: leave the signal to the writer, which
         * raises it when done; elsewhere, wait here until the write is over. */
        if (iol_locks_mine()) {
            __atomic_store_n(&iol_held_sig, sig, __ATOMIC_RELEASE);
            errno = saved;
            return;
        }
        iol_exit_hold();
    }
    die_by(sig);
    errno = saved;
}

/* Called once init has succeeded.  Only signals still at their default action
 * are taken: an ignored signal stays ignored, and a handler installed later by
 * the application replaces ours (its exit path then reaches the destructor). */
void iol_signals_install(void)
{
    for (size_t i = 0; i < NSIGS; i++) {
        struct sigaction old, sa;
        if (IOL_REAL(sigaction)(SIGS[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (IOL_REAL(sigaction)(SIGS[i], &sa, NULL) == 0)
            __atomic_store_n(&taken[SIGS[i]], 1, __ATOMIC_RELEASE);
    }
}

/* Not in ThreadSanitizer builds of the runtime: TSan installs its own handlers
 * through the next `sigaction` in its init, before it can run instrumented code
 * such as these wrappers.  Dispositions are then shown as they really are. */
#ifndef __SANITIZE_THREAD__
static int is_default(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

/* While ours is installed: a query reports SIG_DFL; setting SIG_DFL keeps ours
 * (the same action plus the log); setting anything else replaces it for good. */
static int virtual_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (act && !is_default(act)) {
        int rc = IOL_REAL(sigaction)(sig, act, NULL);
        if (rc != 0)
            return rc;
        __atomic_store_n(&taken[sig], 0, __ATOMIC_RELEASE);
    }
    if (old) {
        memset(old, 0, sizeof *old);
        old->sa_handler = SIG_DFL;
        sigemptyset(&old->sa_mask);
    }
    return 0;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig > 0 && sig < IOL_NSIG && __atomic_load_n(&taken[sig], __ATOMIC_ACQUIRE))
        return virtual_sigaction(sig, act, old);
    return IOL_REAL(sigaction)(sig, act, old);
}

sighandler_t signal(int sig, sighandler_t handler)
{
    if (!(sig > 0 && sig < IOL_NSIG && __atomic_load_n(&taken[sig], __ATOMIC_ACQUIRE)))
        return IOL_REAL(signal)(sig, handler);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;          /* glibc's signal(): BSD semantics */
    if (virtual_sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}
#endif
