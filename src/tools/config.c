/* `iolens config`: the runtime's configuration as this environment sets it.
 *   --log-path        where a log written now would go
 *   --mk-log-dirs [D] create D/<Y>/<M>/<D> for every day of this year and the next
 *                     (D defaults to the configured log path), as darshan-mk-log-dirs
 *   --dump            the effective configuration (DARSHAN_DUMP_CONFIG format);
 *                     also what plain `iolens config` prints
 *   --pre-ld-flags / --post-ld-flags [--mpi openmpi|mpich]   link line of the
 *                     static MPI runtime (docs/mpi.md): cc ... $(pre) app.o $(post)
 *   --paths, --prefix, --libdir, ... where the installed pieces are (config_paths.c) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "install_paths.h"
#include "mpi_link.h"
#include "tools.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens config [--log-path | --mk-log-dirs [DIR] | --dump |\n"
                 "                     --pre-ld-flags | --post-ld-flags | --paths | --PATH]\n"
                 "  (no option)       the same as --dump\n"
                 "  --log-path        print the directory (or file) a log written now goes to\n"
                 "  --mk-log-dirs [DIR]  create DIR/<year>/<month>/<day> for this year and the\n"
                 "                    next (DIR defaults to DARSHAN_LOGPATH / config LOGPATH)\n"
                 "  --dump            print the effective runtime configuration\n"
                 "  --pre-ld-flags [--mpi openmpi|mpich]  flags before the objects for a\n"
                 "                    static MPI runtime link (default: the MPI iolens was\n"
                 "                    built with)\n"
                 "  --post-ld-flags [--mpi openmpi|mpich]  flags after them\n"
                 "  --paths           where this iolens's pieces are: its prefix, libraries,\n"
                 "                    headers, runtimes, pkg-config and CMake files (found\n"
                 "                    relative to this program; says so when it runs from\n"
                 "                    a build tree)\n"
                 "  --PATH            one of them alone: --prefix --bindir --libdir\n"
                 "                    --includedir --runtime --mpi-runtime --pkgconfig-path\n"
                 "                    --cmake-dir (exit 1 when absent)\n"
                 "  --version         print the version and exit\n");
}

#include "options.h"

static void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "iolens config: warning: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void print_line(const char *line, void *arg) { fprintf((FILE *)arg, "%s\n", line); }

static int log_path(const iol_config *c)
{
    if (c->logfile[0]) {
        printf("%s\n", c->logfile);
        return 0;
    }
    char dir[IOL_PATH_LEN];
    int configured;
    if (iol_log_dir(c, time(NULL), dir, sizeof dir, getenv, &configured) != 0) {
        fprintf(stderr, "iolens config: no log directory (set DARSHAN_LOGPATH or HOME)\n");
        return 1;
    }
    printf("%s\n", dir);
    if (configured && access(dir, W_OK) != 0)
        fprintf(stderr, "iolens config: warning: %s is not writable (%s); logs will go to the "
                        "fallback directory\n", dir, strerror(errno));
    return 0;
}

/* --dump with LOGPATH as a log written now would use it: when nothing configures
 * it, the runtime's default directory (what --log-path prints), not NONE. */
static void dump(iol_config *c)
{
    int configured;
    char dir[IOL_PATH_LEN];
    if (!c->logpath[0] && !c->logfile[0] &&
        iol_log_dir(c, time(NULL), dir, sizeof dir, getenv, &configured) == 0)
        snprintf(c->logpath, sizeof c->logpath, "%s", dir);
    iol_config_dump(c, print_line, stdout);
}

static int mk_log_dirs(const char *root)
{
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode) || access(root, W_OK) != 0) {
        fprintf(stderr, "iolens config: %s must be an existing writable directory\n", root);
        return 1;
    }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    mode_t old = umask(0);
    char path[IOL_PATH_LEN];
    int rc = 0;
    for (int y = tm.tm_year + 1900; y <= tm.tm_year + 1901 && !rc; y++)
        for (int m = 1; m <= 12 && !rc; m++)
            for (int d = 1; d <= 31 && !rc; d++) {
                snprintf(path, sizeof path, "%s/%d/%d/%d", root, y, m, d);
                if (iol_mkdirs(path, 0755) != 0) {
                    fprintf(stderr, "iolens config: cannot create %s: %s\n", path, strerror(errno));
                    rc = 1;
                }
            }
    umask(old);
    return rc;
}

