/* The data-operation counters the DFS and DAOS modules keep alike (upstream
 * updates them the same way in both): bytes, size bins, common sizes, read/write
 * switches, first/last timestamps, slowest op and no-overlap times.  Each module
 * names its counters' indices once (iol_daos_io_idx); callers hold the module
 * lock. */
#ifndef IOLENS_RUNTIME_DAOS_IO_H
#define IOLENS_RUNTIME_DAOS_IO_H

#include <string.h>

#include "../core/stats.h"

typedef struct iol_daos_io_idx {
    int bytes[2], size0[2], max_size[2];                    /* [0] read, [1] write */
    int start[2], end[2], max_time[2], time[2];             /* float counters */
    int access1, count1, rw_switches;
} iol_daos_io_idx;

enum { IOL_DAOS_LAST_NONE, IOL_DAOS_LAST_READ, IOL_DAOS_LAST_WRITE };

/* A record's runtime-only state (its aux); iol_cv_init'ed at registration. */
typedef struct iol_daos_io_state {
    iol_cv sizes;
    double last_meta_end, last_end[2];
    int last_io;
} iol_daos_io_state;

/* The modules' rec_init: a new record's size tracker. */
static inline void iol_daos_rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    (void)m, (void)name, (void)rec;
    iol_cv_init(&((iol_daos_io_state *)aux)->sizes);
}

static inline void iol_daos_io_count(const iol_daos_io_idx *ix, int64_t *c, double *f,
                                     iol_daos_io_state *s, int64_t bytes, int w, double t1,
                                     double t2)
{
    c[ix->bytes[w]] += bytes;
    c[ix->size0[w] + iol_size_bin(bytes)]++;
    iol_cv_add(&s->sizes, bytes, &c[ix->access1], &c[ix->count1]);
    if (s->last_io == (w ? IOL_DAOS_LAST_READ : IOL_DAOS_LAST_WRITE))
        c[ix->rw_switches]++;
    s->last_io = w ? IOL_DAOS_LAST_WRITE : IOL_DAOS_LAST_READ;
    iol_stamp(&f[ix->start[w]], &f[ix->end[w]], t1, t2);
    if (f[ix->max_time[w]] < t2 - t1) {
        f[ix->max_time[w]] = t2 - t1;
        c[ix->max_size[w]] = bytes;
    }
    iol_time_add(&f[ix->time[w]], &s->last_end[w], t1, t2);
}

/* An open or a close: its first-start/last-end stamps and its meta time. */
static inline void iol_daos_stamp_meta(double *f, int start, int end, int meta,
                                       double *last_meta_end, const iol_span *sp)
{
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_stamp(&f[start], &f[end], t1, t2);
    iol_time_add(&f[meta], last_meta_end, t1, t2);
}

/* The output of both modules: upstream writes only the records with an operation
 * beyond opening, one whose integer counter in one of the `n` index ranges
 * [first, last] is not 0.  The records are compacted in place; returns the
 * payload length. */
static inline size_t iol_daos_output_active(iol_module *m, const int (*ranges)[2], int n,
                                            void **payload)
{
    size_t kept = 0, size = m->d->rec_size;
    for (size_t i = 0; i < m->count; i++) {
        uint8_t *rec = m->recs + i * size;
        const int64_t *c = (const int64_t *)(rec + 16);
        int active = 0;
        for (int g = 0; g < n && !active; g++)
            for (int k = ranges[g][0]; k <= ranges[g][1] && !active; k++)
                active = c[k] != 0;
        if (!active)
            continue;
        if (kept != i)
            memmove(m->recs + kept * size, rec, size);
        kept++;
    }
    *payload = m->recs;
    return kept * size;
}

#endif
