/* Opening and closing a log: read the file, then header, job and name region. */
#include <errno.h>
#include <fcntl.h>
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
    free(log->names_payload);
    free(log->names_copy);
    free(log->names);
    free(log->name_order);
    free(log->owned);
    free(log);
}

static void copy_err(char *errbuf, size_t errlen, const char *msg)
{
    if (errbuf && errlen) {
        snprintf(errbuf, errlen, "%s", msg);
    }
}

/* Validates everything that open promises; on failure frees log. */
static int finish_open(iolens_log *log, iolens_log **out, char *errbuf, size_t errlen)
{
    int rc;
    if ((rc = iol_header_parse(log)) || (rc = iol_job_parse(log)) || (rc = iol_names_parse(log))) {
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
    log->buf = buf ? buf : (const uint8_t *)"";
    log->size = len;
    return finish_open(log, out, errbuf, errlen);
}

/* Read the whole file: logs are read many times region by region, and a private
 * copy cannot change (or vanish, as an mmap could) under the reader.  Messages
 * leave the path out: every caller names it once. */
static int read_all(const char *path, void **data, size_t *size, char *errbuf, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "cannot open: %s", strerror(e));
        return IOLENS_E_IO;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size : 0, n = 0;
    uint8_t *p = malloc(cap ? cap : 1);
    if (!p) {
        close(fd);
        copy_err(errbuf, errlen, "out of memory reading the log file");
        return IOLENS_E_NOMEM;
    }
    while (n < cap) {
        ssize_t r = read(fd, p + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "cannot read: %s", strerror(e));
            free(p);
            close(fd);
            return IOLENS_E_IO;
        }
        if (r == 0)
            break;                      /* file shrank: validate what we have */
        n += (size_t)r;
    }
    close(fd);
    *data = p;
    *size = n;
    return IOLENS_OK;
}

int iolens_log_open(const char *path, iolens_log **out, char *errbuf, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!path || !out) {
        copy_err(errbuf, errlen, "iolens_log_open: NULL argument");
        return IOLENS_E_INVALID_ARG;
    }
    void *data = NULL;
    size_t size = 0;
    int rc = read_all(path, &data, &size, errbuf, errlen);
    if (rc)
        return rc;
    iolens_log *log = calloc(1, sizeof *log);
    if (!log) {
        free(data);
        copy_err(errbuf, errlen, "out of memory");
        return IOLENS_E_NOMEM;
    }
    log->buf = data;
    log->owned = data;
    log->size = size;
    return finish_open(log, out, errbuf, errlen);
}

const iolens_header *iolens_log_header(const iolens_log *log)
{
    return log ? &log->hdr : NULL;
}

const iolens_job *iolens_log_job(const iolens_log *log)
{
    return log ? &log->job : NULL;
}
