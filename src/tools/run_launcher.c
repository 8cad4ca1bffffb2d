/* MPI launchers under `iolens run` (run_launcher.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_launcher.h"
#include "self_dir.h"

const char *iol_mpi_flavour_name(iol_mpi_flavour f)
{
    return f == IOL_MPI_OPENMPI ? "Open MPI" : f == IOL_MPI_MPICH ? "MPICH"
         : f == IOL_MPI_NONE ? "no MPI" : "an unknown MPI";
}

const char *iol_launcher_name(iol_launcher_kind k)
{
    static const char *const names[] = {"a program", "Open MPI's launcher",
                                        "MPICH's launcher (Hydra)", "Slurm's srun",
                                        "an MPI launcher"};
    return names[k];
}

/* ---------------------------------------------------------------- which launcher */
/* cmd as execvp would find it: a name with a slash as is, else the first
 * executable regular file of that name in PATH.  0, or -1. */
static int which(const char *cmd, char *out, size_t len)
{
    struct stat st;
    if (strchr(cmd, '/')) {
        snprintf(out, len, "%s", cmd);
        return stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if ((size_t)snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd) < len &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

static int in_list(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

static const char *const OPENMPI_NAMES[] = {"orterun", "prterun", "mpirun.openmpi",
                                            "mpiexec.openmpi", NULL};
static const char *const HYDRA_NAMES[] = {"mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", NULL};
/* Launchers whose way of passing an environment to the ranks run does not know. */
static const char *const OTHER_NAMES[] = {"aprun", "jsrun", "ibrun", "mpirun_rsh", NULL};

static iol_launcher_kind kind_of_name(const char *name)
{
    if (in_list(name, OPENMPI_NAMES))
        return IOL_LAUNCHER_OPENMPI;
    if (in_list(name, HYDRA_NAMES))
        return IOL_LAUNCHER_HYDRA;
    if (strcmp(name, "srun") == 0)
        return IOL_LAUNCHER_SRUN;
    if (in_list(name, OTHER_NAMES))
        return IOL_LAUNCHER_OTHER;
    return IOL_LAUNCHER_NONE;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* What `exe --version` prints (stdout and stderr), at most len-1 bytes and 5
 * seconds; the launcher is killed if it takes longer. */
static void version_text(const char *exe, char *text, size_t len)
{
    int fds[2];
    text[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        unsetenv("LD_PRELOAD");                /* a look at the launcher, not a job's */
        execl(exe, exe, "--version", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int left = 5000; pid > 0 && left > 0 && got + 1 < len;) {
        struct pollfd pfd = {fds[0], POLLIN, 0};
        if (poll(&pfd, 1, left) <= 0 && errno != EINTR)
            break;
        ssize_t r = pfd.revents ? read(fds[0], text + got, len - 1 - got) : 0;
        if (pfd.revents && r <= 0)
            break;                             /* end of output */
        got += r > 0 ? (size_t)r : 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left = 5000 - (int)((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
    }
    text[got] = '\0';
    close(fds[0]);
    if (pid > 0) {
        kill(pid, SIGKILL);                    /* harmless when it has ended */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
}

int iol_launcher_named(const char *cmd0)
{
    const char *b = base(cmd0);
    return kind_of_name(b) != IOL_LAUNCHER_NONE || strncmp(b, "mpiexec", 7) == 0 ||
           strncmp(b, "mpirun", 6) == 0;
}

iol_launcher_kind iol_launcher_detect(const char *cmd0)
{
    char found[PATH_MAX], real[PATH_MAX];
    iol_launcher_kind k = kind_of_name(base(cmd0));
    if (k != IOL_LAUNCHER_NONE || which(cmd0, found, sizeof found) != 0)
        return k;
    if (realpath(found, real) && (k = kind_of_name(base(real))) != IOL_LAUNCHER_NONE)
        return k;                              /* /usr/bin/mpiexec -> orterun */
    const char *b = base(cmd0);
    if (strncmp(b, "mpiexec", 7) != 0 && strncmp(b, "mpirun", 6) != 0)
        return IOL_LAUNCHER_NONE;
    char text[4096];
    version_text(found, text, sizeof text);
    if (strstr(text, "Open MPI") || strstr(text, "OpenRTE") || strstr(text, "PRRTE"))
        return IOL_LAUNCHER_OPENMPI;
    if (strstr(text, "HYDRA"))
        return IOL_LAUNCHER_HYDRA;
    return IOL_LAUNCHER_OTHER;
}

iol_mpi_flavour iol_launcher_flavour(iol_launcher_kind k, char **cmd)
{
    if (k == IOL_LAUNCHER_OPENMPI)
        return IOL_MPI_OPENMPI;
    if (k == IOL_LAUNCHER_HYDRA)
        return IOL_MPI_MPICH;
    char path[PATH_MAX];
    for (int i = 1; k == IOL_LAUNCHER_SRUN && cmd[i]; i++)
        if (cmd[i][0] != '-' && which(cmd[i], path, sizeof path) == 0)
            return iol_elf_mpi_flavour(path);  /* the program (a script: unknown) */
    return IOL_MPI_UNKNOWN;
}

/* ---------------------------------------------------------------- which runtime */
int iol_run_lib_candidates(const char *var, const char *name, const char *build_path,
                           char cand[][4096])
{
    const char *env = getenv(var);
    if (env && *env) {
        snprintf(cand[0], 4096, "%s", env);
        return 1;
    }
    int n = 0;
    char self[3800];
    if (iol_self_dir(self, sizeof self) == 0)      /* an install, moved or not */
#ifdef IOLENS_REL_LIBDIR
        snprintf(cand[n++], 4096, "%s/%s/%s", self, IOLENS_REL_LIBDIR, name);
#else
        snprintf(cand[n++], 4096, "%s/../lib/%s", self, name);
#endif
    if (build_path)
        snprintf(cand[n++], 4096, "%s", build_path);
#ifdef IOLENS_INSTALL_LIBDIR
    snprintf(cand[n++], 4096, "%s/%s", IOLENS_INSTALL_LIBDIR, name);
#endif
    return n;
}

#ifndef IOLENS_MPI_RUNTIME_BUILD_PATH
#define IOLENS_MPI_RUNTIME_BUILD_PATH NULL    /* built without MPI */
#endif

/* The places of one MPI's own runtime, beside the default one: an install (or
 * wheel) with both MPIs keeps each MPI's runtime in <libdir>/iolens/<mpi>/, and a
 * tree built with IOLENS_MPI_EXTRA a further MPI's in <runtime dir>/<mpi>/
 * (docs/install.md, "One build"; the static link files sit there too, mpi_link.c).
 * Both relative to the running iolens, so a moved install still finds them.
 * Appends to CAND from index N; returns the new count. */
static int flavour_candidates(iol_mpi_flavour want, char cand[][4096], int n)
{
#if defined(IOLENS_REL_LIBDIR) || defined(IOLENS_REL_BUILD_RUNTIME)
    const char *dir = want == IOL_MPI_MPICH ? "mpich" : "openmpi";
    char self[3800];
    if (iol_self_dir(self, sizeof self) != 0)
        return n;
#ifdef IOLENS_REL_LIBDIR
    snprintf(cand[n++], 4096, "%s/%s/iolens/%s/libiolens-mpi.so", self, IOLENS_REL_LIBDIR, dir);
#endif
#ifdef IOLENS_REL_BUILD_RUNTIME
    snprintf(cand[n++], 4096, "%s/%s/%s/libiolens-mpi.so", self, IOLENS_REL_BUILD_RUNTIME, dir);
#endif
#endif
    return n;
}

int iol_mpi_runtime_find(iol_mpi_flavour want, char *out, size_t len)
{
    const char *var = want == IOL_MPI_MPICH ? "IOLENS_MPI_RUNTIME_MPICH"
                                            : "IOLENS_MPI_RUNTIME_OPENMPI";
    const char *env = getenv(var);
    char cand[5][4096];
    int n = iol_run_lib_candidates(var, "libiolens-mpi.so", IOLENS_MPI_RUNTIME_BUILD_PATH, cand);
    if (!(env && *env))              /* the variable, when set, is the only place */
        n = flavour_candidates(want, cand, n);
    int rc = -1;
    for (int i = 0; i < n; i++) {
        if (access(cand[i], R_OK) != 0)
            continue;
        if (iol_elf_mpi_flavour(cand[i]) == want) {
            snprintf(out, len, "%.4000s", cand[i]);
            return 0;
        }
        if (rc == -1)
            snprintf(out, len, "%.4000s", cand[i]);
        rc = env && *env ? -3 : -2;
    }
    if (rc == -1 && env && *env)
        snprintf(out, len, "%.4000s", env);
    return rc;
}

/* ---------------------------------------------------------------- the ranks' command */
static int push(char **argv, size_t *n, const char *s)
{
    return (argv[(*n)++] = strdup(s)) ? 0 : -1;
}

/* srun's --export value: the user's (NONE/NIL: nothing of theirs) and ours. */
static char *export_value(const char *theirs, char *const *vars)
{
    size_t len = strlen("--export=ALL") + 1;
    for (size_t i = 0; vars[i]; i++) {
        if (strchr(vars[i], ',')) {
            errno = EINVAL;                    /* srun splits the list at commas */
            return NULL;
        }
        len += strlen(vars[i]) + 1;
    }
    int keep = theirs && strcmp(theirs, "NONE") != 0 && strcmp(theirs, "NIL") != 0;
    char *v = malloc(len + (theirs ? strlen(theirs) : 0) + 1);
    if (!v)
        return NULL;
    strcpy(v, "--export=");
    strcat(v, keep ? theirs : theirs ? "" : "ALL");
    for (size_t i = 0; vars[i]; i++) {
        if (v[strlen(v) - 1] != '=')
            strcat(v, ",");
        strcat(v, vars[i]);
    }
    return v;
}

/* Index of the user's --export (in srun's options, before the program), or -1;
 * *value: its value ("--export=V", or "--export V", which then takes two words). */
static int srun_export_at(char **cmd, const char **value)
{
    for (int i = 1; cmd[i] && cmd[i][0] == '-'; i++) {
        if (strncmp(cmd[i], "--export=", 9) == 0) {
            *value = cmd[i] + 9;
            return i;
        }
        if (strcmp(cmd[i], "--export") == 0 && cmd[i + 1]) {
            *value = cmd[i + 1];
            return i;
        }
    }
    return -1;
}

char **iol_launcher_argv(iol_launcher_kind k, char **cmd, char *const *vars)
{
    size_t nv = 0, nc = 0, n = 0;
    while (vars[nv])
        nv++;
    while (cmd[nc])
        nc++;
    char **argv = calloc(nc + 3 * nv + 2, sizeof *argv);
    const char *theirs = NULL;
    int at = k == IOL_LAUNCHER_SRUN ? srun_export_at(cmd, &theirs) : -1, bad = !argv;
    for (size_t i = 0; !bad && i < nc; i++) {
        if (k == IOL_LAUNCHER_SRUN && (int)i == at) {
            bad = !(argv[n++] = export_value(theirs, vars));
            i += strcmp(cmd[i], "--export") == 0;   /* "--export V": V is the next word */
            continue;
        }
        bad = push(argv, &n, cmd[i]);
        if (bad || i != 0)
            continue;
        if (k == IOL_LAUNCHER_SRUN && at < 0)  /* right after the launcher's name */
            bad = !(argv[n++] = export_value(NULL, vars));
        for (size_t j = 0; !bad && j < nv && k != IOL_LAUNCHER_SRUN; j++) {
            size_t eq = strcspn(vars[j], "=");
            if (k == IOL_LAUNCHER_OPENMPI) {
                bad = push(argv, &n, "-x") || push(argv, &n, vars[j]);
            } else {
                bad = push(argv, &n, "-genv") || !(argv[n++] = strndup(vars[j], eq)) ||
                      push(argv, &n, vars[j] + eq + (vars[j][eq] == '='));
            }
        }
    }
    if (bad) {
        int e = errno;
        iol_launcher_free(argv);
        errno = e;
        return NULL;
    }
    return argv;
}

void iol_launcher_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

void iol_print_command(FILE *out, char *const *argv)
{
    for (size_t i = 0; argv[i]; i++) {
        const char *w = argv[i];
        int plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-_./=:,+%@") == strlen(w);
        fputs(i ? " " : "", out);
        if (plain) {
            fputs(w, out);
            continue;
        }
        fputc('\'', out);
        for (; *w; w++)
            fputs(*w == '\'' ? "'\\''" : (char[]){*w, 0}, out);
        fputc('\'', out);
    }
    fputc('\n', out);
}
