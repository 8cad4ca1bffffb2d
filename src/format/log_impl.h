/* Private layout of an open log (iolens_log) shared by the container-layer files
 * (open, header, job, names, region).  Decoders must not depend on it: they use
 * iolens_log_region() and iolens_log_header() only. */
#ifndef IOLENS_FORMAT_LOG_IMPL_H
#define IOLENS_FORMAT_LOG_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* Names are held compactly (a million names must fit in tens of megabytes):
 * the payload in the 3.10+ layout (u64 id, NUL-terminated name, back to back;
 * 3.00 logs are converted to it), the offsets of the distinct ids' entries in
 * first-occurrence order, and an open-addressing table of order indexes + 1
 * (0 = empty) keyed by id.  Offsets are u32 while the payload fits, else u64. */
typedef struct iol_names {
    uint8_t *payload;
    size_t len;
    uint32_t *off32;         /* one of the two, by payload size */
    uint64_t *off64;
    size_t count;
    uint32_t *slot;
    size_t mask;             /* slot count - 1 */
    int state;               /* 0 not loaded (lazy open), 1 loaded, <0 cached error */
} iol_names;

/* Lazily decompressed region: state 0 = not tried, 1 = ok, <0 = cached error. */
typedef struct iol_region_cache {
    int state;
    void *data;
    size_t len;
} iol_region_cache;

struct iolens_log {
    const uint8_t *buf;      /* the whole buffer (open_mem, stream), or the header bytes (file) */
    uint8_t *stream_copy;    /* a pipe's or terminal's whole content, read at open (owned) */
    size_t size;             /* of the buffer or the file */
    int from_file;           /* read region by region from the file (not open_mem) */
    int fd;                  /* held during open; after it only when `path` is NULL */
    char *path;              /* absolute path: each read reopens it (a process may */
    uint64_t dev, ino;       /*   hold thousands of logs open), checked to be the same file */
    uint8_t head[1328];      /* file mode: the first bytes of the file (buf) */
    int swap;                /* log byte order differs from the host */
    iolens_header hdr;
    iolens_job job;
    void *job_strings;       /* one block: exe_mounts, exe, mount strings */
    iol_names names;
    iol_region_cache region[IOL_MAX_MODULES];
    char err[512];
};

/* Steps of iolens_log_open_mem, one file each; each records its error on log. */
int iol_header_parse(iolens_log *log);
int iol_job_parse(iolens_log *log);
int iol_names_parse(iolens_log *log);
/* Lazy opens: check the name region as iol_names_parse would, keeping nothing. */
int iol_names_check(iolens_log *log);
void iol_lognames_free(iolens_log *log);
/* On the first bytes of a log (buf, size): check the version and the magic, and
 * set *end to the end of the last region the header names (0: none, or the
 * header is not all there yet).  Reading a stream stops there, so a pipe that
 * never ends (/dev/zero behind `-`) costs no more than the log it claims to be. */
int iol_header_span(iolens_log *log, uint64_t *end);
void iol_job_release(iolens_log *log);

/* `len` bytes of the file at `off` (already checked to lie inside it): a pointer
 * into the buffer (open_mem, *owned = NULL) or a malloc'ed copy read from the
 * file (*owned = the copy, the caller frees it).  Records its error on log. */
int iol_log_bytes(iolens_log *log, uint64_t off, size_t len, const uint8_t **p, void **owned);
/* Read up to `len` bytes at `off` into dst; *got = bytes read (short at end of file). */
int iol_log_pread(iolens_log *log, uint64_t off, void *dst, size_t len, size_t *got);
/* File mode: a descriptor of the log's file for a run of reads, and its release. */
int iol_log_fd(iolens_log *log, int *fd);
void iol_log_fd_done(iolens_log *log, int fd);
/* iol_log_pread on a descriptor from iol_log_fd. */
int iol_log_pread_fd(iolens_log *log, int fd, uint64_t off, void *dst, size_t len, size_t *got);

#endif
