/* `iolens run [--logpath DIR] [--trace] [--] CMD ARGS...`: run a program with the runtime
 * preloaded in non-MPI mode, wait for it and every process it started, merge
 * their logs into one job log (run_job.c), say where it went, and exit with the
 * program's status. */
#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_job.h"
#include "tools.h"
#include "options.h"      /* iol_mkdirs: the runtime's own mkdir -p */

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens run [--logpath DIR [--mkdir]] [--trace] [--keep-process-logs] [--] CMD [ARGS...]\n"
                 "  Runs CMD with libiolens.so preloaded (DARSHAN_ENABLE_NONMPI=1), waits for it\n"
                 "  and every process it started, merges their logs into one job log and\n"
                 "  prints its path.  Exits with CMD's exit status (127 when CMD could not\n"
                 "  be started, 2 for a usage error).\n"
                 "  --logpath DIR  write logs under DIR (DIR/Y/M/D when that tree exists);\n"
                 "                 DIR must exist unless --mkdir is given\n"
                 "  --mkdir        create DIR (and its parents) when it does not exist\n"
                 "  --trace        also record DXT traces (DXT_ENABLE_IO_TRACE=1, docs/dxt.md)\n"
                 "  --keep-process-logs  keep each process's own log beside the job log\n"
                 "  The runtime is found via $IOLENS_RUNTIME, <prefix>/lib next to this\n"
                 "  program, the build tree, then the install directory.\n"
                 "  --version      print the version and exit\n");
}

static int exists(const char *p) { return access(p, R_OK) == 0; }

/* The runtime library: env, next to the executable, build tree, install dir. */
static int find_runtime(char *out, size_t len)
{
    const char *env = getenv("IOLENS_RUNTIME");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return exists(out) ? 0 : -1;
    }
    char self[3800];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/../lib/libiolens.so", self);
            if (exists(out))
                return 0;
        }
    }
#ifdef IOLENS_RUNTIME_BUILD_PATH
    snprintf(out, len, "%s", IOLENS_RUNTIME_BUILD_PATH);
    if (exists(out))
        return 0;
#endif
#ifdef IOLENS_INSTALL_LIBDIR
    snprintf(out, len, "%s/libiolens.so", IOLENS_INSTALL_LIBDIR);
    if (exists(out))
        return 0;
#endif
    return -1;
}

static int set_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    char buf[8192];
    if (old && *old)
        snprintf(buf, sizeof buf, "%s:%s", old, lib);
    else
        snprintf(buf, sizeof buf, "%s", lib);
    return setenv("LD_PRELOAD", buf, 1);
}

/* --logpath DIR before anything starts: a missing directory is created when asked
 * (--mkdir), else the program is not run, so the log never goes somewhere else
 * without the user knowing. */
static int check_logpath(const char *dir, int mkdir_ok)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "iolens run: --logpath %s: not a directory\n", dir);
            return -1;
        }
    } else if (errno != ENOENT) {
        fprintf(stderr, "iolens run: --logpath %s: %s\n", dir, strerror(errno));
        return -1;
    } else if (!mkdir_ok) {
        fprintf(stderr, "iolens run: --logpath %s: no such directory (create it, or add "
                        "--mkdir); the program was not started\n", dir);
        return -1;
    } else if (iol_mkdirs(dir, 0777) != 0) {
        fprintf(stderr, "iolens run: --logpath %s: cannot create: %s\n", dir, strerror(errno));
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "iolens run: --logpath %s: not writable (%s); the program was not "
                        "started\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* fork + exec; returns the pid, or -1 with *exec_errno set when CMD never started
 * (learned through a close-on-exec pipe: it closes unread exactly when exec works). */
static pid_t start(char **cmd, int *exec_errno)
{
    int fds[2];
    *exec_errno = 0;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *exec_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *exec_errno = errno;
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        execvp(cmd[0], cmd);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(IOL_EXIT_NOT_STARTED);
    }
    close(fds[1]);
    int e = 0;
    ssize_t r;
    while ((r = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (r == (ssize_t)sizeof e) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        *exec_errno = e;
        return -1;
    }
    return pid;
}

/* Processes the program left running (a background job, a daemon) were given
 * to us (PR_SET_CHILD_SUBREAPER): their logs belong to the job too, so wait for
 * them, but at most IOLENS_RUN_WAIT seconds (default 10) in all, so that a
 * process that never ends cannot hold `iolens run` forever. */
static void wait_descendants(void)
{
    const char *w = getenv("IOLENS_RUN_WAIT");
    double limit = w && *w ? atof(w) : 10.0;
    struct timespec t0, now, nap = {0, 5000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        pid_t r = waitpid(-1, NULL, WNOHANG);
        if (r > 0)
            continue;
        if (r < 0 && errno != EINTR)
            return;                          /* ECHILD: the whole tree has ended */
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9 >= limit)
            return;
        nanosleep(&nap, NULL);
    }
}

static int wait_child(pid_t pid)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, oldint, oldquit;
    sigaction(SIGINT, &ign, &oldint);     /* the child gets ^C; we wait for it */
    sigaction(SIGQUIT, &ign, &oldquit);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &oldint, NULL);
    sigaction(SIGQUIT, &oldquit, NULL);
    wait_descendants();
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

int iol_cmd_run(int argc, char **argv)
{
    int i = 1;
    const char *logpath = NULL;
    int trace = 0, mkdir_ok = 0;
    iol_run_job job = {.keep_process_logs = 0};
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--logpath") && i + 1 < argc) {
            logpath = argv[++i];
        } else if (!strcmp(argv[i], "--trace")) {
            trace = 1;
        } else if (!strcmp(argv[i], "--mkdir")) {
            mkdir_ok = 1;
        } else if (!strcmp(argv[i], "--keep-process-logs")) {
            job.keep_process_logs = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "iolens run: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    if (mkdir_ok && !logpath) {
        fprintf(stderr, "iolens run: --mkdir needs --logpath DIR\n");
        return 2;
    }
    if (logpath && check_logpath(logpath, mkdir_ok) != 0)
        return 2;
    /* Absolute, so that a process that changes directory logs to the same place. */
    char abs_logpath[4096];
    if (logpath && logpath[0] != '/' && realpath(logpath, abs_logpath))
        logpath = abs_logpath;
    char lib[4096];
    if (find_runtime(lib, sizeof lib) != 0) {
        fprintf(stderr, "iolens run: cannot find libiolens.so (set IOLENS_RUNTIME)\n");
        return 2;
    }
    if (set_preload(lib) || setenv("DARSHAN_ENABLE_NONMPI", "1", 1) ||
        (logpath && setenv("DARSHAN_LOGPATH", logpath, 1)) ||
        (trace && setenv("DXT_ENABLE_IO_TRACE", "1", 1)) || iol_run_job_prepare(&job)) {
        fprintf(stderr, "iolens run: cannot prepare the environment: %s\n", strerror(errno));
        iol_run_job_discard(&job);
        return 2;
    }
    /* Orphans of the program's tree become our children, so we can wait for them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    int exec_errno;
    pid_t pid = start(argv + i, &exec_errno);
    if (pid < 0) {
        /* Never started: nothing ran, so there is no log to talk about. */
        fprintf(stderr, "iolens run: cannot run %s: %s\n", argv[i], strerror(exec_errno));
        iol_run_job_discard(&job);
        return IOL_EXIT_NOT_STARTED;
    }
    int rc = wait_child(pid);
    iol_run_job_finish(&job, pid, logpath);
    return rc;
}
