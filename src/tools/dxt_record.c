/* One DXT record as darshan-dxt-parser prints it (log-format spec section 10).
 *
 * Two layouts: records of the versions without thread ids (DXT_POSIX v1,
 * DXT_MPIIO v1/v2) are printed as the 3.5.0 release prints them (the upstream
 * reference outputs); the versions with thread ids (DXT_POSIX v2, DXT_MPIIO v3),
 * which 3.5.0 cannot read, are printed as upstream main prints them, with the
 * thread count line and the Pthread-ID column. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dxt_print.h"

/* The Lustre layout of one file: its components and OST ids. */
struct layout {
    size_t ncomp;
    const int64_t *comp;   /* LUSTRE_COMP_NUM_INDICES per component */
    size_t nost;
    const int64_t *ost;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct thread ids over the record's segments; 1 when there are none. */
static size_t thread_count(const iolens_dxt *d, size_t i)
{
    size_t lo = d->seg_start[i], n = d->seg_start[i + 1] - lo, distinct = 0;
    if (!d->thread_id || n == 0)
        return 1;
    uint64_t *ids = malloc(n * sizeof *ids);
    if (!ids)
        return 1;
    memcpy(ids, d->thread_id + lo, n * sizeof *ids);
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t k = 0; k < n; k++)
        distinct += k == 0 || ids[k] != ids[k - 1];
    free(ids);
    return distinct;
}

static void print_components(FILE *out, const struct layout *lo)
{
    size_t base = 0;
    fputs("# DXT, Lustre stripe components:\n", out);
    for (size_t c = 0; c < lo->ncomp; c++) {
        const int64_t *k = lo->comp + c * LUSTRE_COMP_NUM_INDICES;
        int64_t count = k[LUSTRE_COMP_STRIPE_COUNT];
        fprintf(out, "#\t[Component %zu] stripe_ext: %" PRId64 " - ", c + 1,
                k[LUSTRE_COMP_EXT_START]);
        if (k[LUSTRE_COMP_EXT_END] == -1)
            fputs("EOF", out);
        else
            fprintf(out, "%" PRId64, k[LUSTRE_COMP_EXT_END]);
        fprintf(out, ", stripe_size: %" PRId64 ", stripe_count: %" PRId64 ", OSTs:",
                k[LUSTRE_COMP_STRIPE_SIZE], count);
        for (int64_t j = 0; j < count && base + (size_t)j < lo->nost; j++)
            fprintf(out, " %" PRId64, lo->ost[base + (size_t)j]);
        fputc('\n', out);
        if (count > 0)
            base += (size_t)count;
    }
}

/* Walk state of one segment over the components (spec section 10): the current
 * offset and the number of OST ids printed so far carry from one component to
 * the next. */
struct ost_walk {
    int64_t cur, stop;
    int64_t printed;
};

/* OST ids of one component touched by the rest of the segment. */
static void print_component_osts(FILE *out, const int64_t *k, const int64_t *ost, size_t nost,
                                 struct ost_walk *w)
{
    int64_t size = k[LUSTRE_COMP_STRIPE_SIZE], count = k[LUSTRE_COMP_STRIPE_COUNT];
    int64_t start = k[LUSTRE_COMP_EXT_START], end = k[LUSTRE_COMP_EXT_END], rel;
    if (w->cur < start || (end != -1 && w->cur >= end) || size <= 0 ||
        __builtin_sub_overflow(w->cur, start, &rel))
        return;
    int64_t idx = (rel / size) % count;
    while (w->cur < w->stop && (end == -1 || w->cur < end)) {
        if ((size_t)idx < nost)
            fprintf(out, " [%" PRId64 "]", ost[idx]);
        idx = (idx + 1) % count;
        /* next stripe boundary; hostile values that overflow end the walk */
        if (__builtin_mul_overflow(rel / size + 1, size, &rel) ||
            __builtin_add_overflow(start, rel, &w->cur)) {
            w->cur = w->stop;
            break;
        }
        if (++w->printed >= count) {
            w->cur = end == -1 ? w->stop : end;
            break;
        }
    }
}

