/* The log write for exits that may come from a signal handler: _exit, _Exit and
 * a termination signal at its default action (issue #21, docs/runtime.md).
 *
 * The normal writer allocates, compresses and formats time, none of which is
 * async-signal-safe: a signal that interrupted malloc (or the time-zone lock, or
 * a stdio lock) would deadlock it or corrupt the heap.  So this process does
 * nothing unsafe itself.  It makes a copy of itself (iol_fork_unseen: as _Fork,
 * async-signal-safe and without atfork handlers, but invisible to the program's
 * SIGCHLD handler and wait calls) and the copy writes the log with the normal
 * writer.
 * The copy is single-threaded, so a lock that was held in the process at the
 * moment of the fork can never be released in it: if the copy ever sleeps on a
 * futex it is stuck for good, and is killed at once.  It also dies if the heap
 * it inherited is inconsistent.  In every failure the safety copy (a shared
 * mapping the copy only reads) is left for `iolens recover`.
 *
 * This process meanwhile only waits: waitpid, nanosleep, and reading
 * /proc/<child>/syscall, all async-signal-safe.  The wait is bounded
 * (IOL_EXIT_WRITE_MAX_MS) and depends on no signal the application controls. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitwrite.h"
#include "locks_all.h"
#include "quietfork.h"

/* Longest wait for a writer that is still making progress. */
#define IOL_EXIT_WRITE_MAX_MS 20000
/* Longest wait for other threads to leave the runtime's locks before the fork. */
#define IOL_EXIT_LOCKS_NS 200000000L
/* Polling period of the wait. */
#define IOL_EXIT_POLL_NS 200000

int iol_log_writing;
int iol_held_sig;

static long now_ms(void) { return iol_monotonic_ns() / 1000000; }

static void nap(long ns)
{
    struct timespec d = { 0, ns };
    nanosleep(&d, NULL);
}

/* 1 when `pid` is asleep in futex(2): the first field of /proc/<pid>/syscall is
 * the number of the system call a blocked task is in ("running" otherwise).
 * Formats the path by hand (no snprintf here). */
static int in_futex(pid_t pid)
{
    char path[48] = "/proc/", digits[16];
    int n = 0;
    for (unsigned v = (unsigned)pid; n == 0 || v; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    size_t k = 6;
    while (n)
        path[k++] = digits[--n];
    memcpy(path + k, "/syscall", 9);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[32];
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return 0;
    buf[r] = '\0';
    long nr = 0;
    int any = 0;
    for (const char *p = buf; *p >= '0' && *p <= '9'; p++, any = 1)
        nr = nr * 10 + (*p - '0');
    return any && nr == SYS_futex;
}

/* Wait for the writer; kill it when it is stuck on a lock or out of time. */
static void wait_writer(pid_t child)
{
    long deadline = now_ms() + IOL_EXIT_WRITE_MAX_MS;
    int stuck = 0;
    for (;;) {
        int st;
        pid_t r = waitpid(child, &st, WNOHANG | __WALL);
        if (r == child || (r < 0 && errno != EINTR))
            return;
        /* Two looks in a row, so that a futex call that is returning is not
         * mistaken for a sleeping one. */
        stuck = in_futex(child) ? stuck + 1 : 0;
        if (stuck >= 2 || now_ms() > deadline) {
            kill(child, SIGKILL);
            while (waitpid(child, &st, __WALL) < 0 && errno == EINTR)
                ;
            return;
        }
        nap(IOL_EXIT_POLL_NS);
    }
}

/* In the copy: write the log and leave. Never returns. */
static void __attribute__((noreturn)) child_write(pid_t parent)
{
    iol_locks_reset_in_copy();          /* ours: same thread identity here */
    /* Never outlive the wait: gone with the process (killed while it waits), and
     * gone by SIGALRM, which is ours in this copy, after the longest wait. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        syscall(SYS_exit_group, 1);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    IOL_REAL(sigaction)(SIGALRM, &dfl, NULL);
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
    alarm(IOL_EXIT_WRITE_MAX_MS / 1000 + 2);
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);      /* a crash here is expected, not a core dump */
    iol_busy++;
    iol_modules_freeze();
    iol_records_detach();
    int rc = iol_log_write();
    iol_report_failures();
    syscall(SYS_exit_group, rc == 0 ? 0 : 1);
    __builtin_unreachable();
}

void iol_block_term_signals(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &block, old);
}

void iol_core_shutdown_async(void)
{
    int expect = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (!iol_is_on(expect) ||
        !__atomic_compare_exchange_n(&iol_state, &expect, IOL_STOPPING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    /* MPI: the log is collective and only MPI_Finalize starts it; the safety
     * copy stays for `iolens recover` + `iolens merge`. */
    if (iol_mpi_mode)
        return;
    int saved = errno;
    sigset_t old;
    iol_block_term_signals(&old);
    __atomic_store_n(&iol_log_writing, 1, __ATOMIC_RELEASE);
    /* A thread stuck in the runtime (e.g. itself waiting for this write in a
     * signal handler) means no write: the safety copy stays. */
    if (iol_locks_take_all(IOL_EXIT_LOCKS_NS) == 0) {
        pid_t self = getpid();
        pid_t child = iol_fork_unseen();     /* no SIGCHLD, not reapable by the program */
        if (child == 0)
            child_write(self);
        iol_locks_give_all();
        if (child > 0)
            wait_writer(child);
    }
    __atomic_store_n(&iol_log_writing, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

void iol_exit_hold(void)
{
    long deadline = now_ms() + IOL_EXIT_WRITE_MAX_MS + 1000;
    while (__atomic_load_n(&iol_log_writing, __ATOMIC_ACQUIRE) && now_ms() < deadline)
        nap(IOL_EXIT_POLL_NS);
}
