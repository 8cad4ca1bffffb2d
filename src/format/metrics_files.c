/* `--file` of darshan-parser (log-format spec 9.6; iolens/metrics.h): per-file
 * access categories.  Files are keyed by record id in order of first appearance
 * (an open-addressing table keeps a million records linear). */
#include <stdlib.h>
#include <string.h>
#include "metrics_internal.h"

typedef struct file_acc { uint64_t id; int64_t r, w, m, p; } file_acc;

static void cat_add(iolens_file_category *c, const file_acc *f)
{
    c->count++;
    c->bytes = iol_add64(c->bytes, iol_add64(f->r, f->w));
    if (f->m == -1)
        c->max_offset = -1;
    else if (f->m > c->max_offset)
        c->max_offset = f->m;
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
struct iolens_files {
    iol_metric_cols c;          /* first: iol_metric_acc_new fills it */
    file_acc *files;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
};

int iolens_files_new(const iolens_module_info *mi, iolens_files **out)
{
    return iol_metric_acc_new(mi, sizeof **out, (void **)out);
}

void iolens_files_free(iolens_files *f)
{
    if (!f)
        return;
    free(f->files);
    free(f->slot);
    free(f);
}

static size_t find_slot(const iolens_files *f, uint64_t id)
{
    size_t h = hash_slot(id, f->mask);
    while (f->slot[h] && f->files[f->slot[h] - 1].id != id)
        h = (h + 1) & f->mask;
    return h;
}

/* Room for one more file: grow the array and, past half full, the table. */
static int files_room(iolens_files *f)
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

int iolens_files_add(iolens_files *f, const iolens_record *r)
{
    if (files_room(f) != 0)
        return IOLENS_E_NOMEM;
    size_t h = find_slot(f, r->id);
    if (!f->slot[h]) {
        f->files[f->n] = (file_acc){r->id, 0, 0, 0, 0};
        f->slot[h] = (uint32_t)++f->n;
    }
    file_acc *a = &f->files[f->slot[h] - 1];
    iol_record_metrics x = iol_record_metrics_get(&f->c, r);
    a->r = iol_add64(a->r, x.r);
    a->w = iol_add64(a->w, x.w);
    a->m = x.m == -1 ? -1 : (x.m > a->m ? x.m : a->m);
    a->p = x.p == -1 ? -1 : iol_add64(a->p, x.p);
    return 0;
}

/* The categories of darshan-parser, which prints "partially shared" files (several
 * per-rank records, no shared one) added into "shared", with their largest
 * offsets added too (a quirk kept: the line is upstream's). */
void iolens_files_result_get(const iolens_files *fs, iolens_files_result *out)
{
    iolens_file_category part = {0, 0, 0};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < fs->n; i++) {
        const file_acc *f = &fs->files[i];
        cat_add(&out->total, f);
        if (f->r > 0 && f->w == 0)
            cat_add(&out->read_only, f);
        else if (f->w > 0 && f->r == 0)
            cat_add(&out->write_only, f);
        else if (f->r > 0 && f->w > 0)
            cat_add(&out->read_write, f);
        if (f->p == 1)
            cat_add(&out->unique, f);
        else if (f->p == -1)
            cat_add(&out->shared, f);
        else
            cat_add(&part, f);
    }
    out->shared.count += part.count;
    out->shared.bytes = iol_add64(out->shared.bytes, part.bytes);
    out->shared.max_offset = iol_add64(out->shared.max_offset, part.max_offset);
}
