/* Opening and closing a log: header, job and name region; the rest of the file is
 * read region by region when asked for, so that a reader's memory does not grow
 * with the size of the log. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "log_impl.h"

void iolens_log_close(iolens_log *log)
{
    if (!log)
        return;
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        free(log->region[i].data);
    iol_job_release(log);
    iol_lognames_free(log);
    if (log->fd >= 0)
        close(log->fd);
    free(log->path);
    free(log->stream_copy);
    free(log);
}

static void copy_err(char *errbuf, size_t errlen, const char *msg)
{
    if (errbuf && errlen) {
        snprintf(errbuf, errlen, "%s", msg);
    }
}

/* Validates everything that open promises; on failure frees log. */
static int finish_open(iolens_log *log, int flags, iolens_log **out, char *errbuf,
                       size_t errlen)
{
    int rc;
    if ((rc = iol_header_parse(log)) || (rc = iol_job_parse(log)) ||
        (rc = iol_ext_parse(log)) ||
        (rc = (flags & IOLENS_OPEN_LAZY_NAMES) ? iol_names_check(log) : iol_names_parse(log))) {
        copy_err(errbuf, errlen, log->err);
        iolens_log_close(log);
        return rc;
    }
    log->err[0] = 0;
    *out = log;
    return IOLENS_OK;
}

int iolens_log_open_mem(const void *buf, size_t len, iolens_log **out, char *errbuf, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!out || (!buf && len)) {
        copy_err(errbuf, errlen, "iolens_log_open_mem: NULL argument");
        return IOLENS_E_INVALID_ARG;
    }
    iolens_log *log = calloc(1, sizeof *log);
    if (!log) {
        copy_err(errbuf, errlen, "out of memory");
        return IOLENS_E_NOMEM;
    }
    log->fd = -1;
    log->buf = buf ? buf : (const uint8_t *)"";
    log->size = len;
    return finish_open(log, 0, out, errbuf, errlen);
}

