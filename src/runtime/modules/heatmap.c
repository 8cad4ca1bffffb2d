/* HEATMAP module (id 15, runtime spec section 6): one record per instrumented API,
 * bytes read and written per time bin.  200 bins of 0.1 s that double in width
 * (merging neighbours) as the run grows; cut to the run's length at output. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../core/rt.h"
#include "../core/stats.h"
#include "heatmap.h"

#define NBINS IOL_HEATMAP_BINS
#define MAX_HEATMAPS 8

typedef struct heatmap_rec {
    uint64_t id;
    int64_t rank;
    double width;
    int64_t nbins;
    uint64_t unused[2];      /* pointer fields in upstream's memory; written as 0 */
    int64_t write_bins[NBINS];
    int64_t read_bins[NBINS];
} heatmap_rec;

static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    heatmap_rec *h = rec;
    h->width = 0.1;
    h->nbins = NBINS;
}

static void collapse(heatmap_rec *h)
{
    for (int i = 0; i < NBINS; i += 2) {
        h->write_bins[i / 2] = h->write_bins[i] + h->write_bins[i + 1];
        h->read_bins[i / 2] = h->read_bins[i] + h->read_bins[i + 1];
    }
    memset(h->write_bins + NBINS / 2, 0, sizeof h->write_bins / 2);
    memset(h->read_bins + NBINS / 2, 0, sizeof h->read_bins / 2);
    h->width *= 2;
}

static inline void spread(heatmap_rec *h, double t1, double t2, int64_t bytes, int64_t *bins)
{
    if (!(t1 <= t2))
        return;                       /* an end before its start (clock stepped back):
                                         a negative overlap, which aborts (spec 6) */
    while (__builtin_expect(t2 > h->width * NBINS, 0))
        collapse(h);
    double inv = 1.0 / h->width;
    long first = (long)(t1 * inv), last = (long)(t2 * inv);   /* t >= 0 */
    if (last >= NBINS)
        last = NBINS - 1;
    if (first < 0)
        first = 0;
    if (first == last) {              /* the usual case: the op fits in one bin */
        bins[last] += bytes;
        return;
    }
    /* Cumulative rounding: bin b gets round(bytes * overlap up to b's end / span)
     * minus what the bins before it got, and the last bin the rest.  Each bin is
     * within a byte of its exact share, as with upstream's per-bin round(), but
     * the bins add up to the op's bytes exactly (per-bin rounding gains or loses
     * a byte per bin boundary; see docs/deviations.md). */
    double span = t2 - t1, covered = 0;
    int64_t given = 0;
    for (long b = first; b <= last; b++) {
        double lo = b * h->width, hi = lo + h->width, overlap = h->width;
        if (t1 > lo)
            overlap -= t1 - lo;
        if (t2 < hi)
            overlap -= hi - t2;
        if (overlap < 0)
            return;
        covered += overlap;
        int64_t upto = bytes;
        if (b < last) {
            upto = (int64_t)llround((double)bytes * covered / span);
            if (upto > bytes)         /* float error: the sum of overlaps passed span */
                upto = bytes;
        }
        bins[b] += upto - given;
        given = upto;
    }
}

static iol_heatmap handles[MAX_HEATMAPS];

static void refresh(iol_heatmap *hd)
{
    heatmap_rec *h = hd->rec;
    hd->inv_width = 1.0 / h->width;
    hd->limit = h->width * NBINS;
}

iol_heatmap *iol_heatmap_register(const char *api)
{
    iol_module *m = iol_mod(IOL_MOD_HEATMAP);
    char name[64];
    snprintf(name, sizeof name, "heatmap:%s", api);
    uint64_t id = iol_name_id(name);
    if (!iol_mod_enter(m))
        return NULL;
    void *rec = iol_rec_get(m, name, id, NULL);
    iol_heatmap *hd = NULL;
    if (rec) {
        hd = &handles[iol_rec_index(m, rec)];
        hd->rec = rec;
        hd->write_bins = ((heatmap_rec *)rec)->write_bins;
        hd->read_bins = ((heatmap_rec *)rec)->read_bins;
        refresh(hd);
    }
    iol_mod_leave(m);
    return hd;
}

