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

static metrics record_metrics(const cols *c, const iolens_record *r)
{
    const int64_t *iv = r->ints;
    const double *fv = r->flts;
    metrics x;
    x.r = iv[c->br];
    x.w = iv[c->bw];
    /* only POSIX and STDIO know offsets (they have MAX_BYTE_* counters) */
    if (c->mbr >= 0 && c->mbw >= 0)
        x.m = iv[c->mbr] > iv[c->mbw] ? iv[c->mbr] : iv[c->mbw];
    else
        x.m = -1;
    if (r->rank < 0) {
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

/* Files by record id in order of first appearance: the files array grows by
 * doubling, the slot table (u32 index + 1, 0 = empty) is kept at most half full. */
struct iol_files {
    cols c;
    file_acc *files;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
};

iol_files *iol_files_new(const iolens_module_info *mi)
{
    iol_files *f = calloc(1, sizeof *f);
    if (!f || get_cols(mi, &f->c) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

void iol_files_free(iol_files *f)
{
    if (!f)
        return;
    free(f->files);
    free(f->slot);
    free(f);
}

static size_t find_slot(const iol_files *f, uint64_t id)
{
    size_t h = hash_slot(id, f->mask);
    while (f->slot[h] && f->files[f->slot[h] - 1].id != id)
        h = (h + 1) & f->mask;
    return h;
}

/* Room for one more file: grow the array and, past half full, the table. */
static int files_room(iol_files *f)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 1024;
        file_acc *nf = cap < UINT32_MAX ? realloc(f->files, cap * sizeof *nf) : NULL;
        if (!nf)
            return IOLENS_E_NOMEM;
        f->files = nf;
        f->cap = cap;
    }
    if (f->slot && 2 * (f->n + 1) <= f->mask + 1)
        return 0;
    size_t slots = f->slot ? 2 * (f->mask + 1) : 2048;
    uint32_t *old = f->slot, *ns = calloc(slots, sizeof *ns);
    if (!ns)
        return IOLENS_E_NOMEM;
    f->slot = ns;
    f->mask = slots - 1;
    for (size_t i = 0; i < f->n; i++)
        f->slot[find_slot(f, f->files[i].id)] = (uint32_t)(i + 1);
    free(old);
    return 0;
}

int iol_files_add(iol_files *f, const iolens_record *r)
{
    if (files_room(f) != 0)
        return IOLENS_E_NOMEM;
    size_t h = find_slot(f, r->id);
    if (!f->slot[h]) {
        f->files[f->n] = (file_acc){r->id, 0, 0, 0, 0};
        f->slot[h] = (uint32_t)++f->n;
    }
    file_acc *a = &f->files[f->slot[h] - 1];
    metrics x = record_metrics(&f->c, r);
    a->r = iol_add64(a->r, x.r);
    a->w = iol_add64(a->w, x.w);
    a->m = x.m == -1 ? -1 : (x.m > a->m ? x.m : a->m);
    a->p = x.p == -1 ? -1 : iol_add64(a->p, x.p);
    return 0;
}

static void print_cat(iol_text *t, const char *label, int64_t count, int64_t bytes,
                      int64_t max)
{
    iol_text_printf(t, "# %s: %" PRId64 " %" PRId64 " %" PRId64 "\n", label, count,
                    bytes, max);
}

void iol_files_print(iol_text *t, const iol_files *fs)
{
    category all = {0}, ro = {0}, wo = {0}, rw = {0}, uniq = {0}, shared = {0},
             part = {0};
    for (size_t i = 0; i < fs->n; i++) {
        const file_acc *f = &fs->files[i];
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
}

/* ---------------------------------------------------------------- --perf */
typedef struct rank_time { int64_t rank; double io, meta, rw; } rank_time;   /* rank -1: free */

/* Per-rank times in a hash table of the ranks seen: memory follows the records,
 * never a rank or nprocs a hostile log claims (ranks at or above nprocs are
 * ignored, as darshan-parser ignores them). */
struct iol_perf {
    cols c;
    int64_t nprocs;
    rank_time *rt;
    size_t cap, used;           /* cap: 0 or a power of two */
    int64_t total_bytes;
    double shared_time;
};

iol_perf *iol_perf_new(const iolens_module_info *mi, int64_t nprocs)
{
    iol_perf *p = calloc(1, sizeof *p);
    if (!p || get_cols(mi, &p->c) != 0) {
        free(p);
        return NULL;
    }
    p->nprocs = nprocs;
    return p;
}

void iol_perf_free(iol_perf *p)
{
    if (!p)
        return;
    free(p->rt);
    free(p);
}

static rank_time *rank_find(rank_time *rt, size_t cap, int64_t rank)
{
    size_t i = ((uint64_t)rank * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
    while (rt[i].rank >= 0 && rt[i].rank != rank)
        i = (i + 1) & (cap - 1);
    return &rt[i];
}

static int rank_grow(iol_perf *p)
{
    size_t cap = p->cap ? p->cap * 2 : 64;
    rank_time *rt = cap < SIZE_MAX / sizeof *rt ? malloc(cap * sizeof *rt) : NULL;
    if (!rt)
        return IOLENS_E_NOMEM;
    for (size_t i = 0; i < cap; i++)
        rt[i].rank = -1;
    for (size_t i = 0; i < p->cap; i++)
        if (p->rt[i].rank >= 0)
            *rank_find(rt, cap, p->rt[i].rank) = p->rt[i];
    free(p->rt);
    p->rt = rt;
    p->cap = cap;
    return 0;
}

int iol_perf_add(iol_perf *p, const iolens_record *r)
{
    metrics x = record_metrics(&p->c, r);
    p->total_bytes = iol_add64(p->total_bytes, iol_add64(x.r, x.w));
    if (r->rank < 0) {
        p->shared_time += x.io;
        return 0;
    }
    if (r->rank >= p->nprocs)
        return 0;
    if (2 * (p->used + 1) > p->cap && rank_grow(p) != 0)
        return IOLENS_E_NOMEM;
    rank_time *q = rank_find(p->rt, p->cap, r->rank);
    if (q->rank < 0) {
        *q = (rank_time){ r->rank, 0, 0, 0 };
        p->used++;
    }
    q->io += x.io;
    q->meta += x.meta;
    q->rw += x.rw;
    return 0;
}

void iol_perf_print(iol_text *t, const iol_perf *p)
{
    /* the lowest rank of the largest I/O time, as a scan of ranks 0, 1, ... finds it */
    rank_time slow = { 0, 0, 0, 0 };
    for (size_t k = 0; k < p->cap; k++) {
        const rank_time *q = &p->rt[k];
        if (q->rank >= 0 && (q->io > slow.io || (q->io == slow.io && q->io > 0 &&
                                                  q->rank < slow.rank)))
            slow = *q;
    }
    int slow_rank = (int)slow.rank;
    int64_t total_bytes = p->total_bytes;
    double shared_time = p->shared_time;
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
}
