/* Writing our extension modules' regions outside the header's map (the format is
 * stated in extension.c): the job region is rewritten with the iolens_ext line and
 * the regions after it move by the change in its compressed size. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

#define JOB_METADATA_AT 56      /* the 1024-byte metadata field of a 3.41 job record */

static int fail(char *err, size_t errlen, int code, const char *what, uint64_t at)
{
    if (err && errlen)
        snprintf(err, errlen, "placing the extension modules: %s at offset %llu%s%s", what,
                 (unsigned long long)at, errno ? ": " : "", errno ? strerror(errno) : "");
    return code;
}

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t at)
{
    while (n) {
        ssize_t k = pwrite(fd, p, n, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        at += (uint64_t)k;
    }
    return 0;
}

/* Move the file's bytes [from, end) by delta (either way), a chunk at a time. */
static int shift_tail(iolens_ext_out *o, uint64_t from, int64_t delta, char *err, size_t errlen)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return fail(err, errlen, IOLENS_E_NOMEM, "out of memory moving regions", from);
    int rc = IOLENS_OK;
    for (uint64_t done = 0; !rc && done < o->end - from;) {
        size_t n = o->end - from - done < CHUNK ? (size_t)(o->end - from - done) : CHUNK;
        /* growing: copy from the end backwards; shrinking: from the start */
        uint64_t at = delta > 0 ? o->end - done - n : from + done;
        errno = 0;
        if (pread(o->fd, buf, n, (off_t)at) != (ssize_t)n ||
            pwrite_all(o->fd, buf, n, at + (uint64_t)delta))
            rc = fail(err, errlen, IOLENS_E_IO, "cannot move the region bytes", at);
        done += n;
    }
    free(buf);
    return rc;
}

/* Rewrite the job region with `line` appended to its metadata. */
static int rewrite_job(iolens_ext_out *o, const char *line, char *err, size_t errlen)
{
    iolens_header *h = o->hdr;
    char *md = (char *)o->job + JOB_METADATA_AT;
    memcpy(md + strlen(md), line, strlen(line));
    void *z = NULL;
    size_t zlen = o->job_len;
    int rc = o->comp == IOLENS_COMP_NONE ? IOLENS_OK
             : iolens_compress_at(o->comp, o->level, o->job, o->job_len, &z, &zlen);
    if (rc)
        return fail(err, errlen, rc, "cannot compress the job region", h->job.off);
    int64_t delta = (int64_t)zlen - (int64_t)h->job.len;
    rc = shift_tail(o, h->job.off + h->job.len, delta, err, errlen);
    errno = 0;
    if (!rc && pwrite_all(o->fd, z ? z : o->job, zlen, h->job.off))
        rc = fail(err, errlen, IOLENS_E_IO, "cannot write the job region", h->job.off);
    free(z);
    if (rc)
        return rc;
    h->names.off += (uint64_t)delta;
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (h->mod[i].len)
            h->mod[i].off += (uint64_t)delta;
    o->end += (uint64_t)delta;
    h->job.len = zlen;
    errno = 0;
    if (delta < 0 && ftruncate(o->fd, (off_t)o->end) != 0)
        return fail(err, errlen, IOLENS_E_IO, "cannot truncate the log", o->end);
    return IOLENS_OK;
}

int iolens_log_place_extensions(iolens_ext_out *o, char *err, size_t errlen)
{
    if (!o || !o->hdr || !o->job || o->job_len < JOB_METADATA_AT + 1024)
        return IOLENS_E_INVALID_ARG;
    iolens_header *h = o->hdr;
    char line[1024];
    size_t n = iol_ext_format(h, h->names.off, line, sizeof line);
    if (!n)
        return IOLENS_OK;
    size_t have = strnlen((char *)o->job + JOB_METADATA_AT, 1024);
    size_t room = have < 1023 ? 1023 - have : 0;   /* the field keeps its NUL */
    uint64_t first = o->end;
    for (int id = IOL_MOD_FIRST_EXTENSION; id < IOL_MAX_MODULES; id++) {
        if (h->mod[id].len && h->mod[id].off < first)
            first = h->mod[id].off;
        h->mod[id].off = h->mod[id].len = 0;
        h->mod_ver[id] = 0;
    }
    h->partial_flag &= (1ULL << IOL_MOD_FIRST_EXTENSION) - 1;
    if (n >= sizeof line || n > room) {
        static const char note[] = "iolens_ext=omitted\n";
        errno = 0;
        if (ftruncate(o->fd, (off_t)first) != 0)
            return fail(err, errlen, IOLENS_E_IO, "cannot truncate the log", first);
        o->end = first;
        snprintf(line, sizeof line, "%s", sizeof note - 1 <= room ? note : "");
    }
    return line[0] ? rewrite_job(o, line, err, errlen) : IOLENS_OK;
}
