/* The 3.41 log writer (log-format 11): header space reserved, job region, name
 * region, module regions in ascending id (one stream each), header written last,
 * fsync.  Any failure makes the writer sticky-failed; close then removes the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

#define IOL_HDR 1328

struct iolens_writer {
    int fd;
    char *path;
    int comp;
    uint64_t pos;             /* end of what has been written */
    int status;               /* first error, sticky */
    int job_set, names_done, last_module;
    int per_process;          /* module regions: one stream per run of one rank's records */
    int level;                /* zlib level (iolens_compress_at); 0 = the default */
    uint8_t *job;             /* the job record as encoded (its metadata gets our key at close) */
    size_t job_len;
    uint8_t *names;
    size_t names_len, names_cap;
    iolens_header hdr;
    char err[512];
};

static int wfail(iolens_writer *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int wfail(iolens_writer *w, int code, const char *fmt, ...)
{
    if (w->status)
        return w->status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    w->status = code;
    return code;
}

static int write_at(iolens_writer *w, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(w->fd, p, len > (1u << 30) ? (1u << 30) : len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return wfail(w, IOLENS_E_IO, "cannot write %s at offset %llu: %s", w->path,
                         (unsigned long long)off, n < 0 ? strerror(errno) : "short write");
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return IOLENS_OK;
}

/* Compress one payload as a single stream and append it; returns its region. */
static int append_region(iolens_writer *w, const void *payload, size_t len, iolens_region *r,
                         const char *what)
{
    void *z = NULL;
    size_t zlen = len;
    int rc = IOLENS_OK;
    if (w->comp != IOLENS_COMP_NONE &&
        (rc = iolens_compress_at(w->comp, w->level, payload, len, &z, &zlen)))
        return wfail(w, rc, "cannot compress the %s region (%zu bytes): %s", what, len,
                     iolens_strerror(rc));
    rc = write_at(w, z ? z : payload, zlen, w->pos);   /* NONE: the payload as is */
    free(z);
    if (rc)
        return rc;
    r->off = w->pos;
    r->len = zlen;
    w->pos += zlen;
    return IOLENS_OK;
}

/* Compress each piece [cuts[k], cuts[k+1]) as its own stream and append them as
 * one region: the layout of a region that an MPI job's ranks wrote (each rank
 * compresses its own records; log-format 3.2). */
static int append_streams(iolens_writer *w, const uint8_t *payload, size_t len,
                          const size_t *cuts, size_t ncuts, iolens_region *r, const char *what)
{
    uint64_t start = w->pos;
    for (size_t k = 0; k < ncuts; k++) {
        size_t a = cuts[k], b = k + 1 < ncuts ? cuts[k + 1] : len;
        iolens_region piece;
        if (b < a || b > len)
            return wfail(w, IOLENS_E_INVALID_ARG, "bad stream boundary in the %s region", what);
        int rc = append_region(w, payload + a, b - a, &piece, what);
        if (rc)
            return rc;
    }
    r->off = start;
    r->len = w->pos - start;
    return IOLENS_OK;
}

void iolens_writer_set_level(iolens_writer *w, int level)
{
    if (w && level >= 0 && level <= 9)
        w->level = level;
}

void iolens_writer_set_per_process(iolens_writer *w, int on)
{
    if (w)
        w->per_process = on != 0;
}

int iol_writer_put_region_cuts(iolens_writer *w, int module, uint32_t version,
                               const void *payload, size_t len, const size_t *cuts,
                               size_t ncuts)
{
    if (!w || !w->per_process || ncuts < 2 || w->comp == IOLENS_COMP_NONE)
        return iolens_writer_put_region(w, module, version, payload, len);
    if (w->status)
        return w->status;
    /* Validate order and flush names exactly as a plain region would: an empty
     * put_region call does that and leaves the module absent. */
    if (module < 0 || module >= IOL_MAX_MODULES || !payload || version == 0)
        return wfail(w, IOLENS_E_INVALID_ARG, "invalid module region (module %d)", module);
    int rc = iolens_writer_put_region(w, module, version, NULL, 0);
    if (rc)
        return rc;
    char what[32];
    snprintf(what, sizeof what, "module %d", module);
    rc = append_streams(w, payload, len, cuts, ncuts, &w->hdr.mod[module], what);
    w->hdr.mod_ver[module] = version;
    return rc;
}

int iolens_writer_open(const char *path, int comp_type, iolens_writer **out)
{
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!path || comp_type < IOLENS_COMP_ZLIB || comp_type > IOLENS_COMP_NONE)
        return path ? IOLENS_E_BAD_COMPRESSION : IOLENS_E_INVALID_ARG;
#ifndef IOLENS_HAVE_BZIP2
    if (comp_type == IOLENS_COMP_BZIP2)
        return IOLENS_E_UNSUPPORTED;
#endif
    iolens_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return IOLENS_E_NOMEM;
    }
    w->comp = comp_type;
    w->last_module = -1;
    w->hdr.comp_type = comp_type;
    w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        free(w->path);
        free(w);
        return IOLENS_E_IO;
    }
    static const uint8_t zeros[IOL_HDR];
    write_at(w, zeros, IOL_HDR, 0);       /* reserve the header; filled at close */
    w->pos = IOL_HDR;
    *out = w;
    return w->status;
}

