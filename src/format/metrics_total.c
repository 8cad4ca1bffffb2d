/* `--total` of darshan-parser (log-format spec 9.5; iolens/metrics.h): every
 * record of a module is folded, in file order, into one aggregate record
 * (printed by `iolens parse` as total_<COUNTER>).
 *
 * The fold is driven by the combine rule of each counter in the module tables
 * (iolens_module_info int_combine/flt_combine, generated from the .def files).
 * FIRST ("take one side": POSIX_MODE, DFS_CHUNK_SIZE, DAOS_OBJ_OTYPE, ...) is the
 * spec's "copy" class: upstream takes the side of the record being folded in, so
 * the total holds the last record's value.  Upstream's offline fold differs from
 * the runtime reduction in a few places, kept here as explicit exceptions:
 *   - SUM counters of POSIX, DFS and DAOS clamp a negative sum to -1 (not MPI-IO,
 *     STDIO);
 *   - DAOS_NB_OPS is never folded (stays 0), although its table rule is SUM;
 *   - MPI-IO skips a common-value block whose first value is 0;
 *   - fastest/slowest rank, slowest-call and variance counters are recomputed. */
#include <stdlib.h>
#include <string.h>
#include "metrics_internal.h"

/* The module prefix is the text up to the first '_' (POSIX_, MPIIO_, STDIO_, DFS_,
 * DAOS_: the modules with summaries; not meant for PNETCDF_FILE and the like). */
int iol_counter_index(const iolens_module_info *mi, int flt, const char *suffix)
{
    const char *const *names = flt ? mi->flt_names : mi->int_names;
    size_t n = flt ? mi->n_flt : mi->n_int, sl = strlen(suffix);
    for (size_t k = 0; k < n; k++) {
        const char *u = strchr(names[k], '_');
        /* the float table's names carry an extra "F_" after the module prefix */
        if (u && flt && strncmp(u + 1, "F_", 2) == 0)
            u += 2;
        if (u && strlen(u + 1) == sl && memcmp(u + 1, suffix, sl) == 0)
            return (int)k;
    }
    return -1;
}

/* Per-module fold plan, resolved once from the tables. */
enum fold_rule { F_SKIP, F_SUM, F_COPY, F_MAX, F_MIN_NZ, F_COMMON };

typedef struct plan {
    unsigned char irule[128], frule[64];
    int clamp;                     /* clamp negative sums to -1 */
    int mpiio_common;              /* skip a common block whose first value is 0 */
    int bytes_read, bytes_written, read_time, write_time, meta_time;
    int fast_rank, fast_bytes, slow_rank, slow_bytes, fast_time, slow_time;
    int max_read_time, max_write_time, max_read_size, max_write_size;
    int common[4], ncommon;        /* first index of each common-value block */
} plan;

static int int_rule(const iolens_module_info *mi, size_t k)
{
    if (!strcmp(mi->int_names[k], "DAOS_NB_OPS"))
        return F_SKIP;
    switch (mi->int_combine[k]) {
    case IOL_COMBINE_SUM: return F_SUM;
    case IOL_COMBINE_FIRST: return F_COPY;     /* the last record's value */
    case IOL_COMBINE_MAX: return F_MAX;
    case IOL_COMBINE_COMMON: return F_COMMON;
    default: return F_SKIP;     /* recomputed by the float rules below */
    }
}

static int flt_rule(const iolens_module_info *mi, size_t k)
{
    switch (mi->flt_combine[k]) {
    case IOL_COMBINE_SUM: return F_SUM;
    case IOL_COMBINE_MAX: return F_MAX;
    case IOL_COMBINE_MIN_NZ: return F_MIN_NZ;
    default: return F_SKIP;
    }
}

