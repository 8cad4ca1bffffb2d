/* Encoders from the decoded structures (log.h) to little-endian module payloads at
 * the current record versions of modules.def (log-format 7), then written with
 * iolens_writer_put_region. */
#include <stdlib.h>
#include "internal.h"

/* Growable payload buffer; `bad` latches allocation failure. */
typedef struct pbuf {
    uint8_t *p;
    size_t len, cap;
    int bad;
    size_t *cuts, ncuts, cuts_cap;   /* payload offsets where another rank's records begin */
    int64_t last_rank;
} pbuf;

/* Note that a record of `rank` starts at the current end of the payload, so that a
 * per-process writer can compress each rank's run of records as its own stream. */
static void mark(pbuf *b, int64_t rank)
{
    if (b->bad || (b->ncuts && rank == b->last_rank))
        return;
    if (b->ncuts == b->cuts_cap) {
        size_t cap = b->cuts_cap ? 2 * b->cuts_cap : 64;
        size_t *c = realloc(b->cuts, cap * sizeof *c);
        if (!c) {
            b->bad = 1;
            return;
        }
        b->cuts = c;
        b->cuts_cap = cap;
    }
    b->cuts[b->ncuts++] = b->len;
    b->last_rank = rank;
}

static uint8_t *take(pbuf *b, size_t n)
{
    if (b->bad)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np) {
            b->bad = 1;
            return NULL;
        }
        b->p = np;
        b->cap = cap;
    }
    uint8_t *q = b->p + b->len;
    memset(q, 0, n);
    b->len += n;
    return q;
}

static int finish_at(iolens_writer *w, int module, uint32_t version, pbuf *b)
{
    int rc = b->bad ? IOLENS_E_NOMEM
                    : iol_writer_put_region_cuts(w, module, version, b->p, b->len, b->cuts,
                                                 b->ncuts);
    free(b->p);
    free(b->cuts);
    return rc;
}

static int finish(iolens_writer *w, int module, pbuf *b)
{
    return finish_at(w, module, iolens_module_info_get(module)->version, b);
}

static void put_base(uint8_t *q, uint64_t id, int64_t rank)
{
    iol_put_u64(q, id);
    iol_put_i64(q + 8, rank);
}

/* --------------------------------------------------------------- counters */
static size_t aux_bytes(int module)
{
    return module == IOL_MOD_DFS ? 32 : module == IOL_MOD_DAOS ? 48 : 0;
}

static int has_file_rec(int module)
{
    return module == IOL_MOD_H5D || module == IOL_MOD_PNETCDF_VAR;
}

/* MDHIM: the fixed part holds one histogram value, MDHIM_SERVERS > 1 adds more. */
static void put_mdhim_tail(pbuf *b, uint8_t **q, const iolens_records *r, size_t i)
{
    int64_t servers = r->ints[i * r->n_int + MDHIM_SERVERS];
    size_t want = servers > 1 ? (size_t)servers : 1, have = 0;
    const int64_t *t = NULL;
    if (r->tail_start && r->tail) {
        have = r->tail_start[i + 1] - r->tail_start[i];
        t = r->tail + r->tail_start[i];
    }
    size_t off = (size_t)(*q - b->p);
    uint8_t *e = take(b, 8 * (want - 1));       /* fixed part already has one slot */
    if (!e)
        return;
    *q = b->p + off;
    uint8_t *h = *q + 16 + 8 * (r->n_int + r->n_flt);
    for (size_t k = 0; k < want; k++)
        iol_put_i64(h + 8 * k, k < have ? t[k] : 0);
}

static int check_records(const iolens_records *r, const iolens_module_info *mi)
{
    if (!mi || (mi->kind != IOLENS_KIND_COUNTERS && mi->kind != IOLENS_KIND_MDHIM))
        return IOLENS_E_UNKNOWN_MODULE;
    if (r->n_int != mi->n_int || r->n_flt != mi->n_flt)
        return IOLENS_E_INVALID_ARG;
    if (r->count && (!r->id || !r->rank || (r->n_int && !r->ints) || (r->n_flt && !r->flts)))
        return IOLENS_E_INVALID_ARG;
    if (r->aux && r->aux_size != aux_bytes(r->module))
        return IOLENS_E_INVALID_ARG;
    return IOLENS_OK;
}

