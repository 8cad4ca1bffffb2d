/* Counter arithmetic shared by the modules (runtime spec 2.0.4 - 2.0.6): timers,
 * timestamps, size histograms and the "common value" trackers.  All inline: they
 * run inside every wrapper. */
#ifndef IOLENS_RUNTIME_STATS_H
#define IOLENS_RUNTIME_STATS_H

#include <stdint.h>

/* No-overlap accumulation of a category's time (may go negative under
 * concurrency, as upstream's does). */
static inline void iol_time_add(double *acc, double *last_end, double t1, double t2)
{
    if (t1 == 0 || t2 == 0)
        return;
    *acc += (t1 > *last_end) ? t2 - t1 : t2 - *last_end;
    if (t2 > *last_end)
        *last_end = t2;
}

static inline void iol_stamp(double *start, double *end, double t1, double t2)
{
    if (*start == 0 || *start > t1)
        *start = t1;
    *end = t2;
}

/* Index 0..9 of the access-size histogram. */
static inline int iol_size_bin(int64_t v)
{
    static const int64_t edge[9] = {100, 1024, 10240, 102400, 1048576, 4194304,
                                    10485760, 104857600, 1073741824};
    int i = 0;
    while (i < 9 && v > edge[i])
        i++;
    return i;
}

/* Distinct values with their frequencies: 32 per record, later ones ignored. */
#define IOL_CV_MAX 32
typedef struct iol_cv {
    int64_t val[IOL_CV_MAX];
    int64_t cnt[IOL_CV_MAX];
    int n;
    int last;                /* index of the last hit: a cheap cache */
} iol_cv;

/* Count v, then refresh the four output slots (vals[0..3], cnts[0..3]) as the
 * top four by count, then value, descending.  Value 0 is tracked but never shown. */
static inline __attribute__((always_inline)) void iol_cv_add(iol_cv *t, int64_t v, int64_t *vals,
                                                              int64_t *cnts)
{
    int i = t->last;
    if (!(i < t->n && t->val[i] == v)) {
        for (i = 0; i < t->n && t->val[i] != v; i++)
            ;
        if (i == t->n) {
            if (t->n == IOL_CV_MAX)
                return;
            t->val[i] = v;
            t->cnt[i] = 0;
            t->n++;
        }
        t->last = i;
    }
    int64_t f = ++t->cnt[i];
    if (v == 0)
        return;
    /* Fast path: v already shown and still not ahead of its predecessor. */
    for (int j = 0; j < 4; j++)
        if (vals[j] == v && cnts[j]) {
            if (j == 0 || cnts[j - 1] > f || (cnts[j - 1] == f && vals[j - 1] > v)) {
                cnts[j] = f;
                return;
            }
            break;
        }
    int64_t nv[4], nc[4];
    int k = 0, placed = 0;
    for (int j = 0; j < 4 && k < 4; j++) {
        if (vals[j] == v && cnts[j])
            continue;
        if (!placed && !(cnts[j] > f || (cnts[j] == f && vals[j] > v))) {
            nv[k] = v;
            nc[k++] = f;
            placed = 1;
            if (k == 4)
                break;
        }
        nv[k] = vals[j];
        nc[k++] = cnts[j];
    }
    if (!placed && k < 4) {
        nv[k] = v;
        nc[k++] = f;
    }
    for (int j = 0; j < 4; j++) {
        vals[j] = j < k ? nv[j] : 0;
        cnts[j] = j < k ? nc[j] : 0;
    }
}
#endif