int iol_log_fd(iolens_log *log, int *fd)
{
    struct stat st;
    if (log->fd >= 0) {
        *fd = log->fd;
        return IOLENS_OK;
    }
    /* non-blocking: a FIFO put in the file's place must not block the reopen
     * (the check below then refuses it; for the file itself the flag is moot) */
    *fd = open(log->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return iol_log_fail(log, IOLENS_E_IO, "cannot reopen the log file to read it: %s "
                            "(was it moved or deleted after it was opened?)", strerror(errno));
    /* the mode too: a freed inode number may come back as the FIFO in its place */
    if (fstat(*fd, &st) != 0 || (uint64_t)st.st_dev != log->dev || (uint64_t)st.st_ino != log->ino ||
        !S_ISREG(st.st_mode)) {
        close(*fd);
        *fd = -1;
        return iol_log_fail(log, IOLENS_E_IO, "the log file was replaced after it was opened");
    }
    return IOLENS_OK;
}

void iol_log_fd_done(iolens_log *log, int fd)
{
    if (fd >= 0 && fd != log->fd)
        close(fd);
}

int iol_log_pread_fd(iolens_log *log, int fd, uint64_t off, void *dst, size_t len, size_t *got)
{
    size_t n = 0;
    *got = 0;
    while (n < len) {
        ssize_t r = pread(fd, (uint8_t *)dst + n, len - n, (off_t)(off + n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return iol_log_fail(log, IOLENS_E_IO, "cannot read %zu bytes at offset %llu: %s",
                                len, (unsigned long long)(off + n), strerror(errno));
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *got = n;
    return IOLENS_OK;
}

int iol_log_pread(iolens_log *log, uint64_t off, void *dst, size_t len, size_t *got)
{
    *got = 0;
    if (!log->from_file) {              /* open_mem: the buffer is the file */
        size_t n = 0;
        if (off < log->size)
            n = log->size - off < len ? log->size - (size_t)off : len;
        memcpy(dst, log->buf + off, n);
        *got = n;
        return IOLENS_OK;
    }
    int fd, rc = iol_log_fd(log, &fd);
    if (rc == IOLENS_OK)
        rc = iol_log_pread_fd(log, fd, off, dst, len, got);
    iol_log_fd_done(log, fd);
    return rc;
}

int iol_log_bytes(iolens_log *log, uint64_t off, size_t len, const uint8_t **p, void **owned)
{
    *owned = NULL;
    if (!log->from_file) {
        *p = log->buf + off;
        return IOLENS_OK;
    }
    uint8_t *copy = malloc(len ? len : 1);
    size_t got;
    if (!copy)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory reading %zu bytes of the log", len);
    int rc = iol_log_pread(log, off, copy, len, &got);
    if (rc == IOLENS_OK && got < len)
        rc = iol_log_fail(log, IOLENS_E_TRUNCATED,
                          "the file ends at offset %llu, inside a region that should end at %llu "
                          "(did it shrink while being read?)",
                          (unsigned long long)(off + got), (unsigned long long)(off + len));
    if (rc) {
        free(copy);
        return rc;
    }
    *p = copy;
    *owned = copy;
    return IOLENS_OK;
}

/* A stream's bytes, read into a buffer that grows as they arrive (so memory
 * follows what was sent, whatever the header claims). */
typedef struct stream_buf {
    uint8_t *buf;
    size_t len, cap;
} stream_buf;

/* Read until `limit` bytes are held or the stream ends; *eof set at its end. */
static int read_upto(int fd, stream_buf *b, uint64_t limit, int *eof, char *errbuf,
                     size_t errlen)
{
    *eof = 0;
    while (b->len < limit) {
        if (b->len == b->cap) {
            uint64_t want = b->cap ? (uint64_t)b->cap * 2 : 1 << 16;
            if (want > limit)
                want = limit;
            uint8_t *bigger = want < SIZE_MAX ? realloc(b->buf, (size_t)want) : NULL;
            if (!bigger) {
                copy_err(errbuf, errlen, "out of memory reading the log from a pipe");
                return IOLENS_E_NOMEM;
            }
            b->buf = bigger;
            b->cap = (size_t)want;
        }
        ssize_t r = read(fd, b->buf + b->len, b->cap - b->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "cannot read: %s", strerror(errno));
            return IOLENS_E_IO;
        }
        if (r == 0) {
            *eof = 1;
            break;
        }
        b->len += (size_t)r;
    }
    return IOLENS_OK;
}

/* The job region of a log that names no other region runs to the end of the
 * file; from a stream, it is read up to this much (a real one is kilobytes). */
#define IOL_STREAM_JOB_MAX ((uint64_t)16 << 20)

/* How far to read a stream whose first bytes are in b: the end of the last region
 * its header names.  Not a log header: refused now, before reading on. */
static int stream_limit(iolens_log *log, const stream_buf *b, uint64_t *limit,
                        char *errbuf, size_t errlen)
{
    uint64_t end;
    log->buf = b->buf;
    log->size = b->len;
    int rc = iol_header_span(log, &end);
    if (rc) {
        copy_err(errbuf, errlen, log->err);
        return rc;
    }
    /* past the last region the header names: our extension modules' regions
     * (extension.c); a stream gives them at most this much more */
    if (end && end <= UINT64_MAX - IOL_STREAM_JOB_MAX)
        end += IOL_STREAM_JOB_MAX;
    *limit = !end ? b->len + IOL_STREAM_JOB_MAX : end > b->len ? end : b->len;
    return IOLENS_OK;
}

/* A stream (a pipe, a terminal: see names_a_stream) can be read only once, from
 * the start: read it into memory, and serve it as open_mem does. */
static int open_stream(iolens_log *log, char *errbuf, size_t errlen)
{
    stream_buf b = {0};
    uint64_t limit = sizeof log->head;
    int eof, rc = read_upto(log->fd, &b, limit, &eof, errbuf, errlen);
    if (!rc && !eof)
        rc = stream_limit(log, &b, &limit, errbuf, errlen);
    if (!rc && !eof)
        rc = read_upto(log->fd, &b, limit, &eof, errbuf, errlen);
    if (rc) {
        free(b.buf);
        log->buf = NULL;
        return rc;
    }
    close(log->fd);                     /* everything needed is in memory now */
    log->fd = -1;
    log->from_file = 0;
    log->stream_copy = b.buf;
    log->buf = b.buf ? b.buf : (const uint8_t *)"";
    log->size = b.len;
    return IOLENS_OK;
}

/* Names that ask for a stream: standard input ("-", /dev/stdin) and the
 * descriptors a shell's process substitution hands over (/dev/fd/N,
 * /proc/self/fd/N).  The name as given, not where it leads: a link planted as
 * `job.darshan -> /dev/stdin` is not a request for a stream. */
static int names_a_stream(const char *path)
{
    static const char *const fd_dirs[] = { "/dev/fd/", "/proc/self/fd/" };
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdin") == 0)
        return 1;
    for (size_t i = 0; i < sizeof fd_dirs / sizeof fd_dirs[0]; i++) {
        size_t n = strlen(fd_dirs[i]);
        if (strncmp(path, fd_dirs[i], n) == 0 && path[n] &&
            strspn(path + n, "0123456789") == strlen(path + n))
            return 1;
    }
    return 0;
}

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* Only a regular file, or a stream its name asks for; a directory is named as
 * one.  Called on lstat/stat before the open (so that no device is ever opened:
 * opening some has effects) and on the descriptor after it (what counts). */
static int refuse_kind(mode_t m, int stream_ok, char *errbuf, size_t errlen)
{
    if (S_ISREG(m) || (stream_ok && !S_ISDIR(m) && !S_ISLNK(m)))
        return IOLENS_OK;
    if (S_ISDIR(m)) {
        copy_err(errbuf, errlen, "is a directory, not a log file");
        return IOLENS_E_IO;
    }
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "is %s, not a regular log file (not read%s)", file_kind(m),
                 S_ISFIFO(m) ? "; to read a log from a pipe, give it as standard input, `-`" : "");
    return IOLENS_E_NOT_REGULAR;
}

static int open_fail(const char *path, int nofollow, char *errbuf, size_t errlen)
{
    struct stat st;
    if (nofollow && errno == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return refuse_kind(st.st_mode, 0, errbuf, errlen);
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "cannot open: %s", strerror(errno));
    return IOLENS_E_IO;
}

/* The descriptor of `path`, checked: O_NONBLOCK so that a FIFO cannot block the
 * open (cleared once it is known to be something we read). */
static int open_checked(iolens_log *log, const char *path, int flags, struct stat *st,
                        char *errbuf, size_t errlen)
{
    int nofollow = flags & IOLENS_OPEN_NOFOLLOW, stream_ok = names_a_stream(path), rc;
    int dash = strcmp(path, "-") == 0;
    if (!dash && (nofollow ? lstat(path, st) : stat(path, st)) == 0 &&
        (rc = refuse_kind(st->st_mode, stream_ok, errbuf, errlen)))
        return rc;
    if (dash)
        log->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);   /* its flags are the caller's */
    else
        log->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (log->fd < 0)
        return open_fail(path, nofollow, errbuf, errlen);
    if (fstat(log->fd, st) != 0) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "cannot open: %s", strerror(errno));
        return IOLENS_E_IO;
    }
    if ((rc = refuse_kind(st->st_mode, stream_ok, errbuf, errlen)))
        return rc;
    int fl = fcntl(log->fd, F_GETFL);
    if (!dash && fl >= 0 && (fl & O_NONBLOCK))
        fcntl(log->fd, F_SETFL, fl & ~O_NONBLOCK);
    return IOLENS_OK;
}

