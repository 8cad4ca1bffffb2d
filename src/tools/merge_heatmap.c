/* One time grid for a merged log's HEATMAP records (merge_heatmap.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_heatmap.h"
#include "merge_workflow.h"

#define GRID_BINS 200        /* the runtime's bins per heatmap (runtime spec 6) */

typedef struct grid {
    double width;
    int64_t nbins;
} grid;

static grid grid_for(iolens_heatmap *const *hm, const double *shift, size_t n)
{
    double widest = 0, end = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; hm[i] && r < hm[i]->count; r++) {
            double w = hm[i]->bin_width[r];
            if (!(w > 0) || !isfinite(w))
                continue;
            if (w > widest)
                widest = w;
            double e = shift[i] + w * (double)hm[i]->nbins[r];
            if (e > end)
                end = e;
        }
    grid g = {widest > 0 ? widest : 0.1, 1};
    while (end > g.width * GRID_BINS * (1 + 1e-12))
        g.width *= 2;
    double nb = ceil(end / g.width - 1e-9);
    g.nbins = nb < 1 ? 1 : nb > GRID_BINS ? GRID_BINS : (int64_t)nb;
    return g;
}

static int64_t target_bin(const grid *g, double t)
{
    double b = floor(t / g->width + 1e-9);
    return !(b > 0) ? 0 : b >= (double)g->nbins ? g->nbins - 1 : (int64_t)b;
}

/* Source bin [lo, lo + w) with `bytes` into the grid's bins `out`. */
static void rebin(const grid *g, double lo, double w, int64_t bytes, int64_t *out)
{
    if (!bytes)
        return;
    int64_t a = target_bin(g, lo), b = target_bin(g, lo + w);
    double edge = (double)(a + 1) * g->width;
    if (b == a || !(w > 0) || lo + w <= edge) {
        out[a] += bytes;
        return;
    }
    int64_t first = llround((double)bytes * (edge - lo) / w);
    out[a] += first;
    out[a + 1 < g->nbins ? a + 1 : a] += bytes - first;
}

int merge_heatmaps(iolens_writer *w, iolens_log *const *logs, const double *shift,
                   const int64_t *rank_as, const int64_t *offset, size_t n, size_t *bad)
{
    iolens_heatmap **hm = calloc(n + 1, sizeof *hm);
    int rc = hm ? IOLENS_OK : IOLENS_E_NOMEM;
    size_t total = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (!iolens_log_header(logs[i])->mod[IOL_MOD_HEATMAP].len)
            continue;
        if ((rc = iolens_log_heatmap(logs[i], &hm[i])) != IOLENS_OK)
            *bad = i;
        total += hm[i] ? hm[i]->count : 0;
    }
    grid g = rc ? (grid){0.1, 1} : grid_for(hm, shift, n);
    iolens_heatmap out;
    memset(&out, 0, sizeof out);
    out.id = calloc(total + 1, sizeof *out.id);
    out.rank = calloc(total + 1, sizeof *out.rank);
    out.bin_width = calloc(total + 1, sizeof *out.bin_width);
    out.nbins = calloc(total + 1, sizeof *out.nbins);
    out.bin_start = calloc(total + 2, sizeof *out.bin_start);
    out.write_bins = calloc(total * (size_t)g.nbins + 1, sizeof *out.write_bins);
    out.read_bins = calloc(total * (size_t)g.nbins + 1, sizeof *out.read_bins);
    if (!rc && !(out.id && out.rank && out.bin_width && out.nbins && out.bin_start &&
                 out.write_bins && out.read_bins))
        rc = IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t r = 0; hm[i] && r < hm[i]->count; r++) {
            const iolens_heatmap *h = hm[i];
            size_t k = out.count++;
            out.id[k] = h->id[r];
            out.rank[k] = rank_as[i] >= 0 ? rank_as[i] : wf_rank(h->rank[r], offset[i]);
            out.bin_width[k] = g.width;
            out.nbins[k] = g.nbins;
            out.bin_start[k] = k * (size_t)g.nbins;
            double wsrc = h->bin_width[r] > 0 && isfinite(h->bin_width[r]) ? h->bin_width[r] : 0;
            for (int64_t b = 0; b < h->nbins[r]; b++) {
                double lo = shift[i] + (double)b * wsrc;
                size_t src = h->bin_start[r] + (size_t)b;
                rebin(&g, lo, wsrc, h->write_bins[src], out.write_bins + out.bin_start[k]);
                rebin(&g, lo, wsrc, h->read_bins[src], out.read_bins + out.bin_start[k]);
            }
        }
    out.bin_start[out.count] = out.count * (size_t)g.nbins;
    if (!rc && out.count)
        rc = iolens_writer_put_heatmap(w, &out);
    for (size_t i = 0; hm && i < n; i++)
        iolens_heatmap_free(hm[i]);
    free(hm);
    free(out.id), free(out.rank), free(out.bin_width), free(out.nbins);
    free(out.bin_start), free(out.write_bins), free(out.read_bins);
    return rc;
}
