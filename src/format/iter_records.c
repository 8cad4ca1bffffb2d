/* Streaming reader of counter-kind and MDHIM regions (iolens_record_iter): one
 * record at a time from a decompression window, decoded by the same function as
 * iolens_log_records().  Memory: the window plus one record. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

struct iolens_record_iter {
    iolens_log *log;
    const struct rec_layout *lay;
    const iolens_module_info *mi;
    iol_zs *z;
    int swap;
    size_t index;            /* records read (kept and dropped) */
    size_t dropped;
    int64_t *ints;           /* n_int + n_flt (as doubles) of the current record */
    double *flts;
    uint8_t aux[64];
    int64_t *tail;           /* MDHIM histogram */
    size_t tail_cap;
};

int iolens_record_iter_open(iolens_log *log, int module, iolens_record_iter **out)
{
    const struct rec_layout *lay;
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log)
        return IOLENS_E_INVALID_ARG;
    int rc = iol_rec_layout_of(log, module, &lay);
    if (rc)
        return rc;
    iolens_record_iter *it = calloc(1, sizeof *it);
    if (!it)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory");
    it->log = log;
    it->lay = lay;
    it->mi = iolens_module_info_get(module);
    it->swap = iol_decode_swap(iolens_log_header(log));
    it->ints = iol_alloc_array(it->mi->n_int + 1, sizeof *it->ints);
    it->flts = iol_alloc_array(it->mi->n_flt + 1, sizeof *it->flts);
    char what[48];
    snprintf(what, sizeof what, "%s module", it->mi->name);
    if (!it->ints || !it->flts)
        rc = iol_log_fail(log, IOLENS_E_NOMEM, "out of memory");
    else
        rc = iol_zs_open(log, iolens_log_header(log)->mod[module], what, &it->z);
    if (rc) {
        iolens_record_iter_close(it);
        return rc;
    }
    *out = it;
    return IOLENS_OK;
}

void iolens_record_iter_close(iolens_record_iter *it)
{
    if (!it)
        return;
    iol_zs_close(it->z);
    free(it->ints);
    free(it->flts);
    free(it->tail);
    free(it);
}

size_t iolens_record_iter_dropped(const iolens_record_iter *it)
{
    return it ? it->dropped : 0;
}

/* MDHIM: the fixed part holds the first of MDHIM_SERVERS histogram values; the
 * rest follow it.  Reads them into it->tail (the fixed part is not consumed yet:
 * its last value is at offset 88). */
static int read_mdhim_tail(iolens_record_iter *it, const uint8_t *q, size_t *ntail)
{
    int64_t servers = iol_get_i64(q + 16 + 8 * MDHIM_SERVERS, it->swap);
    uint64_t want = servers <= 1 ? 1 : (uint64_t)servers;
    int64_t first = iol_get_i64(q + 88, it->swap);
    iol_zs_consume(it->z, iol_rec_size(it->lay));
    for (uint64_t k = 0; k < want; k++) {
        if (k == it->tail_cap) {
            size_t cap = it->tail_cap ? it->tail_cap * 2 : 64;
            int64_t *nt = realloc(it->tail, cap * sizeof *nt);
            if (!nt)
                return iol_log_fail(it->log, IOLENS_E_NOMEM, "out of memory");
            it->tail = nt;
            it->tail_cap = cap;
        }
        if (k == 0) {
            it->tail[0] = first;
            continue;
        }
        const uint8_t *p;
        size_t avail;
        int rc = iol_zs_fill(it->z, 8, &p, &avail);
        if (rc)
            return rc;
        if (avail < 8)
            return iol_log_fail(it->log, IOLENS_E_BAD_RECORD,
                                "MDHIM record %zu: server histogram of %" PRId64
                                " values is cut short (the region ends after %" PRIu64 ")",
                                it->index, servers, k);
        it->tail[k] = iol_get_i64(p, it->swap);
        iol_zs_consume(it->z, 8);
    }
    *ntail = (size_t)want;
    return IOLENS_OK;
}

int iolens_record_iter_next(iolens_record_iter *it, iolens_record *rec)
{
    if (!it || !rec)
        return IOLENS_E_INVALID_ARG;
    size_t size = iol_rec_size(it->lay);
    for (;;) {
        const uint8_t *q;
        size_t avail;
        int rc = iol_zs_fill(it->z, size, &q, &avail);
        if (rc)
            return rc;
        if (avail < size)
            return 0;                 /* a trailing partial record is ignored, as upstream */
        memset(rec, 0, sizeof *rec);
        size_t used = iol_rec_decode(it->lay, q, it->swap, &rec->id, &rec->rank,
                                     &rec->file_rec_id, it->ints, it->flts, it->aux);
        if (it->mi->kind == IOLENS_KIND_MDHIM) {
            if ((rc = read_mdhim_tail(it, q, &rec->ntail)) != IOLENS_OK)
                return rc;
            rec->tail = it->tail;
        } else {
            iol_zs_consume(it->z, size);
        }
        it->index++;
        if (used == 0) {
            it->dropped++;
            continue;
        }
        rec->ints = it->ints;
        rec->flts = it->flts;
        rec->n_int = it->mi->n_int;
        rec->n_flt = it->mi->n_flt;
        rec->aux_size = iol_rec_aux(it->lay);
        rec->aux = rec->aux_size ? it->aux : NULL;
        /* as iolens_records: the current layouts of these carry it (0 if not stored) */
        rec->has_file_rec_id = it->mi->id == IOL_MOD_H5D || it->mi->id == IOL_MOD_PNETCDF_VAR;
        rec->stored_version = iol_rec_version(it->lay);
        return 1;
    }
}
