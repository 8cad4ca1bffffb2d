/* Life cycle of the runtime in one process: init (library constructor, or lazily at
 * the first intercepted call), fork (the child starts afresh and writes its own
 * log), and shutdown (destructor or _exit) writing the log once. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitowner.h"
#include "exitwrite.h"
#include "locks_all.h"
#include "nofork.h"
#include "safety.h"

enum { IOL_INITING = 4 };
static int atfork_registered;

static void warn_cb(const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    iol_warn("%s", buf);
}

static void dump_line(const char *line, void *arg)
{
    iol_write_line(line);
}

static void atfork_child(void);

/* The modules' setup callbacks (rt.h), for the modules not disabled. */
static void modules_setup(void)
{
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        const iol_module_desc *d = iol_module_descs[i];
        if (d->setup && !((iol_cfg.mod_disabled >> d->id) & 1) && iol_mods[d->id].state != -1)
            d->setup(&iol_mods[d->id]);
    }
}

/* Decide whether to run at all, then set up memory, mounts and exclusions. */
static int setup(void)
{
    iol_config_free(&iol_cfg);
    iol_config_load(&iol_cfg, getenv, warn_cb);
    if (iol_cfg.disable || (!iol_cfg.enable_nonmpi && !iol_mpi_mode))
        return -1;
    if (!iol_mpi_mode && iol_cfg.launcher_rank >= 0) {   /* MPI_Init's rank wins */
        iol_rank = iol_cfg.launcher_rank;    /* before the safety copy takes its name */
        iol_nprocs = iol_cfg.launcher_size;
    }
    if (iol_cfg.job_pid > 0 && !iol_fork_parent)   /* spawned/exec'd/piped member of a job */
        iol_job_pid = (pid_t)iol_cfg.job_pid;
    if (iol_cfg.dump_config)
        iol_config_dump(&iol_cfg, dump_line, NULL);
    if (iol_records_init() != 0) {
        iol_warn("cannot reserve record memory; instrumentation disabled");
        return -1;
    }
    iol_mounts_init();
    iol_platform_probe();
    iol_platform_sched();
    if (iol_config_app_excluded(&iol_cfg, iol_exe_string(), warn_cb)) {
        iol_safety_remove();
        return -1;
    }
    iol_safety_job();
    iol_nofork_note_init();
    iol_signals_install();
    if (iol_config_rank_excluded(&iol_cfg, iol_rank, iol_nprocs, warn_cb))
        for (size_t i = 0; i < iol_module_ndescs; i++)
            iol_mods[iol_module_descs[i]->id].state = -1;
    modules_setup();               /* after the exclusions: nothing loaded for nothing */
    if (!atfork_registered) {         /* only once init is known to succeed */
        pthread_atfork(NULL, NULL, atfork_child);
        atfork_registered = 1;
    }
    return 0;
}

static void core_init(void)
{
    iol_busy++;
    iol_clock_start(&iol_t0);
    iol_start_abs = iol_t0;
    iol_self_pid = getpid();
    if (!iol_job_pid)
        iol_job_pid = iol_self_pid;
    iol_real_resolve_all();
    int ok = setup() == 0;
    iol_clock_ready(ok && !iol_cfg.no_tsc);    /* off: no calibration to wait for */
    if (ok && iol_cfg.internal_timing) {    /* runtime spec section 10 */
        char line[96];
        iol_write_line("#darshan:<op>\t<nprocs>\t<time>");
        snprintf(line, sizeof line, "darshan:init\t%d\t%f", iol_nprocs, iol_wtime());
        iol_write_line(line);
    }
    __atomic_store_n(&iol_state, !ok ? IOL_OFF : iol_clock_fast ? IOL_ON : IOL_ON_CLOCK,
                     __ATOMIC_RELEASE);
    iol_busy--;
}

void iol_core_init_lazy(void)
{
    int expect = IOL_UNINIT;
    if (__atomic_compare_exchange_n(&iol_state, &expect, IOL_INITING, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        core_init();
}

/* iol_on() when the state is not IOL_ON or the thread is busy: the first
 * intercepted call of a process starts the runtime here. */
__attribute__((noinline)) int iol_on_slow(void)
{
    if (iol_vfork_child())        /* shares the parent's memory: record nothing */
        return 0;
    int s = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (iol_is_on(s))
        return !iol_busy;
    if (s == IOL_STOPPING) {
        iol_exit_hold_if_dying();      /* the process dies after its snapshot */
        return 0;
    }
    if (s == IOL_UNINIT && !iol_busy) {
        /* Init does I/O of its own; a successful wrapped call must leave errno
         * exactly as it was, so init must not change it. */
        int saved_errno = errno;
        iol_core_init_lazy();
        errno = saved_errno;
        return iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE));
    }
    return 0;
}

