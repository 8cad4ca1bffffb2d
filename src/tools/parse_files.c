/* `--file` (log-format spec 9.6) and `--perf` (9.7) of darshan-parser: per-file
 * access categories and the job's I/O time/bandwidth estimate, for POSIX, MPI-IO,
 * STDIO, DFS and DAOS.  Files are keyed by record id in order of first
 * appearance (an open-addressing table keeps a million records linear). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

/* Per-record metrics shared by --file and --perf. */
typedef struct metrics {
    int64_t r, w, m, p;
    double io, meta, rw;
} metrics;

typedef struct cols {
    int br, bw, mbr, mbw, rt, wt, mt, slow;
} cols;

static int get_cols(const iolens_module_info *mi, cols *c)
{
    c->br = iol_counter_index(mi, 0, "BYTES_READ");
    c->bw = iol_counter_index(mi, 0, "BYTES_WRITTEN");
    c->mbr = iol_counter_index(mi, 0, "MAX_BYTE_READ");
    c->mbw = iol_counter_index(mi, 0, "MAX_BYTE_WRITTEN");
    c->rt = iol_counter_index(mi, 1, "READ_TIME");
    c->wt = iol_counter_index(mi, 1, "WRITE_TIME");
    c->mt = iol_counter_index(mi, 1, "META_TIME");
    c->slow = iol_counter_index(mi, 1, "SLOWEST_RANK_TIME");
    return c->br < 0 || c->bw < 0 || c->rt < 0 || c->wt < 0 || c->mt < 0 || c->slow < 0
               ? -1 : 0;
}

static metrics record_metrics(const cols *c, const iolens_records *r, size_t i)
{
    const int64_t *iv = r->ints + i * r->n_int;
    const double *fv = r->flts + i * r->n_flt;
    metrics x;
    x.r = iv[c->br];
    x.w = iv[c->bw];
    /* only POSIX and STDIO know offsets (they have MAX_BYTE_* counters) */
    if (c->mbr >= 0 && c->mbw >= 0)
        x.m = iv[c->mbr] > iv[c->mbw] ? iv[c->mbr] : iv[c->mbw];
    else
        x.m = -1;
    if (r->rank[i] < 0) {
        x.p = -1;
        x.io = fv[c->slow];
        x.meta = 0;
        x.rw = 0;
    } else {
        x.p = 1;
        x.io = (fv[c->mt] + fv[c->rt]) + fv[c->wt];
        x.meta = fv[c->mt];
        x.rw = fv[c->rt] + fv[c->wt];
    }
    return x;
}

/* ---------------------------------------------------------------- --file */
typedef struct file_acc { uint64_t id; int64_t r, w, m, p; } file_acc;

typedef struct category { int64_t count, bytes, max; } category;

static void cat_add(category *c, const file_acc *f)
{
    c->count++;
    c->bytes = iol_add64(c->bytes, iol_add64(f->r, f->w));
    if (f->m == -1)
        c->max = -1;
    else if (f->m > c->max)
        c->max = f->m;
}

static size_t hash_slot(uint64_t id, size_t mask)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)id & mask;
}

/* Group records by id (first-appearance order) into files[]; *nfiles is set. */
static int group_files(const cols *c, const iolens_records *r, file_acc **out,
                       size_t *nfiles)
{
    size_t cap = 16;
    while (cap < r->count * 2)
        cap <<= 1;
    size_t *slot = malloc(cap * sizeof *slot);
    file_acc *files = malloc((r->count + 1) * sizeof *files);
    if (!slot || !files) {
        free(slot);
        free(files);
        return IOLENS_E_NOMEM;
    }
    memset(slot, 0xff, cap * sizeof *slot);
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++) {
        size_t h = hash_slot(r->id[i], cap - 1);
        while (slot[h] != (size_t)-1 && files[slot[h]].id != r->id[i])
            h = (h + 1) & (cap - 1);
        if (slot[h] == (size_t)-1) {
            slot[h] = n;
            files[n++] = (file_acc){r->id[i], 0, 0, 0, 0};
        }
        file_acc *f = &files[slot[h]];
        metrics x = record_metrics(c, r, i);
        f->r = iol_add64(f->r, x.r);
        f->w = iol_add64(f->w, x.w);
        f->m = x.m == -1 ? -1 : (x.m > f->m ? x.m : f->m);
        f->p = x.p == -1 ? -1 : iol_add64(f->p, x.p);
    }
    free(slot);
    *out = files;
    *nfiles = n;
    return 0;
}

static void print_cat(iol_text *t, const char *label, int64_t count, int64_t bytes,
                      int64_t max)
{
    iol_text_printf(t, "# %s: %" PRId64 " %" PRId64 " %" PRId64 "\n", label, count,
                    bytes, max);
}

