/* "number of threads" of a DXT record (versions with thread ids): the distinct
 * thread ids over its segments, known before its header is printed.  A second
 * iterator runs one record ahead of the printing one and counts them, so the
 * segments are decoded twice but never held.  The count is exact in bounded
 * memory: a set of up to 2^16 ids; a (hostile) record with more distinct ids is
 * counted again in hash partitions, one pass over the region per partition. */
#include <stdlib.h>
#include <string.h>
#include "dxt_threads.h"

#define SET_BITS 17                       /* slots; at most half are used */
#define SET_MAX (1u << (SET_BITS - 1))
#define SEG_BATCH 4096

struct iol_dxt_threads {
    iolens_log *log;
    int module;
    iolens_dxt_iter *ahead;
    size_t index;                         /* records counted so far */
    uint64_t *slot;                       /* id + 1 (0 = empty); id UINT64_MAX apart */
    uint32_t *used;                       /* the slots filled, to clear only those */
    int has_max;
    size_t n;
    iolens_dxt_seg segs[SEG_BATCH];
};

static uint64_t mix(uint64_t id)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return id;
}

static void set_clear(iol_dxt_threads *t)
{
    for (size_t k = 0; k < t->n - (size_t)t->has_max; k++)
        t->slot[t->used[k]] = 0;
    t->has_max = 0;
    t->n = 0;
}

/* Add an id; -1 when the set is full. */
static int set_add(iol_dxt_threads *t, uint64_t id)
{
    if (id == UINT64_MAX) {
        t->n += !t->has_max;
        t->has_max = 1;
        return 0;
    }
    size_t mask = ((size_t)1 << SET_BITS) - 1, h = (size_t)mix(id) & mask;
    while (t->slot[h] && t->slot[h] != id + 1)
        h = (h + 1) & mask;
    if (!t->slot[h]) {
        if (t->n >= SET_MAX)
            return -1;
        t->slot[h] = id + 1;
        t->used[t->n - (size_t)t->has_max] = (uint32_t)h;
        t->n++;
    }
    return 0;
}

int iol_dxt_threads_open(iolens_log *log, int module, iol_dxt_threads **out)
{
    iol_dxt_threads *t = calloc(1, sizeof *t);
    *out = NULL;
    if (!t || !(t->slot = calloc((size_t)1 << SET_BITS, sizeof *t->slot)) ||
        !(t->used = malloc(SET_MAX * sizeof *t->used))) {
        if (t)
            free(t->slot);
        free(t);
        return IOLENS_E_NOMEM;
    }
    t->log = log;
    t->module = module;
    int rc = iolens_dxt_iter_open(log, module, &t->ahead);
    if (rc) {
        iol_dxt_threads_close(t);
        return rc;
    }
    *out = t;
    return IOLENS_OK;
}

void iol_dxt_threads_close(iol_dxt_threads *t)
{
    if (!t)
        return;
    iolens_dxt_iter_close(t->ahead);
    free(t->slot);
    free(t->used);
    free(t);
}

/* Distinct ids of the current record of `it` with mix(id) % parts == part.
 * Returns 0, 1 when the set overflowed, or an error. */
static int count_part(iol_dxt_threads *t, iolens_dxt_iter *it, uint64_t part, uint64_t parts)
{
    size_t got;
    int rc;
    set_clear(t);
    while ((rc = iolens_dxt_iter_segments(it, t->segs, SEG_BATCH, &got)) == IOLENS_OK && got)
        for (size_t k = 0; k < got; k++)
            if (mix(t->segs[k].thread_id ^ 0x5bd1e995) % parts == part &&
                set_add(t, t->segs[k].thread_id) != 0)
                return 1;
    return rc;
}

/* The hostile case: record `index` counted partition by partition, each pass on
 * a fresh iterator. */
static int count_partitioned(iol_dxt_threads *t, size_t index, size_t *count)
{
    for (uint64_t parts = 16;; parts *= 16) {
        size_t total = 0;
        int rc = 0;
        for (uint64_t part = 0; part < parts && rc == 0; part++) {
            iolens_dxt_iter *it;
            iolens_dxt_rec rec;
            if ((rc = iolens_dxt_iter_open(t->log, t->module, &it)) != IOLENS_OK)
                return rc;
            for (size_t i = 0; i <= index && rc == 0; i++)
                rc = iolens_dxt_iter_next(it, &rec) == 1 ? 0 : IOLENS_E_BAD_RECORD;
            if (rc == 0)
                rc = count_part(t, it, part, parts);
            iolens_dxt_iter_close(it);
            total += t->n;
        }
        if (rc < 0)
            return rc;
        if (rc == 0) {
            *count = total;
            return IOLENS_OK;
        }
    }
}

int iol_dxt_threads_next(iol_dxt_threads *t, size_t *count)
{
    iolens_dxt_rec rec;
    int rc = iolens_dxt_iter_next(t->ahead, &rec);
    if (rc != 1)
        return rc < 0 ? rc : IOLENS_E_BAD_RECORD;
    size_t index = t->index++;
    if (rec.write_count == 0 && rec.read_count == 0) {
        *count = 1;                   /* upstream prints 1 for a record without segments */
        return IOLENS_OK;
    }
    rc = count_part(t, t->ahead, 0, 1);
    if (rc == 1)
        return count_partitioned(t, index, count);
    *count = t->n;
    return rc;
}
