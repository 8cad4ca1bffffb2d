/* `iolens run [--logpath DIR] [--trace] [--] CMD ARGS...`: run a program with the runtime
 * preloaded in non-MPI mode, wait for it and every process it started, merge
 * their logs into one job log (run_job.c), say where it went, and exit with the
 * program's status.  An MPI launcher's ranks get the MPI runtime instead
 * (run_launcher.c); the signals run is sent are passed on to the program
 * (run_wait.c); a run inside another run's job only execs
 * its program (run_nested.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "run_job.h"
#include "run_launcher.h"
#include "run_nested.h"
#include "run_wait.h"
#include "tools.h"
#include "options.h"      /* iol_mkdirs: the runtime's own mkdir -p */

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens run [--logpath DIR [--mkdir]] [--trace] [--keep-process-logs] [--no-mpi]\n"
                 "                  [--] CMD [ARGS...]\n"
                 "  Runs CMD with libiolens.so preloaded (DARSHAN_ENABLE_NONMPI=1), waits for it\n"
                 "  and every process it started, merges their logs into one job log and\n"
                 "  prints its path.  Exits with CMD's exit status (127 when CMD could not\n"
                 "  be started, 2 for a usage error).\n"
                 "  CMD an MPI launcher (mpiexec/mpirun of Open MPI or MPICH, srun): its ranks\n"
                 "  get libiolens-mpi.so, built for that MPI, through the launcher's options;\n"
                 "  the ranks write the job's one log.  TERM, INT, HUP, QUIT, USR1 and USR2\n"
                 "  sent to run are passed on to CMD.\n"
                 "  --logpath DIR  write logs under DIR (DIR/Y/M/D when that tree exists);\n"
                 "                 DIR must exist unless --mkdir is given\n"
                 "  --mkdir        create DIR (and its parents) when it does not exist\n"
                 "  --trace        also record DXT traces (DXT_ENABLE_IO_TRACE=1, docs/dxt.md)\n"
                 "  --keep-process-logs  keep each process's own log beside the job log\n"
                 "  --no-mpi       CMD is not an MPI job even if it is a launcher: preload\n"
                 "                 libiolens.so into CMD and everything it starts\n"
                 "  The runtime is found via $IOLENS_RUNTIME, <prefix>/lib next to this\n"
                 "  program, the build tree, then the install directory; the MPI runtime via\n"
                 "  $IOLENS_MPI_RUNTIME_OPENMPI or _MPICH, then the same places.\n"
                 "  --version      print the version and exit\n");
}

static int exists(const char *p) { return access(p, R_OK) == 0; }

#ifndef IOLENS_RUNTIME_BUILD_PATH
#define IOLENS_RUNTIME_BUILD_PATH NULL
#endif

/* The runtime library: env, next to the executable, build tree, install dir. */
static int find_runtime(char *out, size_t len)
{
    char cand[3][4096];
    int n = iol_run_lib_candidates("IOLENS_RUNTIME", "libiolens.so", IOLENS_RUNTIME_BUILD_PATH,
                                   cand);
    for (int i = 0; i < n; i++)
        if (exists(cand[i])) {
            snprintf(out, len, "%.4000s", cand[i]);
            return 0;
        }
    return -1;
}

