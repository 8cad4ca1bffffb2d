/* The bytes of a module's region at shutdown, shared by the per-process writer
 * (logwrite.c) and the collective one (mpi/logwrite_mpi.c).
 *
 * Times are rounded to multiples of 2^-20 s (0.95 us) on the way out.  The
 * runtime measures in whole nanoseconds, so a time such as 0.001976728 s fills
 * all 52 bits of a double's mantissa with digits that deflate cannot compress:
 * timers were about half of a log's bytes (docs/performance.md, "Log size").  A
 * multiple of 2^-20 of a time below an hour uses at most 32 mantissa bits and the
 * rest are zero.  The rounding is of the final values: an accumulated time is the
 * exact sum of its operations' nanoseconds, rounded once (error < 0.48 us per
 * counter), where upstream rounds every timestamp it reads to 2^-22 s of the epoch
 * and accumulates that error.  darshan-parser prints these counters to 1 us.
 * Variances are not times and are left as computed (from the rounded times, when
 * the MPI reduction makes them, so they keep the times' short mantissas); a
 * positive timestamp never rounds to 0, which readers take as "never happened".
 * Rounding twice changes nothing, so the collective writer rounds before its
 * reduction and again, harmlessly, in iol_mod_payload. */
#include <math.h>
#include <string.h>

#include "rt.h"
#include "iolens/log.h"

#define IOL_TIME_BITS 20

static double round_time(double v)
{
    double r = ldexp(rint(ldexp(v, IOL_TIME_BITS)), -IOL_TIME_BITS);
    return (r == 0 && v > 0) ? ldexp(1.0, -IOL_TIME_BITS) : r;
}

/* Contract: a counter module of the runtime keeps its f64 counters in table
 * order at the end of its record, before only the trailing bytes its layout
 * states (DFS, DAOS: uuids; iolens_module_layout_extras). */
static void round_times(int id, uint8_t *recs, size_t len, size_t rec_size)
{
    if (!recs)
        return;
    const iolens_module_info *mi = iolens_module_info_get(id);
    if (!mi || mi->kind != IOLENS_KIND_COUNTERS || !mi->n_flt || rec_size < 8 * mi->n_flt)
        return;
    int file_rec_id;
    size_t trailing = 0;
    if (iolens_module_layout_extras(id, &file_rec_id, &trailing) != 0 ||
        rec_size < 8 * mi->n_flt + trailing)
        return;
    size_t first = rec_size - trailing - 8 * mi->n_flt;
    for (size_t off = 0; off + rec_size <= len; off += rec_size)
        for (size_t k = 0; k < mi->n_flt; k++) {
            if (mi->flt_combine[k] == IOL_COMBINE_VARIANCE)
                continue;
            double v;
            uint8_t *p = recs + off + first + 8 * k;
            memcpy(&v, p, 8);
            v = round_time(v);
            memcpy(p, &v, 8);
        }
}

void iol_mod_round_times(iol_module *m)
{
    if (!m->d->own_memory)
        round_times(m->d->id, m->recs, m->count * m->d->rec_size, m->d->rec_size);
}

size_t iol_mod_payload(iol_module *m, void **payload)
{
    iol_mod_round_times(m);
    *payload = m->recs;
    size_t len = m->count * m->d->rec_size;
    if (m->d->output)
        len = m->d->output(m, payload);
    return len;
}
