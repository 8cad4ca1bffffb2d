/* Private layout of an open log (iolens_log) shared by the container-layer files
 * (open, header, job, names, region).  Decoders must not depend on it: they use
 * iolens_log_region() and iolens_log_header() only. */
#ifndef IOLENS_FORMAT_LOG_IMPL_H
#define IOLENS_FORMAT_LOG_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* One deduplicated name: points into the name payload (or the 3.00 copy). */
typedef struct iol_name {
    uint64_t id;
    const char *name;
    size_t first;            /* position of the id's first record: iteration order */
} iol_name;

/* Lazily decompressed region: state 0 = not tried, 1 = ok, <0 = cached error. */
typedef struct iol_region_cache {
    int state;
    void *data;
    size_t len;
} iol_region_cache;

struct iolens_log {
    const uint8_t *buf;      /* the whole file */
    size_t size;
    void *owned;             /* buf when we read the file ourselves */
    int swap;                /* log byte order differs from the host */
    iolens_header hdr;
    iolens_job job;
    void *job_strings;       /* one block: exe_mounts, exe, mount strings */
    void *names_payload;     /* decompressed name region */
    char *names_copy;        /* NUL-terminated copies of 3.00 names */
    iol_name *names;         /* sorted by id */
    size_t nnames;
    size_t *name_order;      /* indexes into names in first-occurrence order */
    iol_region_cache region[IOL_MAX_MODULES];
    char err[512];
};

/* Steps of iolens_log_open_mem, one file each; each records its error on log. */
int iol_header_parse(iolens_log *log);
int iol_job_parse(iolens_log *log);
int iol_names_parse(iolens_log *log);
void iol_job_release(iolens_log *log);

#endif