int iol_print_file(iol_text *t, const iolens_module_info *mi, const iolens_records *r)
{
    cols c;
    file_acc *files;
    size_t n;
    if (get_cols(mi, &c) != 0)
        return IOLENS_E_INVALID_ARG;
    int rc = group_files(&c, r, &files, &n);
    if (rc)
        return rc;
    category all = {0}, ro = {0}, wo = {0}, rw = {0}, uniq = {0}, shared = {0},
             part = {0};
    for (size_t i = 0; i < n; i++) {
        const file_acc *f = &files[i];
        cat_add(&all, f);
        if (f->r > 0 && f->w == 0)
            cat_add(&ro, f);
        else if (f->w > 0 && f->r == 0)
            cat_add(&wo, f);
        else if (f->r > 0 && f->w > 0)
            cat_add(&rw, f);
        if (f->p == 1)
            cat_add(&uniq, f);
        else if (f->p == -1)
            cat_add(&shared, f);
        else
            cat_add(&part, f);
    }
    free(files);
    iol_text_puts(t,
        "\n# Total file counts\n"
        "# -----\n"
        "# <file_type>: type of file access:\n"
        "#    *read_only: file was only read\n"
        "#    *write_only: file was only written\n"
        "#    *read_write: file was read and written\n"
        "#    *unique: file was opened by a single process only\n"
        "#    *shared: file was accessed by a group of processes (maybe all processes)\n"
        "# <file_count> total number of files of this type\n"
        "# <total_bytes> total number of bytes moved to/from files of this type\n"
        "# <max_byte_offset> maximum byte offset accessed for a file of this type\n"
        "\n# <file_type> <file_count> <total_bytes> <max_byte_offset>\n");
    print_cat(t, "total", all.count, all.bytes, all.max);
    print_cat(t, "read_only", ro.count, ro.bytes, ro.max);
    print_cat(t, "write_only", wo.count, wo.bytes, wo.max);
    print_cat(t, "read_write", rw.count, rw.bytes, rw.max);
    print_cat(t, "unique", uniq.count, uniq.bytes, uniq.max);
    print_cat(t, "shared", shared.count + part.count, iol_add64(shared.bytes, part.bytes),
              iol_add64(shared.max, part.max));
    return 0;
}

/* ---------------------------------------------------------------- --perf */
typedef struct rank_time { double io, meta, rw; } rank_time;

int iol_print_perf(iol_text *t, const iolens_module_info *mi, const iolens_records *r,
                   int64_t nprocs)
{
    cols c;
    if (get_cols(mi, &c) != 0)
        return IOLENS_E_INVALID_ARG;
    /* only ranks that have records can be the slowest, so size the per-rank table
     * by the largest rank seen (a hostile nprocs must not drive an allocation) */
    int64_t maxrank = -1;
    for (size_t i = 0; i < r->count; i++)
        if (r->rank[i] >= 0 && r->rank[i] < nprocs && r->rank[i] > maxrank)
            maxrank = r->rank[i];
    rank_time *rt = calloc((size_t)(maxrank + 1) + 1, sizeof *rt);
    if (!rt)
        return IOLENS_E_NOMEM;
    int64_t total_bytes = 0;
    double shared_time = 0;
    for (size_t i = 0; i < r->count; i++) {
        metrics x = record_metrics(&c, r, i);
        total_bytes = iol_add64(total_bytes, iol_add64(x.r, x.w));
        if (r->rank[i] < 0) {
            shared_time += x.io;
        } else if (r->rank[i] < nprocs) {
            rank_time *q = &rt[r->rank[i]];
            q->io += x.io;
            q->meta += x.meta;
            q->rw += x.rw;
        }
    }
    rank_time slow = {0, 0, 0};
    int slow_rank = 0;
    for (int64_t k = 0; k <= maxrank; k++)
        if (rt[k].io > slow.io) {
            slow = rt[k];
            slow_rank = (int)k;
        }
    free(rt);
    double agg_time = slow.io + shared_time;
    double agg_perf = agg_time != 0 ? ((double)total_bytes / 1048576.0) / agg_time : 0;
    iol_text_printf(t,
        "\n# performance\n"
        "# -----------\n"
        "# total_bytes: %" PRId64 "\n"
        "#\n"
        "# I/O timing for unique files (seconds):\n"
        "# ...........................\n"
        "# unique files: slowest_rank_io_time: %lf\n"
        "# unique files: slowest_rank_meta_only_time: %lf\n"
        "# unique files: slowest_rank_rw_only_time: %lf\n"
        "# unique files: slowest_rank: %d\n"
        "#\n"
        "# I/O timing for shared files (seconds):\n"
        "# ...........................\n"
        "# shared files: time_by_slowest: %lf\n"
        "#\n"
        "# Aggregate performance, including both shared and unique files:\n"
        "# ...........................\n"
        "# agg_time_by_slowest: %lf # seconds\n"
        "# agg_perf_by_slowest: %lf # MiB/s\n",
        total_bytes, slow.io, slow.meta, slow.rw, slow_rank, shared_time, agg_time,
        agg_perf);
    return 0;
}