int iolens_writer_put_records(iolens_writer *w, const iolens_records *r)
{
    if (!w || !r)
        return IOLENS_E_INVALID_ARG;
    const iolens_module_info *mi = iolens_module_info_get(r->module);
    int rc = check_records(r, mi);
    if (rc)
        return rc;
    size_t fr = has_file_rec(r->module) ? 8 : 0, aux = aux_bytes(r->module);
    size_t mdhim = mi->kind == IOLENS_KIND_MDHIM ? 8 : 0;
    size_t size = 16 + fr + 8 * (r->n_int + r->n_flt) + aux + mdhim;
    pbuf b = { 0 };
    for (size_t i = 0; i < r->count; i++) {
        mark(&b, r->rank[i]);
        uint8_t *q = take(&b, size);
        if (!q)
            break;
        put_base(q, r->id[i], r->rank[i]);
        if (fr)
            iol_put_u64(q + 16, r->file_rec_id ? r->file_rec_id[i] : 0);
        uint8_t *c = q + 16 + fr;
        for (size_t k = 0; k < r->n_int; k++)
            iol_put_i64(c + 8 * k, r->ints[i * r->n_int + k]);
        c += 8 * r->n_int;
        for (size_t k = 0; k < r->n_flt; k++)
            iol_put_f64(c + 8 * k, r->flts[i * r->n_flt + k]);
        c += 8 * r->n_flt;
        if (aux && r->aux) {          /* uuids as bytes; DAOS oids from host u64 */
            memcpy(c, r->aux + i * aux, 32);
            for (size_t k = 32; k < aux; k += 8) {
                uint64_t v;
                memcpy(&v, r->aux + i * aux + k, 8);
                iol_put_u64(c + k, v);
            }
        }
        if (mdhim)
            put_mdhim_tail(&b, &q, r, i);
    }
    return finish(w, r->module, &b);
}

/* --------------------------------------------------------------- DXT */
/* Written with 32-byte segments, DXT_POSIX v1 / DXT_MPIIO v2 (modules.def), or,
 * when the records carry thread ids (d->thread_id), with 40-byte segments at the
 * next version, DXT_POSIX v2 / DXT_MPIIO v3 (log-format 7.10): a rewrite keeps
 * what the runtime recorded. */
int iolens_writer_put_dxt(iolens_writer *w, const iolens_dxt *d)
{
    if (!w || !d || (d->module != IOL_MOD_DXT_POSIX && d->module != IOL_MOD_DXT_MPIIO))
        return IOLENS_E_INVALID_ARG;
    if (d->count && (!d->id || !d->rank || !d->seg_start || !d->write_count || !d->read_count))
        return IOLENS_E_INVALID_ARG;
    size_t seg = d->thread_id ? 40 : 32;
    pbuf b = { 0 };
    for (size_t i = 0; i < d->count; i++) {
        size_t ns = d->seg_start[i + 1] - d->seg_start[i], s0 = d->seg_start[i];
        if (d->seg_start[i + 1] < s0 || d->write_count[i] < 0 || d->read_count[i] < 0 ||
            (uint64_t)d->write_count[i] + (uint64_t)d->read_count[i] != ns ||
            d->seg_start[i + 1] > d->nseg) {
            free(b.p);
            free(b.cuts);
            return IOLENS_E_INVALID_ARG;
        }
        mark(&b, d->rank[i]);
        uint8_t *q = take(&b, 104 + seg * ns);
        if (!q)
            break;
        put_base(q, d->id[i], d->rank[i]);
        if (d->hostname)
            memcpy(q + 24, d->hostname[i], strnlen(d->hostname[i], 64));
        iol_put_i64(q + 88, d->write_count[i]);
        iol_put_i64(q + 96, d->read_count[i]);
        for (size_t k = 0; k < ns; k++) {
            uint8_t *s = q + 104 + seg * k;
            iol_put_i64(s, d->offset[s0 + k]);
            iol_put_i64(s + 8, d->length[s0 + k]);
            iol_put_f64(s + 16, d->start[s0 + k]);
            iol_put_f64(s + 24, d->end[s0 + k]);
            if (d->thread_id)
                iol_put_u64(s + 32, d->thread_id[s0 + k]);
        }
    }
    uint32_t version = iolens_module_info_get(d->module)->version + (d->thread_id ? 1 : 0);
    return finish_at(w, d->module, version, &b);
}