static int make_plan(plan *p, const iolens_module_info *mi)
{
    if (mi->n_int > sizeof p->irule || mi->n_flt > sizeof p->frule)
        return -1;
    p->ncommon = 0;
    for (size_t k = 0; k < mi->n_int; k++)
        p->irule[k] = (unsigned char)int_rule(mi, k);
    /* common-value blocks: runs of 8 COMMON counters (POSIX has two back to back) */
    for (size_t k = 0; k + 8 <= mi->n_int && p->ncommon < 4; k++)
        if (p->irule[k] == F_COMMON) {
            p->common[p->ncommon++] = (int)k;
            k += 7;
        }
    for (size_t k = 0; k < mi->n_flt; k++)
        p->frule[k] = (unsigned char)flt_rule(mi, k);
    p->clamp = mi->id == IOL_MOD_POSIX || mi->id == IOL_MOD_DFS || mi->id == IOL_MOD_DAOS;
    p->mpiio_common = mi->id == IOL_MOD_MPIIO;
    p->bytes_read = iol_counter_index(mi, 0, "BYTES_READ");
    p->bytes_written = iol_counter_index(mi, 0, "BYTES_WRITTEN");
    p->read_time = iol_counter_index(mi, 1, "READ_TIME");
    p->write_time = iol_counter_index(mi, 1, "WRITE_TIME");
    p->meta_time = iol_counter_index(mi, 1, "META_TIME");
    p->fast_rank = iol_counter_index(mi, 0, "FASTEST_RANK");
    p->fast_bytes = iol_counter_index(mi, 0, "FASTEST_RANK_BYTES");
    p->slow_rank = iol_counter_index(mi, 0, "SLOWEST_RANK");
    p->slow_bytes = iol_counter_index(mi, 0, "SLOWEST_RANK_BYTES");
    p->fast_time = iol_counter_index(mi, 1, "FASTEST_RANK_TIME");
    p->slow_time = iol_counter_index(mi, 1, "SLOWEST_RANK_TIME");
    p->max_read_time = iol_counter_index(mi, 1, "MAX_READ_TIME");
    p->max_write_time = iol_counter_index(mi, 1, "MAX_WRITE_TIME");
    p->max_read_size = iol_counter_index(mi, 0, "MAX_READ_TIME_SIZE");
    p->max_write_size = iol_counter_index(mi, 0, "MAX_WRITE_TIME_SIZE");
    if (p->bytes_read < 0 || p->bytes_written < 0 || p->read_time < 0 ||
        p->write_time < 0 || p->meta_time < 0 || p->fast_rank < 0 || p->fast_bytes < 0 ||
        p->slow_rank < 0 || p->slow_bytes < 0 || p->fast_time < 0 || p->slow_time < 0)
        return -1;
    return 0;
}

/* Merge one common-value block (4 values at a[i..i+3], 4 counts at a[i+4..i+7])
 * the way upstream does, including its quirks (spec 9.5 pseudo-code): the count is
 * truncated to 32 bits, and the refill loop may read past the value slots. */
static void merge_common(int64_t *a, const int64_t *r, int i, int mpiio)
{
    if (mpiio && r[i] == 0)
        return;
    int dup[4] = {0, 0, 0, 0};
    for (int j = i; j < i + 4; j++)
        for (int k = 0; k < 4; k++)
            if (a[i + k] == r[j]) {
                a[i + k + 4] = iol_add64(a[i + k + 4], r[j + 4]);
                dup[j - i] = 1;
            }
    for (int j = i; j < i + 4; j++) {
        if (dup[j - i])
            continue;
        if (r[j] == 0)
            return;
        int64_t total = r[j + 4];
        for (int k = 0; k < 4; k++)
            if (a[i + k] == r[j]) {
                total = iol_add64(a[i + k + 4], r[j + 4]);
                break;
            }
        total = (int32_t)total;
        int64_t tv[8], tc[8];
        int n = 0, k = 0;
        while (k < 4 && (a[i + k + 4] > total ||
                         (a[i + k + 4] == total && a[i + k] > r[j]))) {
            tv[n] = a[i + k];
            tc[n] = a[i + k + 4];
            n++;
            k++;
        }
        if (n == 4)
            return;
        tv[n] = r[j];
        tc[n] = r[j + 4];
        n++;
        /* k may run into the count slots (i+4..i+7), whose "counts" are then the
         * slots after the block (the aggregate has 8 spare slots at its end); the
         * bound only matters for hostile input with repeated values */
        while (n < 4 && k < 8) {
            if (a[i + k] != r[j]) {
                tv[n] = a[i + k];
                tc[n] = a[i + k + 4];
                n++;
            }
            k++;
        }
        for (; n < 4; n++)
            tv[n] = tc[n] = 0;
        for (int m = 0; m < 4; m++) {
            a[i + m] = tv[m];
            a[i + m + 4] = tc[m];
        }
    }
}

typedef struct agg {
    int64_t *a;
    double *f;
    int64_t rank;
    uint64_t id;
} agg;

static void fold_ints(const plan *p, const iolens_module_info *mi, agg *A,
                      const int64_t *r)
{
    for (size_t k = 0; k < mi->n_int; k++) {
        switch (p->irule[k]) {
        case F_SUM:
            A->a[k] = iol_add64(A->a[k], r[k]);
            if (p->clamp && A->a[k] < 0)
                A->a[k] = -1;
            break;
        case F_COPY: A->a[k] = r[k]; break;
        case F_MAX: if (r[k] > A->a[k]) A->a[k] = r[k]; break;
        default: break;
        }
    }
    for (int b = 0; b < p->ncommon; b++)
        merge_common(A->a, r, p->common[b], p->mpiio_common);
}