void iol_core_shutdown(int write_log)
{
    int expect = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if (!iol_is_on(expect) ||
        !__atomic_compare_exchange_n(&iol_state, &expect, IOL_STOPPING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        /* Another thread writes the log (an _exit, a signal): this exit (the
         * destructor runs just before the process ends) waits until it is over. */
        if (expect == IOL_STOPPING && !iol_locks_mine())
            iol_exit_wait_owner();
        return;
    }
    iol_exit_owner_claim(0);
    iol_busy++;
    iol_modules_freeze();
    iol_records_detach();
    /* Termination signals wait until the log is complete (a few milliseconds):
     * e.g. multiprocessing terminates workers that are already in _exit. */
    sigset_t old;
    iol_block_term_signals(&old);
    /* ... and on other threads, our handler waits for this flag (signals.c). */
    __atomic_store_n(&iol_log_writing, 1, __ATOMIC_RELEASE);
    if (write_log)
        iol_log_write();
    iol_report_failures();
    __atomic_store_n(&iol_log_writing, 0, __ATOMIC_RELEASE);
    iol_exit_owner_done();
    /* A signal another thread left to us: its original disposition now. */
    int held = __atomic_exchange_n(&iol_held_sig, 0, __ATOMIC_ACQ_REL);
    if (held)
        iol_signal_default_now(held);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    iol_busy--;
}

/* MPI mode: called once MPI_Init has succeeded.  The runtime starts here (nothing
 * is recorded before MPI_Init, runtime spec 1.6) unless DARSHAN_ENABLE_NONMPI had
 * already started it, in which case it keeps counting with the rank now known. */
void iol_core_init_mpi(int rank, int nprocs)
{
    iol_rank = rank;
    iol_nprocs = nprocs;
    iol_mpi_mode = 1;
    int s = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
    if ((s == IOL_OFF || s == IOL_UNINIT) &&
        __atomic_compare_exchange_n(&iol_state, &s, IOL_INITING, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        core_init();
}

/* Forget the records (already written, or not ours) and start again. */
static void restart(void)
{
    iol_busy++;
    for (size_t i = 0; i < iol_module_ndescs; i++) {
        iol_module *m = &iol_mods[iol_module_descs[i]->id];
        if (m->d && m->d->reset && m->state == 1)
            m->d->reset(m);
    }
    iol_records_release();
    iol_exit_owner_reset();
    __atomic_store_n(&iol_state, IOL_INITING, __ATOMIC_RELEASE);
    iol_busy--;
    core_init();
}

/* The child of fork(): forget the parent's records without writing them, and
 * start again (runtime spec 8.2).  Locks held by other parent threads at fork
 * time are re-initialised by iol_records_init. */
static void atfork_child(void)
{
    iol_vfork_forget();
    iol_exit_owner_forked();          /* no thread of this process is dying */
    if (!iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE)))
        return;
    if (iol_mpi_mode) {   /* a child cannot join the parent's collective log write */
        __atomic_store_n(&iol_state, IOL_OFF, __ATOMIC_RELEASE);
        return;
    }
    iol_fork_parent = getppid();
    restart();
}

/* Threads of this process, from /proc/self/stat (field 20); 0 if unknown. */
static long thread_count(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');          /* the command name may hold spaces */
    for (int field = 2; p && field < 20; field++)   /* to the space before field 20 */
        p = strchr(p + 1, ' ');
    return p ? strtol(p + 1, NULL, 10) : 0;
}

void iol_core_resume_after_exec(void)
{
    if (iol_vfork_child() ||
        __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE) != IOL_STOPPING || iol_mpi_mode ||
        iol_busy || !iol_core_exec_ok() || thread_count() != 1)
        return;
    int saved = errno;
    restart();
    errno = saved;
}

__attribute__((constructor)) static void iol_ctor(void)
{
    if (__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE) == IOL_UNINIT)
        iol_core_init_lazy();
    /* Processes started from here (spawn, exec, pipelines) join this job: their
     * logs get the same job id, so `iolens merge` can group them.  Done here, in
     * the constructor, where setenv's allocation is safe. */
    if (iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE)) && iol_cfg.job_pid <= 0) {
        char v[24];
        snprintf(v, sizeof v, "%d", (int)iol_job_pid);
        setenv("IOLENS_JOB_PID", v, 0);
    }
}

__attribute__((destructor)) static void iol_dtor(void)
{
    iol_core_shutdown(1);
}

int iol_core_exec_ok(void)
{
    return getpid() == iol_self_pid;
}

/* A process leaving through _exit (e.g. Python multiprocessing workers) still
 * writes its log.  _exit is async-signal-safe and is called from signal
 * handlers, so the write must be too (exitwrite.c). */
void _exit(int status)
{
    if (getpid() == iol_self_pid)    /* not in a vfork child, which shares our memory */
        iol_core_shutdown_async();
    IOL_REAL(_exit)(status);
    __builtin_unreachable();
}

/* C99's name for the same exit (a separate symbol in glibc; upstream misses it). */
void _Exit(int status)
{
    if (getpid() == iol_self_pid)
        iol_core_shutdown_async();
    IOL_REAL(_Exit)(status);
    __builtin_unreachable();
}
