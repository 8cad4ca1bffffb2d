/* Opening and closing a log: header, job and name region; the rest of the file is
 * read region by region when asked for, so that a reader's memory does not grow
 * with the size of the log. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    *fd = open(log->path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return iol_log_fail(log, IOLENS_E_IO, "cannot reopen the log file to read it: %s "
                            "(was it moved or deleted after it was opened?)", strerror(errno));
    if (fstat(*fd, &st) != 0 || (uint64_t)st.st_dev != log->dev || (uint64_t)st.st_ino != log->ino) {
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

/* Open the file and read its first bytes (the header); regions are read later,
 * each through a descriptor opened for it, so an open log holds no descriptor
 * (`iolens merge` holds thousands of logs) and no copy of the file.  Every region
 * is validated as it is read; a file replaced under the reader is an error.
 * Messages leave the path out: every caller names it once. */
/* A log that is not a regular file (a pipe, /dev/stdin, `<(xz -dc log.xz)`) can be
 * read only once, from the start: read it whole, and serve it as open_mem does.
 * Bounded by what the system lets us allocate; such logs are small in practice. */
static int open_stream(iolens_log *log, char *errbuf, size_t errlen)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            copy_err(errbuf, errlen, "out of memory reading the log from a pipe");
            return IOLENS_E_NOMEM;
        }
        if (len == cap) {
            uint8_t *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!bigger)
                free(buf);
            buf = bigger;
            cap *= 2;
            continue;
        }
        ssize_t r = read(log->fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "cannot read: %s", strerror(errno));
            free(buf);
            return IOLENS_E_IO;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(log->fd);                     /* everything is in memory now */
    log->fd = -1;
    log->from_file = 0;
    log->stream_copy = buf;
    log->buf = buf;
    log->size = len;
    return IOLENS_OK;
}

static int open_file(iolens_log *log, const char *path, char *errbuf, size_t errlen)
{
    struct stat st;
    log->from_file = 1;
    log->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (log->fd < 0 || fstat(log->fd, &st) != 0) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "cannot open: %s", strerror(errno));
        return IOLENS_E_IO;
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            copy_err(errbuf, errlen, "is a directory, not a log file");
            return IOLENS_E_IO;
        }
        return open_stream(log, errbuf, errlen);
    }
    log->size = st.st_size > 0 ? (size_t)st.st_size : 0;
    log->dev = (uint64_t)st.st_dev;
    log->ino = (uint64_t)st.st_ino;
    log->path = realpath(path, NULL);   /* NULL (e.g. no memory): keep the fd instead */
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
    int rc = open_file(log, path, errbuf, errlen);
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