static void print_osts(FILE *out, const struct layout *lo, int64_t off, int64_t len)
{
    struct ost_walk w = {off, 0, 0};
    size_t base = 0;
    if (__builtin_add_overflow(off, len, &w.stop))
        w.stop = INT64_MAX;
    for (size_t c = 0; c < lo->ncomp; c++) {
        const int64_t *k = lo->comp + c * LUSTRE_COMP_NUM_INDICES;
        int64_t count = k[LUSTRE_COMP_STRIPE_COUNT];
        if (count > 0 && base < lo->nost)
            print_component_osts(out, k, lo->ost + base, lo->nost - base, &w);
        if (count > 0)
            base += (size_t)count;
    }
}

/* Mount point and fs type of a record name ("UNKNOWN" for both if none): the
 * first entry of the (sorted) mount table that is a byte prefix of the name. */
static void mount_of(const iolens_job *job, const char *name, const char **mnt,
                     const char **fstype)
{
    *mnt = *fstype = "UNKNOWN";
    if (!name)
        return;
    for (size_t i = 0; i < job->nmounts; i++) {
        const char *p = job->mounts[i].path;
        if (!strncmp(p, name, strlen(p))) {
            *mnt = p;
            *fstype = job->mounts[i].fstype;
            return;
        }
    }
}

static void print_header(FILE *out, iolens_log *log, const iolens_dxt *d, size_t i,
                         const struct layout *lo)
{
    const char *name = iolens_log_name(log, d->id[i]), *mnt, *fs;
    mount_of(iolens_log_job(log), name, &mnt, &fs);
    fprintf(out, "\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", d->id[i],
            name ? name : "(null)");
    fprintf(out, "# DXT, rank: %" PRId64 ", hostname: %s\n", d->rank[i], d->hostname[i]);
    if (d->thread_id)
        fprintf(out, "# DXT, number of threads: %zu\n", thread_count(d, i));
    fprintf(out, "# DXT, write_count: %" PRId64 ", read_count: %" PRId64 "\n",
            d->write_count[i], d->read_count[i]);
    fprintf(out, "# DXT, mnt_pt: %s, fs_type: %s\n", mnt, fs);
    if (lo)
        print_components(out, lo);
    fputs(d->thread_id ? "# Module    Rank  Wt/Rd  Segment          Offset          Length"
                         "    Start(s)      End(s)"
                       : "# Module    Rank  Wt/Rd  Segment          Offset       Length"
                         "    Start(s)      End(s)", out);
    if (lo)
        fputs("   [OST]", out);
    fputs(d->thread_id ? "   Pthread-ID\n" : "\n", out);
}

static void print_segment(FILE *out, const iolens_dxt *d, size_t i, size_t s, int write,
                          size_t num, const struct layout *lo)
{
    int posix = d->module == IOL_MOD_DXT_POSIX;
    fprintf(out, "%8s%8" PRId64 "%7s%9d%16" PRId64 "%16" PRId64 "%12.4f%12.4f",
            posix ? "X_POSIX" : "X_MPIIO", d->rank[i], write ? "write" : "read", (int)num,
            d->offset[s], d->length[s], d->start[s], d->end[s]);
    if (d->thread_id) {
        fputs("  ", out);
        if (lo) {
            print_osts(out, lo, d->offset[s], d->length[s]);
            if (lo->ncomp)
                fputs("  ", out);
        }
        fprintf(out, " %4" PRIu64 "\n", d->thread_id[s]);
        return;
    }
    if (posix) {
        fputs("   ", out);
        if (lo)
            print_osts(out, lo, d->offset[s], d->length[s]);
    }
    fputc('\n', out);
}

void iol_dxt_print_record(FILE *out, iolens_log *log, const iolens_dxt *d, size_t i,
                          const iolens_lustre *l, long li)
{
    struct layout lay, *lo = NULL;
    if (l && li >= 0 && d->module == IOL_MOD_DXT_POSIX) {
        size_t c0 = l->comp_start[li], o0 = l->ost_start[li];
        lay.ncomp = l->comp_start[li + 1] - c0;
        lay.comp = l->comp + c0 * LUSTRE_COMP_NUM_INDICES;
        lay.nost = l->ost_start[li + 1] - o0;
        lay.ost = l->ost + o0;
        lo = &lay;
    }
    print_header(out, log, d, i, lo);
    size_t s = d->seg_start[i];
    for (int64_t k = 0; k < d->write_count[i]; k++, s++)
        print_segment(out, d, i, s, 1, (size_t)k, lo);
    for (int64_t k = 0; k < d->read_count[i]; k++, s++)
        print_segment(out, d, i, s, 0, (size_t)k, lo);
}
