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
 * /proc/<child>/syscall or /stat, all async-signal-safe.  The wait is bounded
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
#include "exitowner.h"
#include "exitwrite.h"
#include "locks_all.h"
#include "nofork.h"
#include "quietfork.h"

/* Longest wait for other threads to leave the runtime's locks before the fork. */
#define IOL_EXIT_LOCKS_NS 200000000L
/* Polling period of the wait. */
#define IOL_EXIT_POLL_NS 200000
/* A copy whose system call cannot be seen is stuck after sleeping this long. */
#define IOL_EXIT_ASLEEP_MS 20

int iol_log_writing;
int iol_held_sig;

static long now_ms(void) { return iol_monotonic_ns() / 1000000; }

static void nap(long ns)
{
    struct timespec d = { 0, ns };
    nanosleep(&d, NULL);
}

/* /proc/<pid><leaf> into path (48 bytes), formatted by hand (no snprintf here). */
static void proc_path(char *path, pid_t pid, const char *leaf)
{
    char digits[16];
    int n = 0;
    for (unsigned v = (unsigned)pid; n == 0 || v; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    size_t k = 6;
    memcpy(path, "/proc/", 6);
    while (n)
        path[k++] = digits[--n];
    memcpy(path + k, leaf, strlen(leaf) + 1);
}

/* The start of /proc/<pid><leaf> into buf (NUL-terminated); bytes read, or -1. */
static ssize_t proc_read(pid_t pid, const char *leaf, char *buf, size_t len)
{
    char path[48];
    proc_path(path, pid, leaf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, len - 1);
    close(fd);
    if (r < 0)
        return -1;
    buf[r] = '\0';
    return r;
}

enum copy_state { COPY_BUSY, COPY_IN_FUTEX, COPY_ASLEEP };

/* Where the copy is.  COPY_IN_FUTEX: the first field of /proc/<pid>/syscall
 * (the number of the system call a blocked task is in, "running" otherwise) is
 * futex(2).  That file needs ptrace access, which a normal user lacks to a
 * non-dumpable process (PR_SET_DUMPABLE 0, setuid programs) and its copy; then
 * the state letter of /proc/<pid>/stat, which anyone may read, tells whether
 * the copy sleeps interruptibly (a futex wait does; writing a log to a local
 * file system does not): COPY_ASLEEP. */
static enum copy_state copy_state(pid_t pid)
{
    char buf[160];
    ssize_t r = proc_read(pid, "/syscall", buf, 32);
    if (r > 0) {
        long nr = 0;
        int any = 0;
        for (const char *p = buf; *p >= '0' && *p <= '9'; p++, any = 1)
            nr = nr * 10 + (*p - '0');
        return any && nr == SYS_futex ? COPY_IN_FUTEX : COPY_BUSY;
    }
    if (proc_read(pid, "/stat", buf, sizeof buf) <= 0)
        return COPY_BUSY;
    const char *p = strrchr(buf, ')');    /* the command name may hold spaces */
    return p && p[1] == ' ' && p[2] == 'S' ? COPY_ASLEEP : COPY_BUSY;
}

/* Wait for the writer; kill it when it is stuck on a lock or out of time.
 * Stuck: asleep in futex at two looks in a row (so that a futex call that is
 * returning is not mistaken for a sleeping one), or, where that cannot be
 * seen, asleep at every look for IOL_EXIT_ASLEEP_MS. */
static void wait_writer(pid_t child)
{
    long deadline = now_ms() + IOL_EXIT_WRITE_MAX_MS;
    long asleep_since = -1;
    int in_futex = 0;
    for (;;) {
        int st;
        pid_t r = waitpid(child, &st, WNOHANG | __WALL);
        if (r == child || (r < 0 && errno != EINTR))
            return;
        enum copy_state cs = copy_state(child);
        in_futex = cs == COPY_IN_FUTEX ? in_futex + 1 : 0;
        asleep_since = cs != COPY_ASLEEP ? -1 : asleep_since < 0 ? now_ms() : asleep_since;
        if (in_futex >= 2 || (asleep_since >= 0 && now_ms() - asleep_since >= IOL_EXIT_ASLEEP_MS) ||
            now_ms() > deadline) {
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
    iol_log_level = 1;                  /* fast: the process waits for us to die */
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

/* Take the locks, fork the copy that writes, wait for it (bounded). */
static void write_by_copy(void)
{
    /* A thread stuck in the runtime (e.g. itself waiting for this write in a
     * signal handler) means no write: the safety copy stays. */
    if (iol_locks_take_all(IOL_EXIT_LOCKS_NS) != 0)
        return;
    pid_t self = getpid();
    pid_t child = iol_fork_unseen();     /* no SIGCHLD, not reapable by the program */
    if (child == 0)
        child_write(self);
    iol_locks_give_all();
    if (child > 0)
        wait_writer(child);
}

void iol_core_shutdown_async(void)
{
    int expect = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (!iol_is_on(expect) ||
        !__atomic_compare_exchange_n(&iol_state, &expect, IOL_STOPPING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        /* Another thread writes the log (the destructor, another _exit): let it
         * finish before this exit ends the process. */
        if (expect == IOL_STOPPING && !iol_locks_mine())
            iol_exit_wait_owner();
        return;
    }
    /* From here other threads' I/O waits for the death (not under MPI: nothing
     * is written here). */
    iol_exit_owner_claim(!iol_mpi_mode);
    /* MPI: the log is collective and only MPI_Finalize starts it; the safety
     * copy stays for `iolens recover` + `iolens merge`. */
    if (iol_mpi_mode) {
        iol_exit_owner_done();
        return;
    }
    int saved = errno;
    sigset_t old;
    iol_block_term_signals(&old);
    __atomic_store_n(&iol_log_writing, 1, __ATOMIC_RELEASE);
    if (iol_fork_forbidden())
        iol_nofork_say();
    else
        write_by_copy();
    __atomic_store_n(&iol_log_writing, 0, __ATOMIC_RELEASE);
    iol_exit_owner_done();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

void iol_exit_hold(void)
{
    long deadline = now_ms() + IOL_EXIT_WRITE_MAX_MS + 1000;
    while (__atomic_load_n(&iol_log_writing, __ATOMIC_ACQUIRE) && now_ms() < deadline)
        nap(IOL_EXIT_POLL_NS);
}