/* Called from the modules' data paths, which do not save errno: llround may set
 * it (out-of-range results), so it is kept here. */
void iol_heatmap_spread(iol_heatmap *hd, double t1, double t2, int64_t bytes, int is_write)
{
    heatmap_rec *h = hd->rec;
    int e = errno;
    spread(h, t1, t2, bytes, is_write ? h->write_bins : h->read_bins);
    refresh(hd);
    errno = e;
}

/* The bin of t, as iol_heatmap_update computes it. */
static inline long bin_of(const iol_heatmap *hd, double t) { return (long)(t * hd->inv_width); }

/* The widest [lo, hi) around t (t < limit, its bin in range) whose every point
 * gets t's bin: the bin's edges, checked against the binning itself (bin_of is
 * monotonic, so checking the two ends suffices), else t alone.  Runs once per
 * bin change (every 0.1 s or more of I/O), so nextafter's cost does not matter;
 * errno is kept as in iol_heatmap_spread. */
static void fill_cache(iol_heatmap *hd, double t, iol_hm_cache *c)
{
    iol_hm_cache_clear(c);
    if (!hd || !(t < hd->limit))
        return;
    long b = bin_of(hd, t);
    if (b < 0 || b >= NBINS)
        return;
    double w = ((heatmap_rec *)hd->rec)->width, lo = b * w, hi = (b + 1) * w;
    if (hi > hd->limit)
        hi = hd->limit;
    /* The computed edges are off by an ulp or two at most: step them in. */
    for (int i = 0; i < 8 && lo < t && bin_of(hd, lo) < b; i++)
        lo = nextafter(lo, HUGE_VAL);
    for (int i = 0; i < 8 && hi > t && bin_of(hd, nextafter(hi, -HUGE_VAL)) > b; i++)
        hi = nextafter(hi, -HUGE_VAL);
    if (lo > t || bin_of(hd, lo) != b)
        lo = t;
    if (hi <= t || bin_of(hd, nextafter(hi, -HUGE_VAL)) != b)
        hi = nextafter(t, HUGE_VAL);
    c->lo = lo;
    c->hi = hi;
    c->write_bin = &hd->write_bins[b];
    c->read_bin = &hd->read_bins[b];
}

void iol_heatmap_cache(iol_heatmap *hd, double t, iol_hm_cache *c)
{
    int e = errno;
    fill_cache(hd, t, c);
    errno = e;
}

static int all_zero(const heatmap_rec *h)
{
    for (int i = 0; i < NBINS; i++)
        if (h->write_bins[i] || h->read_bins[i])
            return 0;
    return 1;
}

/* Records in place: drop empty heatmaps, fit the bins to the run, pack each
 * record as header + write_bins[nbins] + read_bins[nbins]. */
/* MPI mode: the end of the run agreed on by every process (set by the collective
 * writer before output), so that every process's heatmap has the same bins. */
double iol_heatmap_end;

static size_t output(iol_module *m, void **payload)
{
    double end = iol_heatmap_end > 0 ? iol_heatmap_end : iol_wtime();
    uint8_t *out = m->recs;
    size_t len = 0;
    for (size_t i = 0; i < m->count; i++) {
        heatmap_rec *h = (heatmap_rec *)m->recs + i;
        if (all_zero(h))
            continue;
        while (end > h->width * NBINS)
            collapse(h);
        int64_t n = (int64_t)ceil(end / h->width);
        if (n > NBINS)
            n = NBINS;
        if (n < 1)
            n = 1;
        heatmap_rec tmp = *h;
        tmp.nbins = n;
        memcpy(out + len, &tmp, 48);
        memcpy(out + len + 48, tmp.write_bins, (size_t)n * 8);
        memcpy(out + len + 48 + (size_t)n * 8, tmp.read_bins, (size_t)n * 8);
        len += 48 + (size_t)n * 16;
    }
    *payload = out;
    return len;
}

const iol_module_desc iol_heatmap_module = {
    IOL_MODULE_IDENTITY(HEATMAP),
    .rec_size = sizeof(heatmap_rec),
    .default_records = MAX_HEATMAPS,
    .fixed_records = 1,
    .rec_init = rec_init,
    .output = output,
};
