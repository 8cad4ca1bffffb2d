/* One DXT record as darshan-dxt-parser prints it (log-format spec section 10).
 *
 * Two layouts: records of the versions without thread ids (DXT_POSIX v1,
 * DXT_MPIIO v1/v2) are printed as the 3.5.0 release prints them (the upstream
 * reference outputs); the versions with thread ids (DXT_POSIX v2, DXT_MPIIO v3),
 * which 3.5.0 cannot read, are printed as upstream main prints them, with the
 * thread count line and the Pthread-ID column. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include "dxt_print.h"

static void print_components(iol_text *out, const iol_dxt_layout *lo)
{
    size_t base = 0;
    iol_text_puts(out, "# DXT, Lustre stripe components:\n");
    for (size_t c = 0; c < lo->ncomp; c++) {
        const int64_t *k = lo->comp + c * LUSTRE_COMP_NUM_INDICES;
        int64_t count = k[LUSTRE_COMP_STRIPE_COUNT];
        iol_text_printf(out, "#\t[Component %zu] stripe_ext: %" PRId64 " - ", c + 1,
                        k[LUSTRE_COMP_EXT_START]);
        if (k[LUSTRE_COMP_EXT_END] == -1)
            iol_text_puts(out, "EOF");
        else
            iol_text_i64(out, k[LUSTRE_COMP_EXT_END]);
        iol_text_printf(out, ", stripe_size: %" PRId64 ", stripe_count: %" PRId64 ", OSTs:",
                        k[LUSTRE_COMP_STRIPE_SIZE], count);
        for (int64_t j = 0; j < count && base + (size_t)j < lo->nost; j++)
            iol_text_printf(out, " %" PRId64, lo->ost[base + (size_t)j]);
        iol_text_putc(out, '\n');
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
static void print_component_osts(iol_text *out, const int64_t *k, const int64_t *ost, size_t nost,
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
            iol_text_printf(out, " [%" PRId64 "]", ost[idx]);
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

static void print_osts(iol_text *out, const iol_dxt_layout *lo, int64_t off, int64_t len)
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

void iol_dxt_print_header(iol_text *out, iolens_log *log, const iolens_dxt_rec *r,
                          size_t nthreads, const iol_dxt_layout *lo)
{
    const char *name = iolens_log_name(log, r->id), *mnt, *fs;
    mount_of(iolens_log_job(log), name, &mnt, &fs);
    iol_text_printf(out, "\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", r->id,
                    name ? name : "(null)");
    iol_text_printf(out, "# DXT, rank: %" PRId64 ", hostname: %s\n", r->rank, r->hostname);
    if (r->has_thread_id)
        iol_text_printf(out, "# DXT, number of threads: %zu\n", nthreads);
    iol_text_printf(out, "# DXT, write_count: %" PRId64 ", read_count: %" PRId64 "\n",
                    r->write_count, r->read_count);
    iol_text_printf(out, "# DXT, mnt_pt: %s, fs_type: %s\n", mnt, fs);
    if (lo)
        print_components(out, lo);
    iol_text_puts(out, r->has_thread_id
                  ? "# Module    Rank  Wt/Rd  Segment          Offset          Length"
                    "    Start(s)      End(s)"
                  : "# Module    Rank  Wt/Rd  Segment          Offset       Length"
                    "    Start(s)      End(s)");
    if (lo)
        iol_text_puts(out, "   [OST]");
    iol_text_puts(out, r->has_thread_id ? "   Pthread-ID\n" : "\n");
}

/* Right-justify n bytes of s in `width` columns at p; returns the end. */
static char *field(char *p, const char *s, size_t n, size_t width)
{
    for (size_t k = n; k < width; k++)
        *p++ = ' ';
    memcpy(p, s, n);
    return p + n;
}

/* One segment, "%8s%8" PRId64 "%7s%9d%16" PRId64 "%16" PRId64 "%12.4f%12.4f" and
 * its tail, formatted by hand: a long trace prints hundreds of millions. */
void iol_dxt_print_segment(iol_text *out, int module, const iolens_dxt_rec *r,
                           const iolens_dxt_seg *s, int write, int64_t num,
                           const iol_dxt_layout *lo)
{
    int posix = module == IOL_MOD_DXT_POSIX;
    char line[4 * IOL_FMT_F6_MAX], num_s[IOL_FMT_F6_MAX], *p = line;
    p = field(p, posix ? "X_POSIX" : "X_MPIIO", 7, 8);
    p = field(p, num_s, iol_fmt_i64(num_s, r->rank), 8);
    p = field(p, write ? "write" : "read", write ? 5 : 4, 7);
    p = field(p, num_s, iol_fmt_i64(num_s, (int)num), 9);
    p = field(p, num_s, iol_fmt_i64(num_s, s->offset), 16);
    p = field(p, num_s, iol_fmt_i64(num_s, s->length), 16);
    p = field(p, num_s, iol_fmt_f4(num_s, s->start), 12);
    p = field(p, num_s, iol_fmt_f4(num_s, s->end), 12);
    iol_text_put(out, line, (size_t)(p - line));
    if (r->has_thread_id) {
        iol_text_put(out, "  ", 2);
        if (lo) {
            print_osts(out, lo, s->offset, s->length);
            if (lo->ncomp)
                iol_text_put(out, "  ", 2);
        }
        p = line;
        *p++ = ' ';
        p = field(p, num_s, iol_fmt_u64(num_s, s->thread_id), 4);
        *p++ = '\n';
        iol_text_put(out, line, (size_t)(p - line));
        return;
    }
    if (posix) {
        iol_text_put(out, "   ", 3);
        if (lo)
            print_osts(out, lo, s->offset, s->length);
    }
    iol_text_putc(out, '\n');
}