int iolens_writer_set_job(iolens_writer *w, const iolens_job *job)
{
    if (!w || !job)
        return IOLENS_E_INVALID_ARG;
    if (w->status)
        return w->status;
    if (w->job_set)
        return wfail(w, IOLENS_E_INVALID_ARG, "job record set twice");
    void *buf = NULL;
    size_t len = 0;
    iolens_job own = *job;
    iol_ext_strip(own.metadata);        /* the writer alone says where extensions are */
    int rc = iolens_job_encode(&own, &buf, &len);
    if (rc)
        return wfail(w, rc, "cannot encode the job record: %s (metadata too long?)",
                     iolens_strerror(rc));
    rc = append_region(w, buf, len, &w->hdr.job, "job");
    w->job = buf;
    w->job_len = len;
    w->job_set = 1;
    return rc;
}

int iolens_writer_add_name(iolens_writer *w, uint64_t id, const char *name)
{
    if (!w || !name)
        return IOLENS_E_INVALID_ARG;
    if (w->status)
        return w->status;
    if (w->names_done)
        return wfail(w, IOLENS_E_INVALID_ARG,
                     "name added after the first module region was written");
    size_t n = strlen(name), need = w->names_len + 8 + n + 1;
    if (need > w->names_cap) {
        size_t cap = w->names_cap ? w->names_cap : 4096;
        while (cap < need)
            cap *= 2;
        uint8_t *p = realloc(w->names, cap);
        if (!p)
            return wfail(w, IOLENS_E_NOMEM, "out of memory buffering names");
        w->names = p;
        w->names_cap = cap;
    }
    iol_put_u64(w->names + w->names_len, id);
    memcpy(w->names + w->names_len + 8, name, n + 1);
    w->names_len = need;
    return IOLENS_OK;
}

/* The name region follows the job region; name_map.off is set even when there
 * are no names, because readers derive the job region's end from it. */
static int flush_names(iolens_writer *w)
{
    if (w->names_done)
        return w->status;
    if (!w->job_set)
        return wfail(w, IOLENS_E_INVALID_ARG, "the job record must be set before names and regions");
    w->names_done = 1;
    w->hdr.names.off = w->pos;
    w->hdr.names.len = 0;
    int rc = w->names_len ? append_region(w, w->names, w->names_len, &w->hdr.names, "name record")
                          : IOLENS_OK;
    free(w->names);
    w->names = NULL;
    return rc;
}

int iolens_writer_put_region(iolens_writer *w, int module, uint32_t version,
                             const void *payload, size_t len)
{
    if (!w)
        return IOLENS_E_INVALID_ARG;
    if (w->status)
        return w->status;
    if (module < 0 || module >= IOL_MAX_MODULES || (!payload && len) || version == 0)
        return wfail(w, IOLENS_E_INVALID_ARG, "invalid module region (module %d, version %u)",
                     module, version);
    if (module <= w->last_module)
        return wfail(w, IOLENS_E_INVALID_ARG,
                     "module %d written after module %d: regions must ascend by id", module,
                     w->last_module);
    int rc = flush_names(w);
    if (rc)
        return rc;
    w->last_module = module;
    if (!len)
        return IOLENS_OK;                /* an empty module is simply absent */
    char what[32];
    snprintf(what, sizeof what, "module %d", module);
    rc = append_region(w, payload, len, &w->hdr.mod[module], what);
    w->hdr.mod_ver[module] = version;
    return rc;
}

void iolens_writer_set_partial(iolens_writer *w, uint64_t partial_flag)
{
    if (w)
        w->hdr.partial_flag = partial_flag;
}

const char *iolens_writer_error(const iolens_writer *w)
{
    return w ? w->err : "no writer handle";
}

static void destroy(iolens_writer *w, int remove_file)
{
    if (w->fd >= 0)
        close(w->fd);
    if (remove_file)
        unlink(w->path);
    free(w->names);
    free(w->job);
    free(w->path);
    free(w);
}

/* Our extension modules leave the header's map (extension_write.c). */
static int place_extensions(iolens_writer *w)
{
    iolens_ext_out o = { .fd = w->fd, .comp = w->comp, .level = w->level, .hdr = &w->hdr,
                         .job = w->job, .job_len = w->job_len, .end = w->pos };
    int rc = iolens_log_place_extensions(&o, w->err, sizeof w->err);
    w->pos = o.end;
    if (rc)
        w->status = rc;
    return rc;
}

/* Header last, then fsync: a reader never sees a header naming unwritten regions. */
static int close_impl(iolens_writer *w, char *errbuf, size_t errlen)
{
    if (!w)
        return IOLENS_E_INVALID_ARG;
    int rc = flush_names(w);
    if (!rc)
        rc = place_extensions(w);
    uint8_t hdr[IOL_HDR];
    if (!rc && (rc = iolens_header_encode(&w->hdr, hdr)))
        wfail(w, rc, "cannot encode the header");
    if (!rc)
        rc = write_at(w, hdr, IOL_HDR, 0);
    if (!rc && fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = wfail(w, IOLENS_E_IO, "fsync of %s failed: %s", w->path, strerror(errno));
    if (!rc) {
        int c = close(w->fd);
        w->fd = -1;
        if (c != 0)
            wfail(w, IOLENS_E_IO, "close of %s failed: %s", w->path, strerror(errno));
    }
    rc = w->status;
    if (errbuf && errlen)
        snprintf(errbuf, errlen, "%s", rc ? w->err : "");
    destroy(w, rc != IOLENS_OK);
    return rc;
}

int iolens_writer_close(iolens_writer *w)
{
    return close_impl(w, NULL, 0);
}

int iolens_writer_close_err(iolens_writer *w, char *errbuf, size_t errlen)
{
    return close_impl(w, errbuf, errlen);
}

void iolens_writer_abort(iolens_writer *w)
{
    if (w)
        destroy(w, 1);
}