/* --------------------------------------------------------------- HEATMAP */
int iolens_writer_put_heatmap(iolens_writer *w, const iolens_heatmap *h)
{
    if (!w || !h || (h->count && (!h->id || !h->rank || !h->bin_width || !h->nbins ||
                                  !h->bin_start)))
        return IOLENS_E_INVALID_ARG;
    pbuf b = { 0 };
    for (size_t i = 0; i < h->count; i++) {
        size_t nb = h->bin_start[i + 1] - h->bin_start[i], b0 = h->bin_start[i];
        if (h->bin_start[i + 1] < b0 || h->nbins[i] < 0 || (uint64_t)h->nbins[i] != nb) {
            free(b.p);
            free(b.cuts);
            return IOLENS_E_INVALID_ARG;
        }
        mark(&b, h->rank[i]);
        uint8_t *q = take(&b, 48 + 16 * nb);   /* pointer slots at 32..47 stay zero */
        if (!q)
            break;
        put_base(q, h->id[i], h->rank[i]);
        iol_put_f64(q + 16, h->bin_width[i]);
        iol_put_i64(q + 24, h->nbins[i]);
        for (size_t k = 0; k < nb; k++) {
            iol_put_i64(q + 48 + 8 * k, h->write_bins[b0 + k]);
            iol_put_i64(q + 48 + 8 * (nb + k), h->read_bins[b0 + k]);
        }
    }
    return finish(w, IOL_MOD_HEATMAP, &b);
}

/* --------------------------------------------------------------- LUSTRE */
/* Records must already be truncated (no unused components), section 7.9. */
int iolens_writer_put_lustre(iolens_writer *w, const iolens_lustre *l)
{
    if (!w || !l || (l->count && (!l->id || !l->rank || !l->comp_start || !l->ost_start)))
        return IOLENS_E_INVALID_ARG;
    pbuf b = { 0 };
    for (size_t i = 0; i < l->count; i++) {
        size_t nc = l->comp_start[i + 1] - l->comp_start[i], c0 = l->comp_start[i];
        size_t no = l->ost_start[i + 1] - l->ost_start[i], o0 = l->ost_start[i];
        if (l->comp_start[i + 1] < c0 || l->ost_start[i + 1] < o0) {
            free(b.p);
            free(b.cuts);
            return IOLENS_E_INVALID_ARG;
        }
        mark(&b, l->rank[i]);
        uint8_t *q = take(&b, 32 + 72 * nc + 8 * no);
        if (!q)
            break;
        put_base(q, l->id[i], l->rank[i]);
        iol_put_i64(q + 16, (int64_t)nc);
        iol_put_i64(q + 24, (int64_t)no);
        for (size_t c = 0; c < nc; c++) {
            uint8_t *cp = q + 32 + 72 * c;
            for (size_t k = 0; k < LUSTRE_COMP_NUM_INDICES; k++)
                iol_put_i64(cp + 8 * k, l->comp[(c0 + c) * LUSTRE_COMP_NUM_INDICES + k]);
            if (l->pool_name)
                memcpy(cp + 56, l->pool_name[c0 + c], strnlen(l->pool_name[c0 + c], 16));
        }
        for (size_t k = 0; k < no; k++)
            iol_put_i64(q + 32 + 72 * nc + 8 * k, l->ost[o0 + k]);
    }
    return finish(w, IOL_MOD_LUSTRE, &b);
}
