/* Common-value tracking of access tuples (runtime spec 2.0.6) for the modules
 * whose ACCESS counters are 11-value tuples [bytes, LEN_D1..D5, STRIDE_D1..D5]:
 * PNETCDF_VAR (and the same rule H5D follows).  Callers hold their module's lock.
 *
 * Contract: at most IOL_CV_MAX distinct tuples are tracked per record; a new
 * tuple beyond that is ignored forever.  The four shown slots always hold the
 * top four tracked tuples by count, then first value, descending; a tuple whose
 * first value is 0 is counted but never shown. */
#ifndef IOLENS_RUNTIME_TUPLE_CV_H
#define IOLENS_RUNTIME_TUPLE_CV_H

#include <stdint.h>
#include <string.h>

#include "../core/stats.h"

#define IOL_TUPLE_DIMS 5
#define IOL_TUPLE_LEN (1 + 2 * IOL_TUPLE_DIMS)
#define IOL_TUPLE_SLOTS 4

typedef struct iol_tuple_cv {
    int n;
    int64_t val[IOL_CV_MAX][IOL_TUPLE_LEN];
    int64_t cnt[IOL_CV_MAX];
} iol_tuple_cv;

/* The tuple's new frequency, or 0 when the tracker is full and it is new. */
static inline int64_t iol_tuple_count(iol_tuple_cv *t, const int64_t *v)
{
    int i = 0;
    while (i < t->n && memcmp(t->val[i], v, sizeof t->val[i]) != 0)
        i++;
    if (i == t->n) {
        if (t->n == IOL_CV_MAX)
            return 0;
        memcpy(t->val[i], v, sizeof t->val[i]);
        t->cnt[i] = 0;
        t->n++;
    }
    return ++t->cnt[i];
}

/* Rebuild the shown slots (vals: 4 tuples in a row, cnts: 4 counts) after v
 * reached frequency f: those ranked above v, then v, then the rest in order. */
static inline void iol_tuple_show(const int64_t *v, int64_t f, int64_t *vals, int64_t *cnts)
{
    int64_t nv[IOL_TUPLE_SLOTS][IOL_TUPLE_LEN], nc[IOL_TUPLE_SLOTS];
    int k = 0, above[IOL_TUPLE_SLOTS] = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < IOL_TUPLE_SLOTS && k < IOL_TUPLE_SLOTS; j++) {
            const int64_t *s = vals + j * IOL_TUPLE_LEN;
            if (!cnts[j] || memcmp(s, v, sizeof nv[0]) == 0)
                continue;
            int ranks_above = cnts[j] > f || (cnts[j] == f && s[0] > v[0]);
            if (pass == 0 ? !ranks_above : above[j])
                continue;
            above[j] = 1;
            memcpy(nv[k], s, sizeof nv[k]);
            nc[k++] = cnts[j];
        }
        if (pass == 0 && k < IOL_TUPLE_SLOTS) {
            memcpy(nv[k], v, sizeof nv[k]);
            nc[k++] = f;
        }
    }
    for (int j = 0; j < IOL_TUPLE_SLOTS; j++) {
        if (j < k) {
            memcpy(vals + j * IOL_TUPLE_LEN, nv[j], sizeof nv[j]);
            cnts[j] = nc[j];
        } else {
            memset(vals + j * IOL_TUPLE_LEN, 0, sizeof nv[0]);
            cnts[j] = 0;
        }
    }
}

/* Count one access tuple and refresh the shown slots. */
static inline void iol_tuple_add(iol_tuple_cv *t, const int64_t *v, int64_t *vals, int64_t *cnts)
{
    int64_t f = iol_tuple_count(t, v);
    if (!f || v[0] == 0)
        return;
    /* The usual case: v is shown already and still ranks below the slot above it
     * (a count that grows can only move up), so only its count changes. */
    for (int j = 0; j < IOL_TUPLE_SLOTS; j++) {
        const int64_t *s = vals + j * IOL_TUPLE_LEN;
        if (cnts[j] != f - 1 || memcmp(s, v, IOL_TUPLE_LEN * sizeof *v) != 0)
            continue;
        const int64_t *up = s - IOL_TUPLE_LEN;
        if (j == 0 || cnts[j - 1] > f || (cnts[j - 1] == f && up[0] > v[0])) {
            cnts[j] = f;
            return;
        }
        break;
    }
    iol_tuple_show(v, f, vals, cnts);
}

#endif