/* Fastest/slowest triple of a record (rule 1 of 9.5). */
typedef struct triple { int64_t rank, bytes; double time; } triple;

static void fold_flts(const plan *p, const iolens_module_info *mi, agg *A,
                      const int64_t *ri, const double *r, int64_t rrank, int init,
                      int same)
{
    triple fast, slow;
    if (rrank == -1) {
        fast = (triple){ri[p->fast_rank], ri[p->fast_bytes], r[p->fast_time]};
        slow = (triple){ri[p->slow_rank], ri[p->slow_bytes], r[p->slow_time]};
    } else {
        fast.rank = rrank;
        fast.bytes = iol_add64(ri[p->bytes_read], ri[p->bytes_written]);
        fast.time = (r[p->read_time] + r[p->write_time]) + r[p->meta_time];
        slow = fast;
    }
    for (size_t k = 0; k < mi->n_flt; k++) {
        double *f = &A->f[k];
        if ((int)k == p->max_read_time || (int)k == p->max_write_time) {
            int sz = (int)k == p->max_read_time ? p->max_read_size : p->max_write_size;
            if (r[k] > *f) {
                *f = r[k];
                if (sz >= 0)
                    A->a[sz] = ri[sz];
            }
        } else if ((int)k == p->fast_time || (int)k == p->slow_time) {
            int fastest = (int)k == p->fast_time;
            int rk = fastest ? p->fast_rank : p->slow_rank;
            int by = fastest ? p->fast_bytes : p->slow_bytes;
            const triple *c = fastest ? &fast : &slow;
            if (!same) {
                A->a[rk] = -1;
                A->a[by] = -1;
                *f = 0.0;
            } else if (init || (fastest ? c->time < *f : c->time > *f)) {
                A->a[rk] = c->rank;
                A->a[by] = c->bytes;
                *f = c->time;
            }
        } else {
            switch (p->frule[k]) {
            case F_SUM: *f += r[k]; break;
            case F_MAX: if (r[k] > *f) *f = r[k]; break;
            case F_MIN_NZ: if (r[k] > 0 && (*f == 0 || r[k] < *f)) *f = r[k]; break;
            default: *f = 0.0; break;   /* variances */
            }
        }
    }
}

struct iolens_total {
    const iolens_module_info *mi;
    plan p;
    agg A;
    uint64_t records;              /* records folded in */
};

int iolens_total_new(const iolens_module_info *mi, iolens_total **out)
{
    *out = NULL;
    if (!mi || !mi->summaries)
        return IOLENS_E_UNSUPPORTED;
    iolens_total *t = calloc(1, sizeof *t);
    if (!t)
        return IOLENS_E_NOMEM;
    t->mi = mi;
    if (make_plan(&t->p, mi) != 0) {
        free(t);
        return IOLENS_E_UNSUPPORTED;
    }
    /* 8 spare int slots: merge_common may read past a block (see above) */
    t->A.a = calloc(mi->n_int + 8, sizeof(int64_t));
    t->A.f = calloc(mi->n_flt + 1, sizeof(double));
    if (!t->A.a || !t->A.f) {
        iolens_total_free(t);
        return IOLENS_E_NOMEM;
    }
    *out = t;
    return IOLENS_OK;
}

void iolens_total_free(iolens_total *t)
{
    if (!t)
        return;
    free(t->A.a);
    free(t->A.f);
    free(t);
}

int iolens_total_add(iolens_total *t, const iolens_record *r)
{
    agg *A = &t->A;
    int init = t->records == 0;
    if (r->n_int != t->mi->n_int || r->n_flt != t->mi->n_flt)
        return IOLENS_E_INVALID_ARG;
    t->records++;
    if (init) {
        A->rank = r->rank;
        A->id = r->id;
    }
    int same = A->id == r->id;
    if (!same)
        A->id = 0;
    if (A->rank != r->rank)
        A->rank = -1;
    fold_ints(&t->p, t->mi, A, r->ints);
    fold_flts(&t->p, t->mi, A, r->ints, r->flts, r->rank, init, same);
    return IOLENS_OK;
}

void iolens_total_result_get(const iolens_total *t, iolens_total_result *out)
{
    out->module = t->mi;
    out->ints = t->A.a;
    out->flts = t->A.f;
    out->n_int = t->mi->n_int;
    out->n_flt = t->mi->n_flt;
    out->records = t->records;
}