/* The link line of the static MPI runtime for MPI (NULL: the one this iolens was
 * built with): the --wrap archive when installed or built (libiolens-mpi-wrap.a,
 * wrappers __wrap_<fn>, real functions __real_<fn>, with its --wrap= response
 * file), else the interposing one; either linked whole, so its definitions come
 * first in symbol lookup, as a preloaded library's do.  Paths come from
 * mpi_link.c: relative to this executable, so an install works without its build
 * tree.  --post-ld-flags checks the files too, so both fail alike. */
static int ld_flags(int pre, const char *mpi)
{
#ifdef IOLENS_MPI_POST_LIBS
    if (!mpi)
        mpi = iol_mpi_link_default();
    if (strcmp(mpi, "openmpi") && strcmp(mpi, "mpich") && strcmp(mpi, iol_mpi_link_default())) {
        fprintf(stderr, "iolens config: --mpi %s: expected openmpi or mpich\n", mpi);
        return 2;
    }
    static iol_mpi_link files;
    char looked[3 * PATH_MAX];
    if (iol_mpi_link_find(mpi, &files, looked, sizeof looked) != 0) {
        fprintf(stderr, "iolens config: no static MPI runtime for %s beside this iolens "
                        "(looked in %s); see docs/mpi.md, \"Static links\"\n", mpi, looked);
        return 1;
    }
    if (!pre)
        printf("%s\n", IOLENS_MPI_POST_LIBS);
    else if (files.wrap_opts[0])
        printf("-Wl,@%s -Wl,--whole-archive %s -Wl,--no-whole-archive\n", files.wrap_opts,
               files.archive);
    else
        printf("-Wl,--whole-archive %s -Wl,--no-whole-archive\n", files.archive);
    return 0;
#else
    (void)pre;
    (void)mpi;
    fprintf(stderr, "iolens config: this build has no MPI runtime (IOLENS_WITH_MPI=OFF)\n");
    return 2;
#endif
}

/* --pre-ld-flags / --post-ld-flags [--mpi NAME | --mpi=NAME] */
static int ld_flags_cmd(int argc, char **argv)
{
    const char *mpi = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--mpi") && i + 1 < argc)
            mpi = argv[++i];
        else if (!strncmp(argv[i], "--mpi=", 6))
            mpi = argv[i] + 6;
        else {
            fprintf(stderr, "iolens config: %s: unexpected argument\n", argv[i]);
            return 2;
        }
    }
    return ld_flags(!strcmp(argv[1], "--pre-ld-flags"), mpi);
}

int iol_cmd_config(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    static iol_config c;
    iol_config_load(&c, getenv, warn);
    int rc = 2;
    if (argc < 2 || !strcmp(argv[1], "--dump")) {
        dump(&c);
        rc = 0;
    } else if (!strcmp(argv[1], "--log-path")) {
        rc = log_path(&c);
    } else if (!strcmp(argv[1], "--pre-ld-flags") || !strcmp(argv[1], "--post-ld-flags")) {
        rc = ld_flags_cmd(argc, argv);
    } else if (!strcmp(argv[1], "--mk-log-dirs")) {
        const char *root = argc > 2 ? argv[2] : c.logpath;
        if (!root[0])
            fprintf(stderr, "iolens config: no directory given and no log path configured\n");
        else
            rc = mk_log_dirs(root);
    } else if ((rc = iol_config_paths(argv[1])) < 0) {   /* --paths, --libdir, ... */
        fprintf(stderr, "iolens config: unknown option %s\n", argv[1]);
        usage(stderr);
        rc = 2;
    }
    iol_config_free(&c);
    return rc;
}
