/* Internal interface of libiolens-log shared by its source files.
 * Not installed; symbols start with iol_. */
#ifndef IOLENS_FORMAT_INTERNAL_H
#define IOLENS_FORMAT_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "iolens/log.h"

/* Record a failure on the handle: formats the detail text (no allocation), and
 * returns `code` so callers can `return iol_log_fail(log, CODE, "...", ...)`. */
int iol_log_fail(iolens_log *log, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Field access in the log's byte order.  `swap` is non-zero for big-endian logs
 * read on this (little-endian) host.  p may be unaligned. */
static inline uint64_t iol_get_u64(const uint8_t *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? __builtin_bswap64(v) : v;
}
static inline int64_t iol_get_i64(const uint8_t *p, int swap)
{
    return (int64_t)iol_get_u64(p, swap);
}
static inline uint32_t iol_get_u32(const uint8_t *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}
static inline double iol_get_f64(const uint8_t *p, int swap)
{
    uint64_t u = iol_get_u64(p, swap);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static inline void iol_put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void iol_put_i64(uint8_t *p, int64_t v) { memcpy(p, &v, 8); }
static inline void iol_put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void iol_put_f64(uint8_t *p, double v) { memcpy(p, &v, 8); }

/* len bytes of fd at off, whole (EINTR retried): IOLENS_OK, IOLENS_E_TRUNCATED
 * when the file ends first, IOLENS_E_IO when pread fails (errno kept).  The
 * live readers' one way of reading a copy (live_read.c). */
int iol_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* ---------------------------------------------------------------- regions */
/* Decompress `len` bytes of `comp_type` (enum iolens_comp): a concatenation of
 * complete streams (log-format 3.2).  A region that ends inside a stream yields the
 * bytes decoded so far (as upstream).  Output beyond `max_out` bytes is an error
 * (IOLENS_E_DECOMPRESS) unless `clip` is non-zero, in which case the output is cut
 * at max_out and decoding stops (job region: upstream reads at most 4096 bytes).
 * On success *out is malloc'ed (never NULL, even for 0 bytes).  On failure a short
 * detail is written to detail (the caller adds which region). */
int iol_inflate(int comp_type, const uint8_t *in, size_t len, size_t max_out, int clip,
                void **out, size_t *outlen, char *detail, size_t detail_len);

/* Largest decompressed payload accepted for a region of `len` compressed bytes:
 * a guard against decompression bombs (ratio cap with a floor, absolute cap). */
size_t iol_region_cap(uint64_t len);

/* Highest record version of module `id` that the decoders understand (section 8.3;
 * DXT modules may be newer than what we write).  0 for unassigned ids. */
uint32_t iol_module_max_version(int id);

/* A module region from an encoded payload whose records of each rank start at
 * cuts[k] (ascending): one stream per piece when the writer is per-process
 * (iolens_writer_set_per_process), else one stream as iolens_writer_put_region. */
int iol_writer_put_region_cuts(iolens_writer *w, int module, uint32_t version,
                               const void *payload, size_t len, const size_t *cuts,
                               size_t ncuts);

/* ---------------------------------------------------------------- extension modules */
/* Modules from IOL_MOD_FIRST_EXTENSION on are located by the job metadata key
 * iolens_ext, not the header's map (extension.c states the format). */
#define IOL_EXT_MAX_LEN ((uint64_t)1 << 30)      /* longest extension region accepted */
/* Remove every iolens_ext line from a NUL-terminated metadata text, in place. */
void iol_ext_strip(char *metadata);
/* The iolens_ext line (with its '\n') for the extension modules h's map holds, offsets
 * counted from names_off; its length (>= cap: it did not fit), 0 if there is none. */
size_t iol_ext_format(const iolens_header *h, uint64_t names_off, char *dst, size_t cap);
/* After the job and header checks: install the regions the key names into log->hdr
 * (validated: bounds, overlaps, length cap) and hide the line from log->job.metadata. */
int iol_ext_parse(iolens_log *log);

/* ---------------------------------------------------------------- streaming */
/* A region decompressed a window at a time (zstream.c).  Errors are recorded on
 * the log ("<what> region [off, len]: ...") and returned by every later call. */
typedef struct iol_zs iol_zs;
#define IOL_ZS_MAX_NEED ((size_t)1 << 20)
int iol_zs_open(iolens_log *log, iolens_region r, const char *what, iol_zs **out);
/* At least `need` (<= IOL_ZS_MAX_NEED) unread payload bytes at *p, or fewer only
 * when the payload ends (*avail < need).  Valid until the next fill or close. */
int iol_zs_fill(iol_zs *z, size_t need, const uint8_t **p, size_t *avail);
void iol_zs_consume(iol_zs *z, size_t n);
uint64_t iol_zs_offset(const iol_zs *z);     /* payload bytes consumed so far */
void iol_zs_close(iol_zs *z);

/* ---------------------------------------------------------------- record layouts */
/* The stored layout of a counter-kind or MDHIM module (decode_records.c). */
struct rec_layout;
int iol_rec_layout_of(iolens_log *log, int module, const struct rec_layout **lay);
size_t iol_rec_size(const struct rec_layout *lay);     /* fixed bytes per record */
size_t iol_rec_aux(const struct rec_layout *lay);      /* trailing bytes (DFS, DAOS) */
uint32_t iol_rec_version(const struct rec_layout *lay);
size_t iol_rec_decode(const struct rec_layout *lay, const uint8_t *q, int swap, uint64_t *id,
                      int64_t *rank, uint64_t *frid, int64_t *ni, double *nf, uint8_t *aux);

/* DXT segments (decode_dxt.c): bytes per segment of a stored version (0 if the
 * version is unknown), and the decoder of one segment. */
size_t iol_dxt_segment_size(int module, uint32_t version);
/* DXT module check (*name = "DXT_POSIX"/"DXT_MPIIO") and stored-version check
 * (*seg = bytes per segment), shared by the whole and the streaming readers. */
int iol_dxt_check_module(iolens_log *log, int module, const char **name);
int iol_dxt_stored_layout(iolens_log *log, int module, const char *name, uint32_t *ver, size_t *seg);
void iol_dxt_seg_decode(const uint8_t *q, int swap, size_t seg_size, int no_offsets,
                        iolens_dxt_seg *out);

#endif
