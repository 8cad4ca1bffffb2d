/* Streaming reader of DXT_POSIX and DXT_MPIIO regions (iolens_dxt_iter): record
 * headers and segments straight from a decompression window, so a trace of any
 * length is read in about 1.3 MiB.  Checks are those of iolens_log_dxt(), made
 * when the reader gets there: negative counts at the header, segments that run
 * past the region when the region ends. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

enum { DXT_HDR = 104, DXT_HOST = 64 };

struct iolens_dxt_iter {
    iolens_log *log;
    const char *name;
    iol_zs *z;
    int swap, no_offsets, module;
    uint32_t version;
    size_t seg;              /* bytes per segment */
    size_t index;            /* records started */
    uint64_t left;           /* segments of the current record not read yet */
    int64_t wc, rc;          /* counts of the current record */
    uint64_t read;           /* segments of the current record read */
};

int iolens_dxt_iter_open(iolens_log *log, int module, iolens_dxt_iter **out)
{
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log)
        return IOLENS_E_INVALID_ARG;
    const char *name;
    const iolens_header *h = iolens_log_header(log);
    uint32_t ver;
    size_t seg;
    int rc = iol_dxt_check_module(log, module, &name);
    if (rc == IOLENS_OK && !h->mod[module].len)
        rc = iol_log_fail(log, IOLENS_E_NOT_PRESENT, "%s module has no region in this log",
                          name);
    if (rc == IOLENS_OK)
        rc = iol_dxt_stored_layout(log, module, name, &ver, &seg);
    if (rc != IOLENS_OK)
        return rc;
    iolens_dxt_iter *it = calloc(1, sizeof *it);
    if (!it)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory");
    *it = (iolens_dxt_iter){log, name, NULL, iol_decode_swap(h),
                            module == IOL_MOD_DXT_MPIIO && ver == 1, module, ver, seg,
                            0, 0, 0, 0, 0};
    char what[48];
    snprintf(what, sizeof what, "%s module", name);
    rc = iol_zs_open(log, h->mod[module], what, &it->z);
    if (rc) {
        free(it);
        return rc;
    }
    *out = it;
    return IOLENS_OK;
}

void iolens_dxt_iter_close(iolens_dxt_iter *it)
{
    if (!it)
        return;
    iol_zs_close(it->z);
    free(it);
}

/* The region ended inside the current record: the error iolens_log_dxt gives. */
static int cut_short(iolens_dxt_iter *it, size_t tail_bytes)
{
    return iol_log_fail(it->log, IOLENS_E_BAD_RECORD,
                        "%s record %zu: %" PRId64 " write + %" PRId64
                        " read segments do not fit in the %" PRIu64 " bytes left",
                        it->name, it->index - 1, it->wc, it->rc,
                        it->read * it->seg + tail_bytes);
}

int iolens_dxt_iter_segments(iolens_dxt_iter *it, iolens_dxt_seg *segs, size_t max, size_t *got)
{
    if (!it || !got || (max && !segs))
        return IOLENS_E_INVALID_ARG;
    *got = 0;
    while (*got < max && it->left) {
        const uint8_t *p;
        size_t avail;
        uint64_t want = it->left < max - *got ? it->left : max - *got;
        size_t need = it->seg;
        int rc = iol_zs_fill(it->z, need, &p, &avail);
        if (rc)
            return rc;
        if (avail < need)
            return cut_short(it, avail);
        size_t n = avail / it->seg;
        if (n > want)
            n = (size_t)want;
        for (size_t k = 0; k < n; k++)
            iol_dxt_seg_decode(p + k * it->seg, it->swap, it->seg, it->no_offsets,
                               &segs[*got + k]);
        iol_zs_consume(it->z, n * it->seg);
        *got += n;
        it->left -= n;
        it->read += n;
    }
    return IOLENS_OK;
}

/* Skip the unread segments of the current record. */
static int skip_rest(iolens_dxt_iter *it)
{
    while (it->left) {
        const uint8_t *p;
        size_t avail;
        int rc = iol_zs_fill(it->z, it->seg, &p, &avail);
        if (rc)
            return rc;
        if (avail < it->seg)
            return cut_short(it, avail);
        uint64_t n = avail / it->seg;
        if (n > it->left)
            n = it->left;
        iol_zs_consume(it->z, (size_t)n * it->seg);
        it->left -= n;
        it->read += n;
    }
    return IOLENS_OK;
}

int iolens_dxt_iter_next(iolens_dxt_iter *it, iolens_dxt_rec *rec)
{
    if (!it || !rec)
        return IOLENS_E_INVALID_ARG;
    int rc = skip_rest(it);
    const uint8_t *q;
    size_t avail;
    if (rc || (rc = iol_zs_fill(it->z, DXT_HDR, &q, &avail)))
        return rc;
    if (avail < DXT_HDR)
        return 0;                     /* a trailing partial header is ignored, as upstream */
    memset(rec, 0, sizeof *rec);
    rec->id = iol_get_u64(q, it->swap);
    rec->rank = iol_get_i64(q + 8, it->swap);
    memcpy(rec->hostname, q + 24, DXT_HOST);
    rec->hostname[DXT_HOST] = '\0';
    rec->write_count = iol_get_i64(q + 88, it->swap);
    rec->read_count = iol_get_i64(q + 96, it->swap);
    rec->has_thread_id = it->seg == 40;
    rec->stored_version = it->version;
    iol_zs_consume(it->z, DXT_HDR);
    it->index++;
    it->wc = rec->write_count;
    it->rc = rec->read_count;
    it->read = 0;
    if (it->wc < 0 || it->rc < 0)
        return iol_log_fail(it->log, IOLENS_E_BAD_RECORD,
                            "%s record %zu: negative segment count (write %" PRId64
                            ", read %" PRId64 ")", it->name, it->index - 1, it->wc, it->rc);
    it->left = (uint64_t)it->wc + (uint64_t)it->rc;
    return 1;
}
