/* `iolens config`: the runtime's configuration as this environment sets it.
 *   --log-path        where a log written now would go
 *   --mk-log-dirs [D] create D/<Y>/<M>/<D> for every day of this year and the next
 *                     (D defaults to the configured log path), as darshan-mk-log-dirs
 *   --dump            the effective configuration (DARSHAN_DUMP_CONFIG format);
 *                     also what plain `iolens config` prints
 *   --pre-ld-flags / --post-ld-flags   link line of the static MPI runtime
 *                     (docs/mpi.md): cc ... $(pre) app.o $(post) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens config [--log-path | --mk-log-dirs [DIR] | --dump]\n"
                 "  (no option)       the same as --dump\n"
                 "  --log-path        print the directory (or file) a log written now goes to\n"
                 "  --mk-log-dirs [DIR]  create DIR/<year>/<month>/<day> for this year and the\n"
                 "                    next (DIR defaults to DARSHAN_LOGPATH / config LOGPATH)\n"
                 "  --dump            print the effective runtime configuration\n"
                 "  --pre-ld-flags    flags before the objects for a static MPI runtime link\n"
                 "  --post-ld-flags   flags after them\n"
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

/* The static MPI runtime: the --wrap archive when built (libiolens-mpi-wrap.a),
 * else the interposing one, linked whole: its definitions of the intercepted
 * functions then come first in symbol lookup, as a preloaded library's do. */
static int ld_flags(int pre)
{
#if defined(IOLENS_MPI_WRAP_BUILD_PATH) && defined(IOLENS_MPI_POST_LIBS)
    /* The --wrap runtime (docs/mpi.md): the wrappers are __wrap_<fn>, the real
     * functions __real_<fn>; the --wrap= list is a response file beside it. */
    int built = access(IOLENS_MPI_WRAP_BUILD_PATH, R_OK) == 0;
    const char *lib = built ? IOLENS_MPI_WRAP_BUILD_PATH : IOLENS_MPI_WRAP_INSTALL_PATH;
    const char *opts = built ? IOLENS_MPI_WRAP_OPTS_BUILD_PATH : IOLENS_MPI_WRAP_OPTS_INSTALL_PATH;
    if (pre)
        printf("-Wl,@%s -Wl,--whole-archive %s -Wl,--no-whole-archive\n", opts, lib);
    else
        printf("%s\n", IOLENS_MPI_POST_LIBS);
    return 0;
#elif defined(IOLENS_MPI_STATIC_BUILD_PATH)
    const char *lib = access(IOLENS_MPI_STATIC_BUILD_PATH, R_OK) == 0
                          ? IOLENS_MPI_STATIC_BUILD_PATH : IOLENS_MPI_STATIC_INSTALL_PATH;
    if (pre)
        printf("-Wl,--whole-archive %s -Wl,--no-whole-archive\n", lib);
    else
        printf("%s\n", IOLENS_MPI_POST_LIBS);
    return 0;
#else
    (void)pre;
    fprintf(stderr, "iolens config: this build has no MPI runtime (IOLENS_WITH_MPI=OFF)\n");
    return 2;
#endif
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
        rc = ld_flags(!strcmp(argv[1], "--pre-ld-flags"));
    } else if (!strcmp(argv[1], "--mk-log-dirs")) {
        const char *root = argc > 2 ? argv[2] : c.logpath;
        if (!root[0])
            fprintf(stderr, "iolens config: no directory given and no log path configured\n");
        else
            rc = mk_log_dirs(root);
    } else {
        fprintf(stderr, "iolens config: unknown option %s\n", argv[1]);
        usage(stderr);
    }
    iol_config_free(&c);
    return rc;
}
