/* Decoding of DXT_POSIX and DXT_MPIIO regions (log-format spec 7.10, 8.4).
 *
 * A record is a 104-byte header (base record, shared_record, hostname[64],
 * write_count, read_count) followed by write_count + read_count segments of 32
 * bytes (DXT_POSIX v1, DXT_MPIIO v1/v2) or 40 bytes (DXT_POSIX v2, DXT_MPIIO v3,
 * which add the calling thread's id).  DXT_MPIIO v1 offsets are meaningless and
 * come out as -1.  Thread ids are byte-swapped like every other field (upstream
 * never swaps them). */
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

enum { DXT_HDR = 104, DXT_HOST = 64 };

struct dxt_ctx {
    iolens_log *log;
    const char *name;     /* module name for messages */
    const uint8_t *p;
    size_t len;
    int swap;
    size_t seg;           /* segment size: 32 or 40 */
    int no_offsets;       /* DXT_MPIIO v1 */
};

/* Segment size of a stored version, 0 if the version is unknown. */
size_t iol_dxt_segment_size(int module, uint32_t version)
{
    if (module == IOL_MOD_DXT_POSIX)
        return version == 1 ? 32 : version == 2 ? 40 : 0;
    return version == 1 || version == 2 ? 32 : version == 3 ? 40 : 0;
}

/* Validate the counts of the record at pos against the bytes that follow it.
 * Sets *nseg; returns IOLENS_OK or IOLENS_E_BAD_RECORD naming the record. */
static int record_segments(const struct dxt_ctx *c, size_t pos, size_t index, size_t *nseg)
{
    int64_t wc = iol_get_i64(c->p + pos + 88, c->swap);
    int64_t rc = iol_get_i64(c->p + pos + 96, c->swap);
    uint64_t room = (c->len - pos - DXT_HDR) / c->seg;
    if (wc < 0 || rc < 0)
        return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                            "%s record %zu: negative segment count (write %" PRId64
                            ", read %" PRId64 ")", c->name, index, wc, rc);
    if ((uint64_t)wc > room || (uint64_t)rc > room - (uint64_t)wc)
        return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                            "%s record %zu: %" PRId64 " write + %" PRId64
                            " read segments do not fit in the %zu bytes left",
                            c->name, index, wc, rc, c->len - pos - DXT_HDR);
    *nseg = (size_t)wc + (size_t)rc;
    return IOLENS_OK;
}

/* Pass 1: count records and segments, validating every count. */
static int count_dxt(const struct dxt_ctx *c, size_t *nrec, size_t *nseg)
{
    size_t pos = 0, n = 0, s = 0;
    while (c->len - pos >= DXT_HDR) {
        size_t k = 0;
        int rc = record_segments(c, pos, n, &k);
        if (rc != IOLENS_OK)
            return rc;
        pos += DXT_HDR + k * c->seg;
        s += k;
        n++;
    }
    *nrec = n;
    *nseg = s;
    return IOLENS_OK;
}

static int alloc_dxt(iolens_dxt *d, size_t n, size_t s, int threads)
{
    d->id = iol_alloc_array(n, sizeof *d->id);
    d->rank = iol_alloc_array(n, sizeof *d->rank);
    d->hostname = iol_alloc_array(n, sizeof *d->hostname);
    d->write_count = iol_alloc_array(n, sizeof *d->write_count);
    d->read_count = iol_alloc_array(n, sizeof *d->read_count);
    d->seg_start = iol_alloc_array(n + 1, sizeof *d->seg_start);
    d->offset = iol_alloc_array(s, sizeof *d->offset);
    d->length = iol_alloc_array(s, sizeof *d->length);
    d->start = iol_alloc_array(s, sizeof *d->start);
    d->end = iol_alloc_array(s, sizeof *d->end);
    if (threads)
        d->thread_id = iol_alloc_array(s, sizeof *d->thread_id);
    return d->id && d->rank && d->hostname && d->write_count && d->read_count &&
           d->seg_start && d->offset && d->length && d->start && d->end &&
           (!threads || d->thread_id) ? IOLENS_OK : IOLENS_E_NOMEM;
}

/* The one decoder of a segment, shared with the streaming iterator. */
void iol_dxt_seg_decode(const uint8_t *q, int swap, size_t seg_size, int no_offsets,
                        iolens_dxt_seg *out)
{
    out->offset = no_offsets ? -1 : iol_get_i64(q, swap);
    out->length = iol_get_i64(q + 8, swap);
    out->start = iol_get_f64(q + 16, swap);
    out->end = iol_get_f64(q + 24, swap);
    out->thread_id = seg_size == 40 ? iol_get_u64(q + 32, swap) : 0;
}

