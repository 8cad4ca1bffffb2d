/* Combining two processes' records of one file (runtime spec 3.3), driven only by
 * the combine column of the counter tables: no counter of any module is named here.
 * The roles a rule cannot express alone (which size goes with which slowest time,
 * which counters feed the per-process time and bytes) are found once per module
 * from the table's order and names, and cached.
 *
 * Thread safety: the layout cache is filled at most once per module with atomic
 * publication; every other function works only on its arguments. */
#include <string.h>

#include "iolens/log.h"

#define IOL_CV_GROUPS 4   /* POSIX: stride and access; others: one */
#define IOL_CV_SLOTS 4

typedef struct cv_group {
    int val0;     /* first value counter: slot k's tuple is val0 + k*width .. */
    int width;    /* values per slot (1, or 11 for H5D/PnetCDF access tuples) */
    int cnt0;     /* first count counter */
} cv_group;

typedef struct layout {
    int ready;                     /* 0 not yet, 1 usable, -1 not a counter module */
    int bytes_r, bytes_w;          /* int indices, -1 if absent */
    int time_r, time_w, time_m;    /* flt indices, -1 if absent */
    int nmax, max_size[2], max_time[2];  /* slowest-op size (int) with its time (flt) */
    int nrank, rank[2], rank_bytes[2], rank_time[2];  /* [0] fastest, [1] slowest */
    int nvar, var[2];              /* [0] time, [1] bytes */
    int ncv;
    cv_group cv[IOL_CV_GROUPS];
    int clamp_neg;                 /* a negative sum becomes -1 (POSIX) */
} layout;

static layout layouts[IOL_MAX_MODULES];

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int find_suffix(const char *const *names, size_t n, const char *suffix)
{
    for (size_t i = 0; i < n; i++)
        if (ends_with(names[i], suffix))
            return (int)i;
    return -1;
}

/* Common-value groups: a run of value counters (4 slots x width) followed by the
 * 4 count counters, all with rule COMMON. */
static void find_cv_groups(const iolens_module_info *mi, layout *L)
{
    size_t i = 0;
    while (i < mi->n_int && L->ncv < IOL_CV_GROUPS) {
        if (mi->int_combine[i] != IOL_COMBINE_COMMON || ends_with(mi->int_names[i], "_COUNT")) {
            i++;
            continue;
        }
        size_t v0 = i;
        while (i < mi->n_int && mi->int_combine[i] == IOL_COMBINE_COMMON &&
               !ends_with(mi->int_names[i], "_COUNT"))
            i++;
        size_t nval = i - v0;
        if (nval % IOL_CV_SLOTS || i + IOL_CV_SLOTS > mi->n_int)
            return;
        L->cv[L->ncv++] = (cv_group){ (int)v0, (int)(nval / IOL_CV_SLOTS), (int)i };
        i += IOL_CV_SLOTS;
    }
}

static void find_roles(const iolens_module_info *mi, layout *L)
{
    L->bytes_r = find_suffix(mi->int_names, mi->n_int, "_BYTES_READ");
    L->bytes_w = find_suffix(mi->int_names, mi->n_int, "_BYTES_WRITTEN");
    L->time_r = find_suffix(mi->flt_names, mi->n_flt, "_F_READ_TIME");
    L->time_w = find_suffix(mi->flt_names, mi->n_flt, "_F_WRITE_TIME");
    L->time_m = find_suffix(mi->flt_names, mi->n_flt, "_F_META_TIME");
    int nmaxt = 0, nrb = 0, nrt = 0;
    for (size_t i = 0; i < mi->n_int; i++) {
        int c = mi->int_combine[i];
        if (c == IOL_COMBINE_MAXTIME && L->nmax < 2)
            L->max_size[L->nmax++] = (int)i;
        else if (c == IOL_COMBINE_RANK && L->nrank < 2)
            L->rank[L->nrank++] = (int)i;
        else if (c == IOL_COMBINE_RANKBYTES && nrb < 2)
            L->rank_bytes[nrb++] = (int)i;
    }
    for (size_t i = 0; i < mi->n_flt; i++) {
        int c = mi->flt_combine[i];
        if (c == IOL_COMBINE_MAXTIME && nmaxt < 2)
            L->max_time[nmaxt++] = (int)i;
        else if (c == IOL_COMBINE_RANKTIME && nrt < 2)
            L->rank_time[nrt++] = (int)i;
        else if (c == IOL_COMBINE_VARIANCE && L->nvar < 2)
            L->var[L->nvar++] = (int)i;
    }
    if (nmaxt < L->nmax)
        L->nmax = nmaxt;
    if (nrb < L->nrank || nrt < L->nrank)
        L->nrank = 0;
}