/* LD_PRELOAD with lib added after what the user preloads already. */
static void preload_value(const char *lib, char *buf, size_t len)
{
    const char *old = getenv("LD_PRELOAD");
    if (old && *old)
        snprintf(buf, len, "%s:%s", old, lib);
    else
        snprintf(buf, len, "%s", lib);
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

/* Under another run (run_nested.h): the program joins that run's job, whose
 * settings stay; this run only becomes the program. */
static int run_nested(pid_t outer, char **cmd, int own_settings)
{
    if (iol_launcher_named(cmd[0])) {
        fprintf(stderr, "iolens run: %s is an MPI launcher, and this `iolens run` runs inside "
                        "another one's job (pid %d), whose runtime it would get; run `iolens "
                        "run -- %s ...` outside any other run; it was not started\n",
                cmd[0], (int)outer, cmd[0]);
        return IOL_EXIT_USAGE;
    }
    if (own_settings)
        fprintf(stderr, "iolens run: inside the job of another `iolens run` (pid %d): %s joins "
                        "its job and log, with its settings (this run's options are not "
                        "used)\n", (int)outer, cmd[0]);
    fflush(NULL);
    execvp(cmd[0], cmd);
    fprintf(stderr, "iolens run: cannot run %s: %s\n", cmd[0], strerror(errno));
    return IOL_EXIT_NOT_STARTED;
}

/* The settings the ranks get: "NAME=VALUE" in vars[][4200], NULL-terminated in
 * ptrs.  report: IOLENS_LOG_REPORT (NULL: left out, for a command to print). */
static void rank_settings(const char *lib, const char *logpath, int trace, const char *report,
                          char vars[][4200], char **ptrs)
{
    char pre[4096];
    int n = 0;
    preload_value(lib, pre, sizeof pre);
    snprintf(vars[n++], 4200, "LD_PRELOAD=%s", pre);
    if (logpath)
        snprintf(vars[n++], 4200, "DARSHAN_LOGPATH=%s", logpath);
    if (trace)
        snprintf(vars[n++], 4200, "DXT_ENABLE_IO_TRACE=1");
    if (report) {
        snprintf(vars[n++], 4200, "IOLENS_LOG_REPORT=%s", report);
        snprintf(vars[n++], 4200, "%s=%d", IOL_RUN_PID_VAR, (int)getpid());
    }
    for (int i = 0; i < n; i++)
        ptrs[i] = vars[i];
    ptrs[n] = NULL;
}

/* Refusing a launcher: the command that gives its ranks the runtime `lib`. */
static void print_ranks_command(iol_launcher_kind k, char **cmd, const char *lib,
                                const char *logpath, int trace)
{
    char vars[5][4200], *ptrs[6];
    rank_settings(lib, logpath, trace, NULL, vars, ptrs);
    if (k == IOL_LAUNCHER_OTHER) {        /* one that hands its environment on */
        fprintf(stderr, "  env");
        for (int i = 0; ptrs[i]; i++)
            fprintf(stderr, " %s", ptrs[i]);
        fputc(' ', stderr);
        iol_print_command(stderr, cmd);
        return;
    }
    char **argv = iol_launcher_argv(k, cmd, ptrs);
    fputs("  ", stderr);
    iol_print_command(stderr, argv ? argv : cmd);
    iol_launcher_free(argv);
}

/* Why launcher k's ranks cannot be given a runtime (run_launcher.h's codes). */
static void say_refused(iol_launcher_kind k, iol_mpi_flavour want, int rc, const char *cmd0,
                        const char *lib)
{
    const char *var = want == IOL_MPI_MPICH ? "MPICH" : "OPENMPI";
    if (k == IOL_LAUNCHER_OTHER)
        fprintf(stderr, "iolens run: %s is an MPI launcher whose way of passing settings to "
                        "its ranks iolens does not know; it was not started.  If it hands its "
                        "environment on to the ranks, run (with the runtime built for the "
                        "program's MPI):\n", cmd0);
    else if (!want)
        fprintf(stderr, "iolens run: %s: cannot tell which MPI the program links (not an ELF "
                        "program that links libmpi or libmpich), so which MPI runtime its ranks "
                        "need; it was not started.  Run, with the runtime built for the "
                        "program's MPI:\n", cmd0);
    else if (rc == -1)
        fprintf(stderr, "iolens run: %s is %s, and no MPI runtime (libiolens-mpi.so) was found; "
                        "build one for %s (docs/mpi.md, \"Two MPIs\") and name it in "
                        "IOLENS_MPI_RUNTIME_%s; it was not started.  Then run:\n", cmd0,
                iol_launcher_name(k), iol_mpi_flavour_name(want), var);
    else
        fprintf(stderr, "iolens run: %s is %s, but the MPI runtime %s%s, is built for %s, whose "
                        "ranks it would break; build one for %s (docs/mpi.md, \"Two MPIs\") and "
                        "name it in IOLENS_MPI_RUNTIME_%s; it was not started.  Then run:\n",
                cmd0, iol_launcher_name(k), rc == -3 ? "named by the variable, " : "found, ",
                lib, iol_mpi_flavour_name(want == IOL_MPI_MPICH ? IOL_MPI_OPENMPI : IOL_MPI_MPICH),
                iol_mpi_flavour_name(want), var);
}

/* `iolens run --no-mpi [--logpath DIR] [--trace] -- CMD...`, for a script under
 * srun that may not use MPI. */
static void print_no_mpi_command(char **cmd, const char *logpath, int trace)
{
    size_t n = 0;
    while (cmd[n])
        n++;
    char **argv = calloc(n + 8, sizeof *argv);
    if (!argv)
        return;
    size_t a = 0;
    argv[a++] = "iolens";
    argv[a++] = "run";
    argv[a++] = "--no-mpi";
    if (logpath) {
        argv[a++] = "--logpath";
        argv[a++] = (char *)logpath;
    }
    if (trace)
        argv[a++] = "--trace";
    argv[a++] = "--";
    memcpy(argv + a, cmd, (n + 1) * sizeof *argv);
    fputs("or, if it does not use MPI:\n  ", stderr);
    iol_print_command(stderr, argv);
    free(argv);
}

/* The MPI runtime for launcher k's ranks into lib; or why not, the command that
 * works, and -1. */
static int mpi_runtime(iol_launcher_kind k, char **cmd, const char *logpath, int trace,
                       char *lib, size_t len)
{
    iol_mpi_flavour want = iol_launcher_flavour(k, cmd);
    int rc = want ? iol_mpi_runtime_find(want, lib, len) : -1;
    if (rc == 0 && k != IOL_LAUNCHER_OTHER)
        return 0;
    say_refused(k, want, rc, cmd[0], lib);
    /* The runtime to name in the command: the one it needs, else any found. */
    char use[4096] = "<libiolens-mpi.so built for your MPI>";
    if (want)
        snprintf(use, sizeof use, "<libiolens-mpi.so built for %s>", iol_mpi_flavour_name(want));
    else if (iol_mpi_runtime_find(IOL_MPI_OPENMPI, lib, len) != 0 &&
             iol_mpi_runtime_find(IOL_MPI_MPICH, lib, len) != 0)
        lib[0] = '\0';
    print_ranks_command(k, cmd, !want && lib[0] ? lib : use, logpath, trace);
    if (!want && k == IOL_LAUNCHER_SRUN)
        print_no_mpi_command(cmd, logpath, trace);
    return -1;
}

/* The environment of a non-MPI run: the runtime for every process. */
static int set_nonmpi_env(const char *lib)
{
    char pre[8192];
    preload_value(lib, pre, sizeof pre);
    return setenv("LD_PRELOAD", pre, 1) || setenv("DARSHAN_ENABLE_NONMPI", "1", 1);
}

int iol_cmd_run(int argc, char **argv)
{
    int i = 1;
    const char *logpath = NULL;
    int trace = 0, mkdir_ok = 0, no_mpi = 0;
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
        } else if (!strcmp(argv[i], "--no-mpi")) {
            no_mpi = 1;
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
    pid_t outer = iol_run_outer();
    if (outer > 0)
        return run_nested(outer, argv + i, logpath || trace || job.keep_process_logs);
    if (logpath && check_logpath(logpath, mkdir_ok) != 0)
        return 2;
    /* Absolute, so that a process that changes directory logs to the same place. */
    char abs_logpath[4096];
    if (logpath && logpath[0] != '/' && realpath(logpath, abs_logpath))
        logpath = abs_logpath;
    char lib[4096];
    iol_launcher_kind launcher = no_mpi ? IOL_LAUNCHER_NONE : iol_launcher_detect(argv[i]);
    if (launcher == IOL_LAUNCHER_SRUN && iol_launcher_flavour(launcher, argv + i) == IOL_MPI_NONE)
        launcher = IOL_LAUNCHER_NONE;    /* srun of a program without MPI: as any program */
    job.mpi = launcher != IOL_LAUNCHER_NONE;
    if (job.mpi && mpi_runtime(launcher, argv + i, logpath, trace, lib, sizeof lib) != 0)
        return 2;
    if (!job.mpi && find_runtime(lib, sizeof lib) != 0) {
        fprintf(stderr, "iolens run: cannot find libiolens.so (set IOLENS_RUNTIME)\n");
        return 2;
    }
    char vars[5][4200], *ptrs[6], **cmd = argv + i, **ranks = NULL, self[24];
    snprintf(self, sizeof self, "%d", (int)getpid());
    if ((!job.mpi && set_nonmpi_env(lib)) || (logpath && setenv("DARSHAN_LOGPATH", logpath, 1)) ||
        (trace && setenv("DXT_ENABLE_IO_TRACE", "1", 1)) || iol_run_job_prepare(&job) ||
        setenv(IOL_RUN_PID_VAR, self, 1)) {
        fprintf(stderr, "iolens run: cannot prepare the environment: %s\n", strerror(errno));
        iol_run_job_discard(&job);
        return 2;
    }
    if (job.mpi) {                       /* the runtime for the ranks, not the launcher */
        rank_settings(lib, logpath, trace, job.report, vars, ptrs);
        if (!(cmd = ranks = iol_launcher_argv(launcher, argv + i, ptrs))) {
            fprintf(stderr, "iolens run: %s cannot pass the settings on to its ranks (%s); it "
                            "was not started.  Run:\n", argv[i], strerror(errno));
            print_ranks_command(IOL_LAUNCHER_OTHER, argv + i, lib, logpath, trace);
            iol_run_job_discard(&job);
            return 2;
        }
    }
    /* Orphans of the program's tree become our children, so we can wait for them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    int exec_errno;
    pid_t pid = iol_run_start(cmd, &exec_errno);
    iol_launcher_free(ranks);
    if (pid < 0) {
        /* Never started: nothing ran, so there is no log to talk about. */
        fprintf(stderr, "iolens run: cannot run %s: %s\n", argv[i], strerror(exec_errno));
        iol_run_job_discard(&job);
        return IOL_EXIT_NOT_STARTED;
    }
    const char *w = getenv("IOLENS_RUN_WAIT");
    iol_run_end end = iol_run_wait(pid, w && *w ? atof(w) : 10.0);
    if (!end.program_ended)
        fprintf(stderr, "iolens run: %s was passed signal %d (%s) and still ran after "
                        "IOLENS_RUN_WAIT seconds (default 10); the job log holds what had "
                        "ended\n", argv[i], end.signal, strsignal(end.signal));
    iol_run_job_finish(&job, pid, logpath);
    return end.status;
}
