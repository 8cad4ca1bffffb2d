/* A verb's output file, written beside its destination and renamed into place
 * only when complete (contract: safe_output.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "safe_output.h"

/* ---------------------------------------------------------------- signals */
/* The output being written, for the handler that removes it when the verb is
 * interrupted.  Verbs write one output at a time. */
static iol_output *volatile active;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved[sizeof cleanup_signals / sizeof cleanup_signals[0]];

/* Async-signal-safe: unlink, rmdir, sigaction and raise only. */
static void on_signal(int sig)
{
    iol_output *o = active;
    if (o && o->dir[0]) {
        unlink(o->path);
        rmdir(o->dir);
    }
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void watch(iol_output *o)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    active = o;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaction(cleanup_signals[i], &sa, &saved[i]);
}

static void unwatch(void)
{
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaction(cleanup_signals[i], &saved[i], NULL);
    active = NULL;
}

/* ---------------------------------------------------------------- checks */
__attribute__((format(printf, 4, 5)))
static int say(char *err, size_t errlen, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return status;
}

/* The input that OUT (existing, stat'ed as st) is, or NULL. */
static const char *same_file(const struct stat *st, const char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct stat in;
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st->st_dev &&
            in.st_ino == st->st_ino)
            return inputs[i];
    }
    return NULL;
}

static int refuse_input(const char *out, const char *input, char *err, size_t errlen)
{
    if (!strcmp(out, input))
        return say(err, errlen, IOL_EXIT_USAGE,
                   "%s: the output is the input; refusing to overwrite it", out);
    return say(err, errlen, IOL_EXIT_USAGE,
               "%s: the output is the same file as the input %s; refusing to overwrite it",
               out, input);
}

/* The directory part of PATH ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Why the private directory could not be made in DIR, as "OUT: ..." */
static int no_dir(const char *out, const char *dir, char *err, size_t errlen)
{
    int e = errno;
    if (e == ENOENT)
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: the directory %s does not exist", out,
                   dir);
    if (e == ENOTDIR)
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s is not a directory", out, dir);
    return say(err, errlen, IOL_EXIT_FAILURE, "%s: cannot write in %s: %s", out, dir,
               strerror(e));
}

/* OUT exists: decide where the file goes.  0 with o->dest set, or a status. */
static int existing(iol_output *o, const char *out, const struct stat *st, char *err,
                    size_t errlen)
{
    if (S_ISDIR(st->st_mode))
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: is a directory", out);
    if (o->flags & IOL_OUT_NO_REPLACE)
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: exists; not replaced", out);
    if (!S_ISREG(st->st_mode)) {      /* a FIFO or a device: written directly */
        snprintf(o->path, sizeof o->path, "%s", out);
        return 0;
    }
    struct stat lst;
    if (lstat(out, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (!realpath(out, o->dest))
            return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s", out, strerror(errno));
    } else if ((size_t)snprintf(o->dest, sizeof o->dest, "%s", out) >= sizeof o->dest) {
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s", out, strerror(ENAMETOOLONG));
    }
    return 0;
}

int iol_output_begin(iol_output *o, const char *out, const char *const *inputs, size_t n,
                     int flags, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->flags = flags;
    struct stat st;
    if (stat(out, &st) == 0) {
        const char *input = same_file(&st, inputs, n);
        if (input)
            return refuse_input(out, input, err, errlen);
        int rc = existing(o, out, &st, err, errlen);
        if (rc || o->path[0])
            return rc;
    } else if (errno != ENOENT) {
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s", out, strerror(errno));
    } else if (lstat(out, &st) == 0) {
        return say(err, errlen, IOL_EXIT_FAILURE,
                   "%s: is a symbolic link to a file that does not exist", out);
    } else if ((size_t)snprintf(o->dest, sizeof o->dest, "%s", out) >= sizeof o->dest) {
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s", out, strerror(ENAMETOOLONG));
    }
    char parent[PATH_MAX];
    dir_of(o->dest, parent, sizeof parent);
    const char *base = strrchr(o->dest, '/') ? strrchr(o->dest, '/') + 1 : o->dest;
    if (strlen(parent) + strlen(base) + 24 >= sizeof o->path)
        return say(err, errlen, IOL_EXIT_FAILURE, "%s: %s", out, strerror(ENAMETOOLONG));
    snprintf(o->dir, sizeof o->dir, "%s/.iolens-partial-XXXXXX", parent);
    if (!mkdtemp(o->dir)) {
        o->dir[0] = '\0';
        return no_dir(out, parent, err, errlen);
    }
    memcpy(o->path, o->dir, strlen(o->dir));
    snprintf(o->path + strlen(o->dir), sizeof o->path - strlen(o->dir), "/%s", base);
    watch(o);
    return 0;
}

int iol_output_commit(iol_output *o, char *err, size_t errlen)
{
    if (!o->dir[0])
        return 0;                     /* written directly */
    mode_t mode = (o->flags & IOL_OUT_LOG) ? S_IRUSR : S_IRUSR | S_IWUSR;
    int rc = chmod(o->path, mode);
    if (rc == 0 && (o->flags & IOL_OUT_NO_REPLACE)) {
        rc = link(o->path, o->dest);  /* never replaces a file that appeared meanwhile */
        if (rc != 0 && errno == EEXIST) {
            snprintf(err, errlen, "%s: exists; not replaced", o->dest);
            iol_output_discard(o);
            return IOL_EXIT_FAILURE;
        }
    } else if (rc == 0) {
        rc = rename(o->path, o->dest);
    }
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", o->dest, strerror(errno));
    iol_output_discard(o);
    return rc ? IOL_EXIT_FAILURE : 0;
}

void iol_output_discard(iol_output *o)
{
    if (o->dir[0]) {
        unlink(o->path);
        rmdir(o->dir);
        o->dir[0] = '\0';
    }
    if (active == o)
        unwatch();
}
