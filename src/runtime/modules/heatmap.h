/* The heat-map API (runtime spec section 6), defined in heatmap.c: the modules
 * that move data (POSIX, STDIO, MPI-IO) register a heat map and add each
 * operation's bytes to it; the HEATMAP module writes them out. */
#ifndef IOLENS_RUNTIME_HEATMAP_H
#define IOLENS_RUNTIME_HEATMAP_H

#include <stdint.h>

/* Register the heatmap of an API ("POSIX", "STDIO", ...); returns its handle or
 * NULL.  Each heatmap is updated by exactly one module, under that module's lock,
 * so updates take no lock of their own; output runs after every module is frozen. */
#define IOL_HEATMAP_BINS 200
typedef struct iol_heatmap {
    int64_t *write_bins, *read_bins;   /* in the HEATMAP record */
    double inv_width, limit;           /* 1 / bin width; bin width * IOL_HEATMAP_BINS */
    void *rec;
} iol_heatmap;
iol_heatmap *iol_heatmap_register(const char *api);
void iol_heatmap_spread(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write);
/* Add an op's bytes: the usual op falls in one bin (inline); the rest spreads. */
static inline void iol_heatmap_update(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write)
{
    if (!h || bytes <= 0)
        return;
    if (__builtin_expect(t2 < h->limit, 1)) {
        long b1 = (long)(t1 * h->inv_width), b2 = (long)(t2 * h->inv_width);
        /* Unsigned compare: a clock stepped back gives a negative bin, which
         * must take the slow path (it clamps) and never index bins[-1]. */
        if (__builtin_expect(b1 == b2 && (unsigned long)b2 < IOL_HEATMAP_BINS && t1 <= t2, 1)) {
            (is_write ? h->write_bins : h->read_bins)[b2] += bytes;
            return;
        }
    }
    iol_heatmap_spread(h, t1, t2, bytes, is_write);
}

/* A module's shortcut into its heatmap: while an op lies in [lo, hi) it
 * falls in the one bin that iol_heatmap_update would choose, so its bytes are
 * added there directly (3 compares and an add instead of two multiplies, two
 * conversions and the bounds checks).  Filled after every miss by
 * iol_heatmap_cache (heatmap.c) and valid until that heatmap's next update
 * (bins only move in updates, under the same module lock).  Start empty. */
typedef struct iol_hm_cache {
    double lo, hi;
    int64_t *write_bin, *read_bin;
} iol_hm_cache;
void iol_heatmap_cache(iol_heatmap *h, double t, iol_hm_cache *c);
static inline void iol_hm_cache_clear(iol_hm_cache *c)
{
    c->lo = __builtin_inf();
    c->hi = -__builtin_inf();
}
static inline __attribute__((always_inline)) void iol_hm_add(iol_hm_cache *c, iol_heatmap *h,
                                                              double t1, double t2, int64_t bytes,
                                                              const int is_write)
{
    if (__builtin_expect(t1 >= c->lo && t1 <= t2 && t2 < c->hi, 1)) {
        *(is_write ? c->write_bin : c->read_bin) += bytes;   /* bytes >= 0 */
        return;
    }
    iol_heatmap_update(h, t1, t2, bytes, is_write);
    iol_heatmap_cache(h, t2, c);
}

#endif