static void decode_segment(const struct dxt_ctx *c, const uint8_t *q, iolens_dxt *d, size_t s)
{
    iolens_dxt_seg g;
    iol_dxt_seg_decode(q, c->swap, c->seg, c->no_offsets, &g);
    d->offset[s] = g.offset;
    d->length[s] = g.length;
    d->start[s] = g.start;
    d->end[s] = g.end;
    if (d->thread_id)
        d->thread_id[s] = g.thread_id;
}

/* Pass 2: decode every record (counts already validated). */
static void decode_dxt_all(const struct dxt_ctx *c, iolens_dxt *d, size_t n)
{
    size_t pos = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *q = c->p + pos;
        d->id[i] = iol_get_u64(q, c->swap);
        d->rank[i] = iol_get_i64(q + 8, c->swap);
        memcpy(d->hostname[i], q + 24, DXT_HOST);
        d->hostname[i][DXT_HOST] = '\0';
        d->write_count[i] = iol_get_i64(q + 88, c->swap);
        d->read_count[i] = iol_get_i64(q + 96, c->swap);
        d->seg_start[i] = s;
        size_t k = (size_t)(d->write_count[i] + d->read_count[i]);
        for (size_t j = 0; j < k; j++, s++)
            decode_segment(c, q + DXT_HDR + j * c->seg, d, s);
        pos += DXT_HDR + k * c->seg;
    }
    d->seg_start[n] = s;
    d->count = n;
    d->nseg = s;
}

int iol_dxt_check_module(iolens_log *log, int module, const char **name)
{
    if (module != IOL_MOD_DXT_POSIX && module != IOL_MOD_DXT_MPIIO)
        return iol_log_fail(log, IOLENS_E_INVALID_ARG, "module id %d is not a DXT module",
                            module);
    *name = module == IOL_MOD_DXT_POSIX ? "DXT_POSIX" : "DXT_MPIIO";
    return IOLENS_OK;
}

int iol_dxt_stored_layout(iolens_log *log, int module, const char *name, uint32_t *ver, size_t *seg)
{
    *ver = iolens_log_header(log)->mod_ver[module];
    *seg = iol_dxt_segment_size(module, *ver);
    if (!*seg)
        return iol_log_fail(log, IOLENS_E_BAD_MODULE_VERSION,
                            "%s module: record version %u is not supported", name, *ver);
    return IOLENS_OK;
}

int iolens_log_dxt(iolens_log *log, int module, iolens_dxt **out)
{
    const void *payload;
    const char *name;
    size_t len, n, s, seg;
    uint32_t ver;
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log)
        return IOLENS_E_INVALID_ARG;
    /* the region first: absent modules give IOLENS_E_NOT_PRESENT */
    int rc = iol_dxt_check_module(log, module, &name);
    if (rc == IOLENS_OK)
        rc = iolens_log_region(log, module, &payload, &len);
    if (rc == IOLENS_OK)
        rc = iol_dxt_stored_layout(log, module, name, &ver, &seg);
    if (rc != IOLENS_OK)
        return rc;
    struct dxt_ctx c = {log, name, payload, len, iol_decode_swap(iolens_log_header(log)), seg,
                        module == IOL_MOD_DXT_MPIIO && ver == 1};
    rc = count_dxt(&c, &n, &s);
    if (rc != IOLENS_OK)
        return rc;
    iolens_dxt *d = calloc(1, sizeof *d);
    if (!d || alloc_dxt(d, n, s, seg == 40) != IOLENS_OK) {
        iolens_dxt_free(d);
        return iol_log_fail(log, IOLENS_E_NOMEM, "%s module: out of memory for %zu segments",
                            name, s);
    }
    d->module = module;
    d->stored_version = ver;
    decode_dxt_all(&c, d, n);
    *out = d;
    return IOLENS_OK;
}

void iolens_dxt_free(iolens_dxt *d)
{
    if (!d)
        return;
    free(d->id);
    free(d->rank);
    free(d->hostname);
    free(d->write_count);
    free(d->read_count);
    free(d->seg_start);
    free(d->offset);
    free(d->length);
    free(d->start);
    free(d->end);
    free(d->thread_id);
    free(d);
}
