/* Decoding of HEATMAP regions (log-format spec 7.11).
 *
 * Record: base record, f64 bin_width_seconds, i64 nbins, 16 bytes of pointer
 * garbage (skipped), nbins i64 write bins, nbins i64 read bins.
 *
 * Bin-count normalisation (for logs of runtimes 3.4.0-3.4.3 whose processes
 * disagreed by one bin): the first record fixes the reference width and bin
 * count; a later record with the same width and one bin more loses its last
 * write and read bin, one with one bin less gains a zero last write and read
 * bin.  Upstream's "one bin less" repair shifts the read bins by one place and
 * loses the last one; we keep every stored value in its place (docs/deviations.md). */
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

enum { HM_FIXED = 48 };

struct hm_ctx {
    iolens_log *log;
    const uint8_t *p;
    size_t len;
    int swap;
    int have_ref;         /* reference width/bins taken from the first record */
    double ref_width;
    int64_t ref_bins;
};

/* Stored bin count of the record at pos, validated against the bytes left. */
static int stored_bins(const struct hm_ctx *c, size_t pos, size_t index, size_t *nb)
{
    int64_t n = iol_get_i64(c->p + pos + 24, c->swap);
    size_t left = c->len - pos - HM_FIXED;
    if (n < 0 || (uint64_t)n > left / 16)
        return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                            "HEATMAP record %zu: %" PRId64 " bins do not fit in the %zu bytes left",
                            index, n, left);
    *nb = (size_t)n;
    return IOLENS_OK;
}

/* Bin count after normalisation of a record with `stored` bins and width w. */
static size_t kept_bins(struct hm_ctx *c, double w, size_t stored)
{
    if (!c->have_ref) {
        c->have_ref = 1;
        c->ref_width = w;
        c->ref_bins = (int64_t)stored;
        return stored;
    }
    if (w == c->ref_width && ((int64_t)stored == c->ref_bins + 1 ||
                              (int64_t)stored == c->ref_bins - 1))
        return (size_t)c->ref_bins;
    return stored;
}

/* Pass 1: number of records and of bins after normalisation. */
static int count_heatmap(struct hm_ctx *c, size_t *n, size_t *nbins)
{
    size_t pos = 0;
    *n = *nbins = 0;
    while (c->len - pos >= HM_FIXED) {
        size_t nb = 0;
        int rc = stored_bins(c, pos, *n, &nb);
        if (rc != IOLENS_OK)
            return rc;
        *nbins += kept_bins(c, iol_get_f64(c->p + pos + 16, c->swap), nb);
        pos += HM_FIXED + 16 * nb;
        (*n)++;
    }
    c->have_ref = 0;      /* pass 2 recomputes the reference */
    return IOLENS_OK;
}

static int alloc_heatmap(iolens_heatmap *h, size_t n, size_t nb)
{
    h->id = iol_alloc_array(n, sizeof *h->id);
    h->rank = iol_alloc_array(n, sizeof *h->rank);
    h->bin_width = iol_alloc_array(n, sizeof *h->bin_width);
    h->nbins = iol_alloc_array(n, sizeof *h->nbins);
    h->bin_start = iol_alloc_array(n + 1, sizeof *h->bin_start);
    h->write_bins = iol_alloc_array(nb, sizeof *h->write_bins);
    h->read_bins = iol_alloc_array(nb, sizeof *h->read_bins);
    return h->id && h->rank && h->bin_width && h->nbins && h->bin_start && h->write_bins &&
           h->read_bins ? IOLENS_OK : IOLENS_E_NOMEM;
}

/* Pass 2 (counts validated by pass 1). */
static void decode_heatmap_all(struct hm_ctx *c, iolens_heatmap *h, size_t n)
{
    size_t pos = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *q = c->p + pos;
        size_t stored = (size_t)iol_get_i64(q + 24, c->swap);
        h->id[i] = iol_get_u64(q, c->swap);
        h->rank[i] = iol_get_i64(q + 8, c->swap);
        h->bin_width[i] = iol_get_f64(q + 16, c->swap);
        size_t kept = kept_bins(c, h->bin_width[i], stored);
        h->nbins[i] = (int64_t)kept;
        h->bin_start[i] = b;
        for (size_t k = 0; k < kept; k++) {
            int in = k < stored;
            h->write_bins[b + k] = in ? iol_get_i64(q + HM_FIXED + 8 * k, c->swap) : 0;
            h->read_bins[b + k] = in ? iol_get_i64(q + HM_FIXED + 8 * (stored + k), c->swap) : 0;
        }
        b += kept;
        pos += HM_FIXED + 16 * stored;
    }
    h->bin_start[n] = b;
    h->count = n;
}

int iolens_log_heatmap(iolens_log *log, iolens_heatmap **out)
{
    const void *payload;
    size_t len, n, nb;
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log)
        return IOLENS_E_INVALID_ARG;
    /* the region first: absent modules give IOLENS_E_NOT_PRESENT */
    int rc = iolens_log_region(log, IOL_MOD_HEATMAP, &payload, &len);
    if (rc != IOLENS_OK)
        return rc;
    uint32_t ver = iolens_log_header(log)->mod_ver[IOL_MOD_HEATMAP];
    if (ver != 1)
        return iol_log_fail(log, IOLENS_E_BAD_MODULE_VERSION,
                            "HEATMAP module: record version %u is not supported", ver);
    struct hm_ctx c = {log, payload, len, iol_decode_swap(iolens_log_header(log)), 0, 0, 0};
    rc = count_heatmap(&c, &n, &nb);
    if (rc != IOLENS_OK)
        return rc;
    iolens_heatmap *h = calloc(1, sizeof *h);
    if (!h || alloc_heatmap(h, n, nb) != IOLENS_OK) {
        iolens_heatmap_free(h);
        return iol_log_fail(log, IOLENS_E_NOMEM, "HEATMAP module: out of memory for %zu bins", nb);
    }
    decode_heatmap_all(&c, h, n);
    *out = h;
    return IOLENS_OK;
}

void iolens_heatmap_free(iolens_heatmap *h)
{
    if (!h)
        return;
    free(h->id);
    free(h->rank);
    free(h->bin_width);
    free(h->nbins);
    free(h->bin_start);
    free(h->write_bins);
    free(h->read_bins);
    free(h);
}
