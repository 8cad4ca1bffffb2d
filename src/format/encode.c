/* Encoders for the header and job region of a 3.41 log (log-format 2.1, 4.1,
 * 4.3, 4.4, 11).  Always little-endian, every field at its explicit offset. */
#include <stdlib.h>
#include "internal.h"

#define IOL_MAGIC 6567223ULL
#define IOL_JOB_REC 1080
#define IOL_JOB_MAX 4096

int iolens_header_encode(const iolens_header *h, uint8_t out[1328])
{
    if (!h || !out)
        return IOLENS_E_INVALID_ARG;
    if (h->comp_type < IOLENS_COMP_ZLIB || h->comp_type > IOLENS_COMP_NONE)
        return IOLENS_E_BAD_COMPRESSION;
    memset(out, 0, 1328);
    memcpy(out, "3.41", 4);
    iol_put_u64(out + 8, IOL_MAGIC);
    out[16] = (uint8_t)h->comp_type;
    iol_put_u64(out + 24, h->partial_flag);
    iol_put_u64(out + 32, h->names.off);
    iol_put_u64(out + 40, h->names.len);
    for (int i = 0; i < IOL_MAX_MODULES; i++) {
        int present = h->mod[i].len > 0;
        iol_put_u64(out + 48 + 16 * i, present ? h->mod[i].off : 0);
        iol_put_u64(out + 56 + 16 * i, h->mod[i].len);
        iol_put_u32(out + 1072 + 4 * i, present ? h->mod_ver[i] : 0);
    }
    return IOLENS_OK;
}

/* Metadata must be `key=value\n` lines ending in '\n' (section 4.3). */
static int put_metadata(uint8_t *dst, const char *md)
{
    size_t n = strnlen(md, 1024);
    if (n == 1024)
        return IOLENS_E_INVALID_ARG;          /* no room for the NUL */
    memcpy(dst, md, n);
    if (n && md[n - 1] != '\n') {
        if (n + 1 >= 1024)
            return IOLENS_E_INVALID_ARG;      /* no room for the final newline */
        dst[n] = '\n';
    }
    return IOLENS_OK;
}

/* Append `s` (n bytes) to the exe/mount string if it fits in `room`. */
static int append(char *dst, size_t *len, size_t room, const char *s, size_t n)
{
    if (*len + n > room)
        return 0;
    memcpy(dst + *len, s, n);
    *len += n;
    return 1;
}

/* exe, then "\n<type>\t<path>" per mount in the given order; mounts that do not fit
 * are left out; an exe that does not fit is cut and ends in "<TRUNCATED>" like the
 * runtime's.  Without structured fields, the raw exe_mounts string is kept. */
static size_t build_exe_mounts(const iolens_job *job, char *dst, size_t room)
{
    size_t len = 0;
    if (!job->exe) {
        const char *raw = job->exe_mounts ? job->exe_mounts : "";
        len = strnlen(raw, room);
        memcpy(dst, raw, len);
        return len;
    }
    size_t elen = strlen(job->exe);
    if (elen > room) {
        static const char mark[] = "<TRUNCATED>";
        memcpy(dst, job->exe, room - (sizeof mark - 1));
        memcpy(dst + room - (sizeof mark - 1), mark, sizeof mark - 1);
        return room;
    }
    append(dst, &len, room, job->exe, elen);
    for (size_t i = 0; i < job->nmounts; i++) {
        const iolens_mount *m = &job->mounts[i];
        if (!m->path || !m->fstype)
            continue;
        size_t tl = strlen(m->fstype), pl = strlen(m->path);
        if (len + 2 + tl + pl > room)
            continue;
        append(dst, &len, room, "\n", 1);
        append(dst, &len, room, m->fstype, tl);
        append(dst, &len, room, "\t", 1);
        append(dst, &len, room, m->path, pl);
    }
    return len;
}

int iolens_job_encode(const iolens_job *job, void **out, size_t *len)
{
    if (!job || !out || !len)
        return IOLENS_E_INVALID_ARG;
    uint8_t *p = calloc(1, IOL_JOB_MAX);
    if (!p)
        return IOLENS_E_NOMEM;
    iol_put_i64(p, job->uid);
    iol_put_i64(p + 8, job->start_sec);
    iol_put_i64(p + 16, job->start_nsec);
    iol_put_i64(p + 24, job->end_sec);
    iol_put_i64(p + 32, job->end_nsec);
    iol_put_i64(p + 40, job->nprocs);
    iol_put_i64(p + 48, job->jobid);
    int rc = put_metadata(p + 56, job->metadata);
    if (rc) {
        free(p);
        return rc;
    }
    /* The string and its NUL must fit in 4096 - 1080 bytes. */
    size_t n = build_exe_mounts(job, (char *)p + IOL_JOB_REC, IOL_JOB_MAX - IOL_JOB_REC - 1);
    *out = p;
    *len = IOL_JOB_REC + n + 1;
    return IOLENS_OK;
}
