/* Counter arithmetic shared by the modules (runtime spec 2.0.4 - 2.0.6): clock
 * readings, timers, timestamps, size histograms and the "common value" trackers.
 * All inline: they run inside every wrapper.  Callers hold their module's lock
 * (except iol_span_*, which only read the wrapper's own stack). */
#ifndef IOLENS_RUNTIME_STATS_H
#define IOLENS_RUNTIME_STATS_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "rt.h"

/* The two clock readings around a real call, as raw ticks (rt.h iol_tick).
 * Wrappers keep the readings and the record step converts them (iol_span_ns),
 * so that the wrapper holds nothing live across the real call but one pointer. */
typedef struct iol_span {
    uint64_t a, b;
} iol_span;

static inline __attribute__((always_inline)) void iol_span_begin(iol_span *sp)
{
    sp->a = iol_tick();
}
static inline __attribute__((always_inline)) void iol_span_end(iol_span *sp)
{
    sp->b = iol_tick();
}
/* Both readings as nanoseconds since init, on one line (so d1 <= d2), refining
 * the line when it is due. */
static inline __attribute__((always_inline)) void iol_span_ns(const iol_span *sp, int64_t *d1,
                                                              int64_t *d2)
{
    const iol_clock_line *l = __atomic_load_n(&iol_clock_line_now, __ATOMIC_ACQUIRE);
    if (__builtin_expect(sp->b >= l->next, 0))
        iol_clock_refine(sp->b);
    *d1 = iol_tick_ns_on(l, sp->a);
    *d2 = iol_tick_ns_on(l, sp->b);
}
/* iol_span_ns without the test for a refinement, for the inlined data paths of
 * POSIX and STDIO: two instructions less per call.  Their lines are refined by
 * their heat maps' and DXT's out-of-line steps, by every open, close and stat,
 * and by anything else that converts with iol_span_ns or iol_tick_ns; a run
 * with none of those (heat maps off, one file open for hours) keeps its first
 * line, whose slope is off by less than 3e-4 (docs/runtime.md, "clock"). */
static inline __attribute__((always_inline)) void iol_span_ns_hot(const iol_span *sp, int64_t *d1,
                                                                  int64_t *d2)
{
    const iol_clock_line *l = __atomic_load_n(&iol_clock_line_now, __ATOMIC_ACQUIRE);
    *d1 = iol_tick_ns_on(l, sp->a);
    *d2 = iol_tick_ns_on(l, sp->b);
}
/* The same as seconds since init. */
static inline __attribute__((always_inline)) void iol_span_sec(const iol_span *sp, double *t1,
                                                               double *t2)
{
    int64_t d1, d2;
    iol_span_ns(sp, &d1, &d2);
    *t1 = (double)d1 * 1e-9;
    *t2 = (double)d2 * 1e-9;
}
static inline __attribute__((always_inline)) void iol_span_sec_hot(const iol_span *sp, double *t1,
                                                                   double *t2)
{
    int64_t d1, d2;
    iol_span_ns_hot(sp, &d1, &d2);
    *t1 = (double)d1 * 1e-9;
    *t2 = (double)d2 * 1e-9;
}

/* The body of a timed wrapper (every module's wrappers use it): `call` untimed
 * when not recording, else timed into sp and, when `ok` holds for ret, recorded
 * by `rec`.  The fast path (state IOL_ON) reads the fast ticks with no test of
 * the clock's mode; the call is written out twice for that. */
#define TIMED_BODY(type, call, ok, rec)                             \
    iol_span sp;                                                    \
    type ret;                                                       \
    if (__builtin_expect(iol_on_fast(), 1)) {                       \
        sp.a = iol_fast_tick();                                     \
        ret = call;                                                 \
        sp.b = iol_fast_tick();                                     \
    } else if (iol_on_slow()) {                                     \
        iol_span_begin(&sp);                                        \
        ret = call;                                                 \
        iol_span_end(&sp);                                          \
    } else {                                                        \
        return call;                                                \
    }                                                               \
    if (ok)                                                         \
        rec;                                                        \
    return ret