static const layout *get_layout(int module, const iolens_module_info **mip)
{
    const iolens_module_info *mi = module >= 0 && module < IOL_MAX_MODULES
                                       ? iolens_module_info_get(module) : NULL;
    *mip = mi;
    if (!mi || mi->kind != IOLENS_KIND_COUNTERS || mi->n_int == 0)
        return NULL;
    layout *L = &layouts[module];
    if (__atomic_load_n(&L->ready, __ATOMIC_ACQUIRE) == 1)
        return L;
    /* Built in a local copy; concurrent first callers build identical copies. */
    static __thread layout tmp;
    memset(&tmp, 0, sizeof tmp);
    find_roles(mi, &tmp);
    find_cv_groups(mi, &tmp);
    tmp.clamp_neg = module == IOL_MOD_POSIX;
    int expect = 0;
    if (__atomic_compare_exchange_n(&L->ready, &expect, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        int r = 1;
        tmp.ready = 0;
        memcpy((char *)L + sizeof L->ready, (char *)&tmp + sizeof tmp.ready,
               sizeof tmp - sizeof tmp.ready);
        __atomic_store_n(&L->ready, r, __ATOMIC_RELEASE);
        return L;
    }
    return &tmp;
}

static double proc_time(const layout *L, const double *f)
{
    return (L->time_r >= 0 ? f[L->time_r] : 0) + (L->time_w >= 0 ? f[L->time_w] : 0) +
           (L->time_m >= 0 ? f[L->time_m] : 0);
}

static int64_t proc_bytes(const layout *L, const int64_t *v)
{
    return (L->bytes_r >= 0 ? v[L->bytes_r] : 0) + (L->bytes_w >= 0 ? v[L->bytes_w] : 0);
}

int iolens_combine_prepare(int module, int64_t rank, int64_t *ints, double *flts,
                           iolens_combine_acc *acc)
{
    const iolens_module_info *mi;
    const layout *L = get_layout(module, &mi);
    if (!L)
        return mi ? IOLENS_E_UNSUPPORTED : IOLENS_E_INVALID_ARG;
    double t = proc_time(L, flts);
    int64_t b = proc_bytes(L, ints);
    for (int k = 0; k < L->nrank; k++) {
        ints[L->rank[k]] = rank;
        ints[L->rank_bytes[k]] = b;
        flts[L->rank_time[k]] = t;
    }
    if (acc)
        *acc = (iolens_combine_acc){ 1, t, 0, (double)b, 0 };
    return IOLENS_OK;
}

/* ---- common values (spec 2.0.6): a set of up to 4 (tuple, count) slots ---- */
typedef struct cv_set {
    int n, w;
    int64_t val[IOL_CV_SLOTS][16];
    int64_t cnt[IOL_CV_SLOTS];
} cv_set;

static int tuple_eq(const int64_t *a, const int64_t *b, int w)
{
    return memcmp(a, b, (size_t)w * sizeof *a) == 0;
}

/* Insert (v, c): add mode adds c to an existing equal slot, set mode replaces its
 * count.  Slots stay ordered by count descending, then first value descending. */
static void cv_insert(cv_set *s, const int64_t *v, int64_t c, int add)
{
    int e = -1;
    for (int i = 0; i < s->n; i++)
        if (tuple_eq(s->val[i], v, s->w))
            e = i;
    int64_t f = (add && e >= 0) ? s->cnt[e] + c : c;
    cv_set out = { .n = 0, .w = s->w };
    int used[IOL_CV_SLOTS] = { 0 };
    for (int i = 0; i < s->n && out.n < IOL_CV_SLOTS; i++)
        if (i != e && (s->cnt[i] > f || (s->cnt[i] == f && s->val[i][0] > v[0]))) {
            memcpy(out.val[out.n], s->val[i], sizeof s->val[i]);
            out.cnt[out.n++] = s->cnt[i];
            used[i] = 1;
        }
    if (out.n < IOL_CV_SLOTS) {
        memcpy(out.val[out.n], v, (size_t)s->w * sizeof *v);
        out.cnt[out.n++] = f;
    }
    for (int i = 0; i < s->n && out.n < IOL_CV_SLOTS; i++)
        if (i != e && !used[i]) {
            memcpy(out.val[out.n], s->val[i], sizeof s->val[i]);
            out.cnt[out.n++] = s->cnt[i];
        }
    *s = out;
}

static void cv_load(cv_set *s, const cv_group *g, const int64_t *ints)
{
    memset(s, 0, sizeof *s);
    s->w = g->width;
    s->n = IOL_CV_SLOTS;
    for (int k = 0; k < IOL_CV_SLOTS; k++) {
        memcpy(s->val[k], ints + g->val0 + k * g->width, (size_t)g->width * sizeof *ints);
        s->cnt[k] = ints[g->cnt0 + k];
    }
}

static void cv_merge(const cv_group *g, const int64_t *in, int64_t *inout)
{
    if (g->width > 16)
        return;
    cv_set a, b, r = { .n = 0, .w = g->width };
    cv_load(&a, g, in);
    cv_load(&b, g, inout);
    for (int i = 0; i < IOL_CV_SLOTS; i++)          /* collapse equal values into a */
        for (int j = 0; j < IOL_CV_SLOTS; j++)
            if (a.cnt[i] && b.cnt[j] && tuple_eq(a.val[i], b.val[j], g->width)) {
                a.cnt[i] += b.cnt[j];
                b.cnt[j] = 0;
            }
    int add = g->width == 1;                        /* tuples insert with set mode */
    for (int i = 0; i < IOL_CV_SLOTS; i++)
        if (a.cnt[i])
            cv_insert(&r, a.val[i], a.cnt[i], add);
    for (int i = 0; i < IOL_CV_SLOTS; i++)
        if (b.cnt[i])
            cv_insert(&r, b.val[i], b.cnt[i], add);
    for (int k = 0; k < IOL_CV_SLOTS; k++) {
        int64_t *dst = inout + g->val0 + k * g->width;
        if (k < r.n) {
            memcpy(dst, r.val[k], (size_t)g->width * sizeof *dst);
            inout[g->cnt0 + k] = r.cnt[k];
        } else {
            memset(dst, 0, (size_t)g->width * sizeof *dst);
            inout[g->cnt0 + k] = 0;
        }
    }
}

/* ---- plain per-counter rules ---- */
static void combine_ints(const iolens_module_info *mi, const layout *L, const int64_t *in,
                         int64_t *io)
{
    for (size_t i = 0; i < mi->n_int; i++) {
        switch (mi->int_combine[i]) {
        case IOL_COMBINE_SUM:
            io[i] += in[i];
            if (L->clamp_neg && io[i] < 0)
                io[i] = -1;
            break;
        case IOL_COMBINE_MAX:
            if (in[i] > io[i])
                io[i] = in[i];
            break;
        case IOL_COMBINE_MIN_NZ:
            if ((in[i] && in[i] < io[i]) || io[i] == 0)
                io[i] = in[i];
            break;
        case IOL_COMBINE_FIRST:
            io[i] = in[i];
            break;
        case IOL_COMBINE_OR:
            io[i] = (in[i] || io[i]) ? 1 : 0;
            break;
        default:                 /* NONE keeps inout; the rest are handled by role */
            break;
        }
    }
}

static void combine_flts(const iolens_module_info *mi, const double *in, double *io)
{
    for (size_t i = 0; i < mi->n_flt; i++) {
        switch (mi->flt_combine[i]) {
        case IOL_COMBINE_SUM:
            io[i] += in[i];
            break;
        case IOL_COMBINE_MAX:
            if (in[i] > io[i])
                io[i] = in[i];
            break;
        case IOL_COMBINE_MIN_NZ:
            if ((in[i] > 0 && in[i] < io[i]) || io[i] == 0)
                io[i] = in[i];
            break;
        case IOL_COMBINE_FIRST:
            io[i] = in[i];
            break;
        default:
            break;
        }
    }
}

static void combine_roles(const layout *L, const int64_t *in, const double *inf, int64_t *io,
                          double *iof)
{
    for (int k = 0; k < L->nmax; k++)
        if (inf[L->max_time[k]] > iof[L->max_time[k]]) {
            iof[L->max_time[k]] = inf[L->max_time[k]];
            io[L->max_size[k]] = in[L->max_size[k]];
        }
    for (int k = 0; k < L->nrank; k++) {
        int t = L->rank_time[k];
        int take = k == 0 ? inf[t] < iof[t] : inf[t] > iof[t];
        if (take) {
            io[L->rank[k]] = in[L->rank[k]];
            io[L->rank_bytes[k]] = in[L->rank_bytes[k]];
            iof[t] = inf[t];
        }
    }
    for (int g = 0; g < L->ncv; g++)
        cv_merge(&L->cv[g], in, io);
}

/* Pairwise update of (n, sum, sum of squared deviations) (Chan et al.). */
static void var_merge(double n1, double t1, double s1, double n2, double *t2, double *s2)
{
    double n = n1 + n2;
    if (n1 > 0 && n2 > 0) {
        double d = (n2 / n1) * t1 - *t2;
        *s2 = s1 + *s2 + (n1 / (n2 * n)) * d * d;
    } else {
        *s2 = s1 + *s2;
    }
    *t2 += t1;
}

int iolens_combine_records(int module, const int64_t *in_ints, const double *in_flts,
                           const iolens_combine_acc *acc_in, int64_t *inout_ints,
                           double *inout_flts, iolens_combine_acc *acc_inout)
{
    const iolens_module_info *mi;
    const layout *L = get_layout(module, &mi);
    if (!L)
        return mi ? IOLENS_E_UNSUPPORTED : IOLENS_E_INVALID_ARG;
    combine_roles(L, in_ints, in_flts, inout_ints, inout_flts);
    combine_ints(mi, L, in_ints, inout_ints);
    combine_flts(mi, in_flts, inout_flts);
    if (acc_in && acc_inout) {
        var_merge(acc_in->n, acc_in->time_sum, acc_in->time_m2, acc_inout->n,
                  &acc_inout->time_sum, &acc_inout->time_m2);
        var_merge(acc_in->n, acc_in->bytes_sum, acc_in->bytes_m2, acc_inout->n,
                  &acc_inout->bytes_sum, &acc_inout->bytes_m2);
        acc_inout->n += acc_in->n;
    }
    return IOLENS_OK;
}

int iolens_combine_finish(int module, int64_t *ints, double *flts, const iolens_combine_acc *acc)
{
    const iolens_module_info *mi;
    const layout *L = get_layout(module, &mi);
    (void)ints;
    if (!L)
        return mi ? IOLENS_E_UNSUPPORTED : IOLENS_E_INVALID_ARG;
    if (!acc || acc->n <= 0)
        return IOLENS_E_INVALID_ARG;
    if (L->nvar > 0)
        flts[L->var[0]] = acc->time_m2 / acc->n;
    if (L->nvar > 1)
        flts[L->var[1]] = acc->bytes_m2 / acc->n;
    return IOLENS_OK;
}
