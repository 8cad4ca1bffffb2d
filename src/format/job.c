/* Job region (log-format 4): job record of both versions, metadata, and the
 * exe + mount-table string with upstream's reader rules (4.4). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "log_impl.h"

#define IOL_JOB_MAX 4096        /* upstream reads at most this many bytes */
#define IOL_JOB_MIN 1080        /* and needs strictly more than this */

double iolens_job_runtime(const iolens_job *job, int log_minor)
{
    if (log_minor >= 41)
        return ((double)job->end_sec + (double)job->end_nsec / 1e9) -
               ((double)job->start_sec + (double)job->start_nsec / 1e9);
    return (double)(job->end_sec - job->start_sec + 1);
}

static void decode_record(iolens_log *log, const uint8_t *p, size_t *rec_size)
{
    iolens_job *j = &log->job;
    int s = log->swap;
    j->uid = iol_get_i64(p, s);
    if (log->hdr.minor >= 41) {
        j->start_sec = iol_get_i64(p + 8, s);
        j->start_nsec = iol_get_i64(p + 16, s);
        j->end_sec = iol_get_i64(p + 24, s);
        j->end_nsec = iol_get_i64(p + 32, s);
        j->nprocs = iol_get_i64(p + 40, s);
        j->jobid = iol_get_i64(p + 48, s);
        *rec_size = 1080;
    } else {
        j->start_sec = iol_get_i64(p + 8, s);
        j->end_sec = iol_get_i64(p + 16, s);
        j->start_nsec = j->end_nsec = 0;
        j->nprocs = iol_get_i64(p + 24, s);
        j->jobid = iol_get_i64(p + 32, s);
        *rec_size = 1064;
    }
    memcpy(j->metadata, p + *rec_size - 1024, 1024);
    j->metadata[1024] = 0;
}

/* Count mount entries: one per '\n' in the string. */
static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Copy the next whitespace-delimited token of [*p, end) to *dst; 0 if none. */
static int take_token(const char **p, const char *end, char **dst)
{
    const char *s = *p;
    while (s < end && isspace((unsigned char)*s))
        s++;
    const char *t = s;
    while (t < end && !isspace((unsigned char)*t))
        t++;
    if (t == s)
        return 0;
    memcpy(*dst, s, (size_t)(t - s));
    (*dst)[t - s] = 0;
    *dst += (t - s) + 1;
    *p = t;
    return 1;
}

/* Stable sort by descending mount-point length (upstream's order).  The string
 * holds at most ~1500 entries, so insertion sort is enough. */
static void sort_mounts(iolens_mount *m, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        iolens_mount x = m[i];
        size_t lx = strlen(x.path), k = i;
        while (k > 0 && strlen(m[k - 1].path) < lx) {
            m[k] = m[k - 1];
            k--;
        }
        m[k] = x;
    }
}

/* Layout of job_strings: exe_mounts copy, exe, then path/fstype strings. */
static int parse_exe_mounts(iolens_log *log, const char *s)
{
    iolens_job *j = &log->job;
    size_t len = strlen(s), nm = count_lines(s);
    char *blk = malloc(3 * (len + 1) + 2);
    iolens_mount *m = calloc(nm ? nm : 1, sizeof *m);
    if (!blk || !m) {
        free(blk);
        free(m);
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory decoding the mount table");
    }
    log->job_strings = blk;
    j->mounts = m;
    j->exe_mounts = blk;
    memcpy(blk, s, len + 1);
    char *w = blk + len + 1;
    const char *nl = strchr(s, '\n');
    j->exe = w;                          /* upstream: empty exe when no '\n' */
    size_t elen = nl ? (size_t)(nl - s) : 0;
    memcpy(w, s, elen);
    w[elen] = 0;
    w += elen + 1;
    for (const char *line = nl; line; line = strchr(line + 1, '\n')) {
        const char *p = line + 1, *end = strchr(p, '\n');
        if (!end)
            end = s + len;
        m[j->nmounts].fstype = w;
        if (!take_token(&p, end, &w))
            return iol_log_fail(log, IOLENS_E_BAD_JOB,
                                "poorly formatted mount table: entry %zu lacks a type and a mount point",
                                j->nmounts + 1);
        m[j->nmounts].path = w;
        if (!take_token(&p, end, &w))
            return iol_log_fail(log, IOLENS_E_BAD_JOB,
                                "poorly formatted mount table: entry %zu lacks a type and a mount point",
                                j->nmounts + 1);
        j->nmounts++;
    }
    sort_mounts(m, j->nmounts);
    return IOLENS_OK;
}

int iol_job_parse(iolens_log *log)
{
    iolens_region r = log->hdr.job;
    void *p = NULL;
    size_t n = 0;
    char detail[160];
    const uint8_t *in;
    void *copy;
    int rc = iol_log_bytes(log, r.off, (size_t)r.len, &in, &copy);
    if (rc)
        return rc;
    rc = iol_inflate(log->hdr.comp_type, in, (size_t)r.len, IOL_JOB_MAX, 1, &p, &n, detail,
                     sizeof detail);
    free(copy);
    if (rc)
        return iol_log_fail(log, rc, "job region [off %llu, len %llu]: %s",
                            (unsigned long long)r.off, (unsigned long long)r.len, detail);
    if (n <= IOL_JOB_MIN) {
        free(p);
        return iol_log_fail(log, IOLENS_E_BAD_JOB,
                            "job region decompresses to %zu bytes; a job record needs more than %d",
                            n, IOL_JOB_MIN);
    }
    size_t rec = 0;
    decode_record(log, p, &rec);
    char str[IOL_JOB_MAX + 1];
    memcpy(str, (uint8_t *)p + rec, n - rec);
    str[n - rec] = 0;                   /* the string ends at its NUL or the region end */
    free(p);
    return parse_exe_mounts(log, str);
}

void iol_job_release(iolens_log *log)
{
    free(log->job_strings);
    free(log->job.mounts);
    log->job_strings = NULL;
    log->job.mounts = NULL;
}