/* Runs a wrapper's record step with errno kept: the application sees the real
 * call's errno whatever the step does.  No comma in the expansion: the DAOS
 * wrappers pass it through a second macro level into TIMED_BODY's arguments
 * (glibc's __errno_location is const, so errno's address is still taken once). */
#define KEEP_ERRNO(stmt)                   \
    do {                                   \
        int e_ = errno;                    \
        stmt;                              \
        errno = e_;                        \
    } while (0)

/* TIMED_BODY for a function of IOL_ALWAYS_REAL (real.h), given as its name and
 * argument list: once iol_on() holds, the timed call goes straight through the
 * resolved pointer (IOL_REAL_ON), without IOL_REAL's resolution test. */
#define TIMED_CALL(type, fn, args, ok, rec)                         \
    iol_span sp;                                                    \
    type ret;                                                       \
    if (__builtin_expect(iol_on_fast(), 1)) {                       \
        sp.a = iol_fast_tick();                                     \
        ret = IOL_REAL_ON(fn) args;                                 \
        sp.b = iol_fast_tick();                                     \
    } else if (iol_on_slow()) {                                     \
        iol_span_begin(&sp);                                        \
        ret = IOL_REAL_ON(fn) args;                                 \
        iol_span_end(&sp);                                          \
    } else {                                                        \
        return IOL_REAL(fn) args;                                   \
    }                                                               \
    if (ok)                                                         \
        rec;                                                        \
    return ret

/* Seconds since init of nanoseconds since init (every runtime time is in this
 * form: dxt.h). */
static inline double iol_ns_sec(int64_t ns) { return (double)ns * 1e-9; }

/* True unless t1 or t2 is 0 ("unset", spec 2.0.4).  Times are multiples of about
 * 1e-9 s, so the product neither underflows to 0 nor is NaN: one multiply and
 * one compare instead of two compares with their parity checks. */
static inline int iol_times_set(double t1, double t2) { return t1 * t2 != 0; }

/* No-overlap accumulation of a category's time: each op adds only the part of
 * it after the latest end counted so far.  An op that ended before that (a
 * shorter call of another thread, recorded after the longer one) adds nothing;
 * upstream adds its end minus the latest end, a negative amount, which is how
 * threaded programs' logs get negative times (docs/deviations.md). */
static inline void iol_time_add(double *acc, double *last_end, double t1, double t2)
{
    if (!iol_times_set(t1, t2))
        return;
    double le = *last_end;
    if (t2 > le) {
        *acc += (t1 > le) ? t2 - t1 : t2 - le;
        *last_end = t2;
    }
}

/* iol_time_add of a wrapper's two readings. */
static inline void iol_time_add_span(double *acc, double *last_end, const iol_span *sp)
{
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    iol_time_add(acc, last_end, t1, t2);
}

/* iol_time_add on nanosecond readings (iol_span_ns), with the category's last end
 * kept in nanoseconds: the same rule as iol_time_add of the converted readings
 * (last_end_ns converts to the double iol_time_add would keep: both are the
 * running maximum of the ends, and the conversion is monotonic), with integer
 * tests, and each op's share taken as an exact nanosecond difference converted
 * once (one conversion, not two and a subtraction: the sum may differ from
 * iol_time_add's in its last bits, well below the 2^-20 s the log keeps).
 * Only for two fresh readings of the wrapper, so the spec's "time 0 = unset"
 * test (iol_times_set) is left out: such readings are never unset, and one that
 * falls on init's own first nanosecond counts as any other. */
static inline __attribute__((always_inline)) void iol_time_add_ns(double *acc, int64_t *last_end_ns,
                                                                   int64_t d1, int64_t d2)
{
    int64_t le = *last_end_ns;
    if (d2 > le) {
        *acc += iol_ns_sec(d2 - (d1 > le ? d1 : le));   /* exact difference, rounded once */
        *last_end_ns = d2;
    }
}

static inline void iol_stamp(double *start, double *end, double t1, double t2)
{
    if (*start == 0 || *start > t1)
        *start = t1;
    *end = t2;
}