/* Open the file and read its first bytes (the header); regions are read later,
 * each through a descriptor opened for it, so an open log holds no descriptor
 * (`iolens merge` holds thousands of logs) and no copy of the file.  Every region
 * is validated as it is read; a file replaced under the reader is an error.
 * Messages leave the path out: every caller names it once. */
static int open_file(iolens_log *log, const char *path, int flags, char *errbuf,
                     size_t errlen)
{
    struct stat st;
    log->from_file = 1;
    int rc = open_checked(log, path, flags, &st, errbuf, errlen);
    if (rc)
        return rc;
    if (!S_ISREG(st.st_mode))
        return open_stream(log, errbuf, errlen);
    log->size = st.st_size > 0 ? (size_t)st.st_size : 0;
    log->dev = (uint64_t)st.st_dev;
    log->ino = (uint64_t)st.st_ino;
    /* NULL (a stream's name, or no memory): keep the fd instead */
    log->path = names_a_stream(path) ? NULL : realpath(path, NULL);
    size_t want = log->size < sizeof log->head ? log->size : sizeof log->head, got;
    if (iol_log_pread(log, 0, log->head, want, &got) != IOLENS_OK) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "%s", log->err);
        return IOLENS_E_IO;
    }
    if (got < want)
        log->size = got;                /* file shrank: validate what we have */
    log->buf = log->head;
    return IOLENS_OK;
}

int iolens_log_open_ex(const char *path, int flags, iolens_log **out, char *errbuf,
                       size_t errlen)
{
    if (out)
        *out = NULL;
    if (!path || !out) {
        copy_err(errbuf, errlen, "iolens_log_open: NULL argument");
        return IOLENS_E_INVALID_ARG;
    }
    iolens_log *log = calloc(1, sizeof *log);
    if (!log) {
        copy_err(errbuf, errlen, "out of memory");
        return IOLENS_E_NOMEM;
    }
    int rc = open_file(log, path, flags, errbuf, errlen);
    if (rc) {
        iolens_log_close(log);
        return rc;
    }
    rc = finish_open(log, flags, out, errbuf, errlen);
    if (rc == IOLENS_OK && log->from_file && log->path) {
        close(log->fd);                 /* reads reopen the file by its path */
        log->fd = -1;
    }
    return rc;
}

int iolens_log_open(const char *path, iolens_log **out, char *errbuf, size_t errlen)
{
    return iolens_log_open_ex(path, 0, out, errbuf, errlen);
}

const iolens_header *iolens_log_header(const iolens_log *log)
{
    return log ? &log->hdr : NULL;
}

const iolens_job *iolens_log_job(const iolens_log *log)
{
    return log ? &log->job : NULL;
}
