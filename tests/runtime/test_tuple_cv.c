/* Unit test of the access-tuple common values (src/runtime/modules/tuple_cv.h,
 * runtime spec 2.0.6): after every access, the four shown slots must be the top
 * four of the tracked tuples by count, then first value, descending; tuples with
 * a first value of 0 are tracked but never shown; only the first 32 distinct
 * tuples are tracked.  Random access streams are checked against a brute force. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modules/tuple_cv.h"

#define POOL 40              /* more than IOL_CV_MAX: some tuples are never tracked */

static int failures;

/* Tuple k of the pool: distinct first values (ties on it would be order-dependent),
 * 0 for k == 0; the other values vary with k. */
static void tuple_of(int k, int64_t *t)
{
    memset(t, 0, IOL_TUPLE_LEN * sizeof *t);
    t[0] = k == 0 ? 0 : 1000 - k;
    t[1] = k % 3;
    t[6] = k % 5;
}

static void check_stream(unsigned seed, int len, int spread)
{
    iol_tuple_cv cv = {0};
    int64_t vals[IOL_TUPLE_SLOTS * IOL_TUPLE_LEN] = {0}, cnts[IOL_TUPLE_SLOTS] = {0};
    int64_t count[POOL] = {0};
    int order[POOL], ntracked = 0, tracked[POOL] = {0};
    srand(seed);
    for (int i = 0; i < len; i++) {
        int k = rand() % spread;
        int64_t t[IOL_TUPLE_LEN];
        tuple_of(k, t);
        iol_tuple_add(&cv, t, vals, cnts);
        if (!tracked[k] && ntracked < IOL_CV_MAX) {
            tracked[k] = 1;
            order[ntracked++] = k;
        }
        if (tracked[k])
            count[k]++;
        /* brute force: the tracked, non-zero tuples, best first */
        int best[POOL], nb = 0;
        for (int j = 0; j < ntracked; j++)
            if (order[j] != 0)
                best[nb++] = order[j];
        for (int a = 0; a < nb; a++)
            for (int b = a + 1; b < nb; b++) {
                int x = best[a], y = best[b];
                if (count[y] > count[x] || (count[y] == count[x] && y < x)) {
                    best[a] = y;
                    best[b] = x;
                }
            }
        for (int s = 0; s < IOL_TUPLE_SLOTS; s++) {
            int64_t want[IOL_TUPLE_LEN] = {0}, wc = 0;
            if (s < nb) {
                tuple_of(best[s], want);
                wc = count[best[s]];
            }
            if (cnts[s] != wc || memcmp(vals + s * IOL_TUPLE_LEN, want, sizeof want) != 0) {
                fprintf(stderr, "seed %u step %d slot %d: count %lld first %lld, want %lld %lld\n",
                        seed, i, s, (long long)cnts[s], (long long)vals[s * IOL_TUPLE_LEN],
                        (long long)wc, (long long)want[0]);
                failures++;
                return;
            }
        }
    }
}

int main(void)
{
    for (unsigned seed = 1; seed <= 200; seed++) {
        check_stream(seed, 400, 3);          /* few tuples: mostly the unchanged-order path */
        check_stream(seed, 400, 8);
        check_stream(seed, 2000, POOL);      /* the 32-tuple cap */
    }
    if (failures)
        return 1;
    printf("tuple_cv: ok\n");
    return 0;
}