/* Index 0..9 of the access-size histogram (spec 2.0.5), without a loop: each
 * power-of-two range [2^(L-1), 2^L) holds at most one bin edge, so the bin is the
 * range's first bin plus one if v is above that edge.  v >= 0. */
static inline int iol_size_bin(int64_t v)
{
#define NO_EDGE INT64_MAX
    static const uint8_t first[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3,
                                      3, 3, 4, 4, 4, 4, 5, 5, 6, 7, 7, 7, 8, 8, 8, 8};
    static const int64_t edge[32] = {
        NO_EDGE, NO_EDGE, NO_EDGE, NO_EDGE, NO_EDGE, NO_EDGE,
        NO_EDGE, 100, NO_EDGE, NO_EDGE, NO_EDGE, 1024,
        NO_EDGE, NO_EDGE, 10240, NO_EDGE, NO_EDGE, 102400,
        NO_EDGE, NO_EDGE, NO_EDGE, 1048576, NO_EDGE, 4194304,
        10485760, NO_EDGE, NO_EDGE, 104857600, NO_EDGE, NO_EDGE,
        NO_EDGE, 1073741824};
#undef NO_EDGE
    if (__builtin_expect(v <= 100, 1))
        return 0;
    int L = 64 - __builtin_clzll((uint64_t)v);     /* v in [2^(L-1), 2^L) */
    if (L >= 32)
        return 9;
    return first[L] + (v > edge[L]);
}

/* Distinct values with their frequencies: 32 per record, later ones ignored
 * (spec 2.0.6).  `lastval`/`last` cache the most recent hit; a tracker must be
 * set up with iol_cv_init (zeroed memory alone is not a valid tracker). */
#define IOL_CV_MAX 32
typedef struct iol_cv {
    int64_t lastval;         /* value at index `last`; -1 (never a value) when none */
    int last, n;
    int64_t val[IOL_CV_MAX];
    int64_t cnt[IOL_CV_MAX];
} iol_cv;

static inline void iol_cv_init(iol_cv *t) { t->lastval = -1; }

/* Find or insert v; returns its new count, or 0 when the tracker is full. */
static __attribute__((noinline, unused)) int64_t iol_cv_count_slow(iol_cv *t, int64_t v)
{
    int i = 0;
    while (i < t->n && t->val[i] != v)
        i++;
    if (i == t->n) {
        if (t->n == IOL_CV_MAX)
            return 0;
        t->val[i] = v;
        t->cnt[i] = 0;
        t->n++;
    }
    t->last = i;
    t->lastval = v;
    return ++t->cnt[i];
}

/* Put (v, f) into the four output slots, kept as the top four by count, then
 * value, descending; any older entry for v is dropped. */
static __attribute__((noinline, unused)) void iol_cv_show(int64_t v, int64_t f, int64_t *vals,
                                                          int64_t *cnts)
{
    /* v already shown and still not ahead of its predecessor: update in place. */
    for (int j = 1; j < 4; j++)
        if (vals[j] == v && cnts[j]) {
            if (cnts[j - 1] > f || (cnts[j - 1] == f && vals[j - 1] > v)) {
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

/* Count v (>= 0), then refresh the output slots (vals[0..3], cnts[0..3]).  Value 0
 * is tracked but never shown.  Fast path: the same value as last time, already
 * in the first slot (a steady access size) or 0 (consecutive access). */
static inline __attribute__((always_inline)) void iol_cv_add(iol_cv *t, int64_t v, int64_t *vals,
                                                              int64_t *cnts)
{
    int64_t f;
    if (__builtin_expect(t->lastval == v, 1))
        f = ++t->cnt[t->last];
    else if ((f = iol_cv_count_slow(t, v)) == 0)
        return;
    if (v == 0)
        return;
    if (__builtin_expect(vals[0] == v, 1)) {   /* the leader stays the leader */
        cnts[0] = f;
        return;
    }
    iol_cv_show(v, f, vals, cnts);
}
#endif
