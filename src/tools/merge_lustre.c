/* LUSTRE records of a merged log (merge_lustre.h). */
#include <stdlib.h>
#include <string.h>

#include "merge_lustre.h"
#include "merge_workflow.h"

/* One input record: where it is, its id, the rank it gets, whether it is kept. */
typedef struct entry {
    uint64_t id;
    size_t src, rec;
    int64_t rank;
    int take;
} entry;

static int by_id_then_src(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int by_src_then_rec(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int64_t placed_rank(const lustre_place *pl, size_t i, int64_t rank)
{
    if (pl->rank_as && pl->rank_as[i] >= 0)
        return pl->rank_as[i];
    return pl->workflow ? wf_rank(rank, pl->offset[i]) : rank;
}

/* Entries sorted by id: a group held once by every member becomes one shared
 * record (the first member's). */
static void reduce_groups(const lustre_place *pl, iolens_lustre *const *in, entry *e,
                          size_t count, size_t nmembers)
{
    for (size_t a = 0; a < count;) {
        size_t b = a, nmem = 0, first = 0;
        int distinct = 1;
        long last = -1;
        while (b < count && e[b].id == e[a].id)
            b++;
        for (size_t k = a; k < b; k++) {
            if (!pl->member[e[k].src])
                continue;
            distinct &= (long)e[k].src > last &&
                        (!pl->workflow || in[e[k].src]->rank[e[k].rec] == -1);
            last = (long)e[k].src;
            if (!nmem++)
                first = k;
        }
        if (nmem == nmembers && distinct) {
            for (size_t k = a; k < b; k++)
                if (pl->member[e[k].src] && k != first)
                    e[k].take = 0;
            e[first].rank = -1;
        }
        a = b;
    }
}

/* Record e->rec of its input appended to out (arrays sized for every record). */
static void append(iolens_lustre *out, iolens_lustre *const *in, const entry *e)
{
    const iolens_lustre *l = in[e->src];
    size_t r = e->rec, k = out->count++;
    size_t c0 = l->comp_start[r], nc = l->comp_start[r + 1] - c0;
    size_t o0 = l->ost_start[r], no = l->ost_start[r + 1] - o0;
    size_t oc = out->comp_start[k], oo = out->ost_start[k];
    out->id[k] = e->id;
    out->rank[k] = e->rank;
    out->num_comps[k] = (int64_t)nc;
    out->num_stripes[k] = (int64_t)no;
    memcpy(out->comp + oc * LUSTRE_COMP_NUM_INDICES, l->comp + c0 * LUSTRE_COMP_NUM_INDICES,
           nc * LUSTRE_COMP_NUM_INDICES * sizeof *out->comp);
    if (l->pool_name)
        memcpy(out->pool_name + oc, l->pool_name + c0, nc * sizeof *out->pool_name);
    memcpy(out->ost + oo, l->ost + o0, no * sizeof *out->ost);
    out->comp_start[k + 1] = oc + nc;
    out->ost_start[k + 1] = oo + no;
}

static int alloc_out(iolens_lustre *out, size_t n, size_t nc, size_t no)
{
    memset(out, 0, sizeof *out);
    out->id = calloc(n + 1, sizeof *out->id);
    out->rank = calloc(n + 1, sizeof *out->rank);
    out->num_comps = calloc(n + 1, sizeof *out->num_comps);
    out->num_stripes = calloc(n + 1, sizeof *out->num_stripes);
    out->comp_start = calloc(n + 1, sizeof *out->comp_start);
    out->ost_start = calloc(n + 1, sizeof *out->ost_start);
    out->comp = calloc(nc * LUSTRE_COMP_NUM_INDICES + 1, sizeof *out->comp);
    out->pool_name = calloc(nc + 1, sizeof *out->pool_name);
    out->ost = calloc(no + 1, sizeof *out->ost);
    return out->id && out->rank && out->num_comps && out->num_stripes && out->comp_start &&
           out->ost_start && out->comp && out->pool_name && out->ost ? IOLENS_OK : IOLENS_E_NOMEM;
}

static void free_out(iolens_lustre *out)
{
    free(out->id), free(out->rank), free(out->num_comps), free(out->num_stripes);
    free(out->comp_start), free(out->ost_start), free(out->comp), free(out->pool_name);
    free(out->ost);
}

/* Every input's records as entries with their placed ranks; *count set. */
static entry *entries_of(const lustre_place *pl, iolens_lustre *const *in, size_t n,
                         size_t *count)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += in[i] ? in[i]->count : 0;
    entry *e = malloc((total + 1) * sizeof *e);
    for (size_t i = 0; e && i < n; i++)
        for (size_t r = 0; in[i] && r < in[i]->count; r++)
            e[k++] = (entry){in[i]->id[r], i, r, placed_rank(pl, i, in[i]->rank[r]), 1};
    *count = k;
    return e;
}

static int write_entries(iolens_writer *w, const lustre_place *pl, iolens_lustre *const *in,
                         size_t n, entry *e, size_t count)
{
    size_t nmembers = 0, nc = 0, no = 0;
    for (size_t i = 0; i < n; i++) {
        nmembers += pl->member[i] != 0;
        nc += in[i] ? in[i]->comp_start[in[i]->count] : 0;
        no += in[i] ? in[i]->ost_start[in[i]->count] : 0;
    }
    if (pl->reduce && nmembers > 1) {
        qsort(e, count, sizeof *e, by_id_then_src);
        reduce_groups(pl, in, e, count, nmembers);
    }
    qsort(e, count, sizeof *e, by_src_then_rec);        /* back to input order */
    iolens_lustre out;
    int rc = alloc_out(&out, count, nc, no);
    for (int pass = 0; !rc && pass < 2; pass++)      /* shared records first */
        for (size_t k = 0; k < count; k++)
            if (e[k].take && (pass == 0) == (e[k].rank == -1))
                append(&out, in, &e[k]);
    if (!rc && out.count)
        rc = iolens_writer_put_lustre(w, &out);
    free_out(&out);
    return rc;
}

int merge_lustre(iolens_writer *w, iolens_log *const *logs, const lustre_place *pl, size_t n,
                 size_t *bad)
{
    iolens_lustre **in = calloc(n + 1, sizeof *in);
    int rc = in ? IOLENS_OK : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        if (iolens_log_header(logs[i])->mod[IOL_MOD_LUSTRE].len &&
            (rc = iolens_log_lustre(logs[i], &in[i])) != IOLENS_OK)
            *bad = i;
    size_t count = 0;
    entry *e = rc ? NULL : entries_of(pl, in, n, &count);
    if (!rc && !e)
        rc = IOLENS_E_NOMEM;
    if (!rc)
        rc = write_entries(w, pl, in, n, e, count);
    free(e);
    for (size_t i = 0; in && i < n; i++)
        iolens_lustre_free(in[i]);
    free(in);
    return rc;
}
