/* `iolens merge`: the logs of one job's processes (finished logs or safety
 * copies, e.g. the workers of a Python multiprocessing pool) into one log.
 *
 * Ranks (assign_ranks): inputs with nprocs > 1 are ranks of one job (an MPI
 * job's log or its recovered safety copies, or processes a launcher gave a rank:
 * RANK/WORLD_SIZE, SLURM_PROCID, ...) and keep their ranks; they are the job's
 * "world", of the largest nprocs among them (W).  A later input holding only a
 * rank already held (e.g. a worker that a ranked process forked, which inherits
 * its rank) and every single-process input (nprocs 1) get the ranks W, W+1, ...
 * in input order, so their records stay apart.  Job: the first input's, with
 * start = earliest, end = latest, nprocs = W + those extra processes.
 *
 * Reduction: the records of a file that every world rank has (every input, when
 * there is no world) are combined into one shared record (rank -1) with the
 * counter tables' combine rules (src/format/combine.c), as an MPI job's shared
 * files are; only when the world inputs are all W ranks.  --no-reduce keeps them
 * apart.  Counter modules are merged record by record; DXT traces are decoded
 * and re-encoded with their ranks renumbered and their thread ids kept; HEATMAP
 * records are renumbered and re-binned onto one grid (merge_heatmap.h); LUSTRE
 * layouts are decoded, renumbered and reduced as the counters are
 * (merge_lustre.h); other regions (opaque ones) are concatenated.  A region that
 * cannot be read fails the merge, naming the input: a merged log never leaves
 * out data silently.
 * Times: every input counts its timestamps, DXT segments and heat map bins from
 * its own process's start; the merged log counts them all from the job's start
 * (the earliest input's), so each input's are moved by its start's offset
 * (set_shifts, merge_times.h).  MDHIM records are decoded for that too.
 * --workflow merges logs of different jobs (merge_workflow.h, docs/convert.md);
 * without it, logs of different jobs are a usage error (their ranks collide):
 * different job ids, unless all are launcher ranks of one size (same_job). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "dxt_region_edit.h"
#include "iolens/counters.h"
#include "iolens/dxt_region.h"
#include "iolens/log.h"
#include "merge.h"
#include "merge_heatmap.h"
#include "merge_lustre.h"
#include "merge_times.h"
#include "merge_workflow.h"
#include "recover.h"
#include "safe_output.h"
#include "tools.h"

typedef struct input {
    iolens_log *log;
    const char *path;
    int64_t rank_as;       /* -2: keep the stored ranks */
    int64_t wf_offset;     /* --workflow: this job's first rank in the merged log; else -1 */
    int member;            /* one of the ranks whose common files are reduced */
    double shift;          /* seconds from the merged job's start to this input's start */
} input;

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens merge -o OUT [--no-reduce] [--allow-duplicates] [--workflow] LOG...\n"
                 "Merge the logs (or safety copies) of one job's processes into one log.\n"
                 "  -o, --output OUT  the merged log (must not exist; mode 0400)\n"
                 "  --no-reduce       keep every process's records of shared files\n"
                 "  --allow-duplicates  merge two logs of the same process (warning only)\n"
                 "  --workflow        the logs are of different jobs: number their ranks\n"
                 "                    one after the other (docs/convert.md); without it,\n"
                 "                    logs of different job ids are refused\n");
}

/* A record id with its position: sorting these by (id, position) groups equal
 * ids in a stable order in O(n log n) (a job of many processes has ~1,000
 * names and records per process, hundreds of thousands in all). */
typedef struct id_at {
    uint64_t id;
    size_t at;
} id_at;

static int by_id_then_at(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Every input's names, each id once (its first appearance, in input order). */
static int add_names(iolens_writer *w, input *in, size_t n)
{
    size_t total = 0, at = 0;
    for (size_t i = 0; i < n; i++)
        total += iolens_log_name_count(in[i].log);
    id_at *all = malloc((total + 1) * sizeof *all);
    char *first = calloc(total + 1, 1);
    int rc = all && first ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t k = 0; k < iolens_log_name_count(in[i].log); k++, at++) {
            const char *name;
            all[at].at = at;
            if (iolens_log_name_at(in[i].log, k, &all[at].id, &name) != 0)
                all[at] = (id_at){0, SIZE_MAX};   /* unreadable: never first */
        }
    if (!rc)
        qsort(all, total, sizeof *all, by_id_then_at);
    for (size_t k = 0; !rc && k < total; k++)
        if ((k == 0 || all[k].id != all[k - 1].id) && all[k].at != SIZE_MAX)
            first[all[k].at] = 1;
    at = 0;
    for (size_t i = 0; !rc && i < n; i++)
        for (size_t k = 0; !rc && k < iolens_log_name_count(in[i].log); k++, at++) {
            uint64_t id;
            const char *name;
            if (first[at] && iolens_log_name_at(in[i].log, k, &id, &name) == 0)
                rc = iolens_writer_add_name(w, id, name);
        }
    free(all);
    free(first);
    return rc;
}

/* All inputs' records of one counter module, ranks assigned, with what a record
 * carries besides its counters: the file's record id (H5D, PNETCDF_VAR) and the
 * DFS/DAOS object ids (aux). */
typedef struct pool {
    size_t count, n_int, n_flt, cap, aux_size;
    uint64_t *id, *frid;
    int64_t *rank;
    int *src;
    int64_t *ints;
    double *flts;
    uint8_t *aux;
    int workflow;          /* fold only records every job shares across its ranks (-1) */
} pool;

static int pool_add(pool *p, const iolens_records *r, size_t i, int64_t rank, int src)
{
    if (p->count == p->cap) {
        size_t c = p->cap ? 2 * p->cap : 64;
        uint64_t *id = realloc(p->id, c * 8);
        if (id) p->id = id;
        int64_t *rk = realloc(p->rank, c * 8);
        if (rk) p->rank = rk;
        int *s = realloc(p->src, c * sizeof *s);
        if (s) p->src = s;
        int64_t *ints = realloc(p->ints, c * p->n_int * 8 + 8);
        if (ints) p->ints = ints;
        double *flts = realloc(p->flts, c * p->n_flt * 8 + 8);
        if (flts) p->flts = flts;
        uint64_t *frid = realloc(p->frid, c * 8);
        if (frid) p->frid = frid;
        uint8_t *aux = realloc(p->aux, c * p->aux_size + 8);
        if (aux) p->aux = aux;
        if (!id || !rk || !s || !ints || !flts || !frid || !aux)
            return IOLENS_E_NOMEM;
        p->cap = c;
    }
    size_t k = p->count++;
    p->frid[k] = r->file_rec_id ? r->file_rec_id[i] : 0;
    if (p->aux_size)
        memset(p->aux + k * p->aux_size, 0, p->aux_size);
    if (p->aux_size && r->aux && r->aux_size == p->aux_size)
        memcpy(p->aux + k * p->aux_size, r->aux + i * r->aux_size, p->aux_size);
    p->id[k] = r->id[i];
    p->rank[k] = rank;
    p->src[k] = src;
    memcpy(p->ints + k * p->n_int, r->ints + i * r->n_int, p->n_int * 8);
    memcpy(p->flts + k * p->n_flt, r->flts + i * r->n_flt, p->n_flt * 8);
    return 0;
}

static void pool_free(pool *p)
{
    free(p->id), free(p->rank), free(p->src), free(p->ints), free(p->flts);
    free(p->frid), free(p->aux);
}

static int put_pool(iolens_writer *w, int module, uint32_t ver, pool *p, const char *take)
{
    iolens_records r;
    memset(&r, 0, sizeof r);
    r.module = module;
    r.stored_version = ver;
    r.n_int = p->n_int;
    r.n_flt = p->n_flt;
    r.id = malloc(p->count * 8 + 8);
    r.rank = malloc(p->count * 8 + 8);
    r.ints = malloc(p->count * p->n_int * 8 + 8);
    r.flts = malloc(p->count * p->n_flt * 8 + 8);
    r.file_rec_id = malloc(p->count * 8 + 8);
    r.aux_size = p->aux_size;
    r.aux = p->aux_size ? malloc(p->count * p->aux_size + 8) : NULL;
    int rc = (r.id && r.rank && r.ints && r.flts && r.file_rec_id && (r.aux || !r.aux_size))
                 ? 0 : IOLENS_E_NOMEM;
    for (int pass = 0; !rc && pass < 2; pass++)      /* shared records first */
        for (size_t i = 0; i < p->count; i++) {
            if (!take[i] || (pass == 0) != (p->rank[i] == -1))
                continue;
            size_t k = r.count++;
            r.id[k] = p->id[i];
            r.rank[k] = p->rank[i];
            r.file_rec_id[k] = p->frid[i];
            memcpy(r.ints + k * r.n_int, p->ints + i * p->n_int, r.n_int * 8);
            memcpy(r.flts + k * r.n_flt, p->flts + i * p->n_flt, r.n_flt * 8);
            if (r.aux)
                memcpy(r.aux + k * r.aux_size, p->aux + i * p->aux_size, r.aux_size);
        }
    if (!rc && r.count)
        rc = iolens_writer_put_records(w, &r);
    free(r.id), free(r.rank), free(r.ints), free(r.flts), free(r.file_rec_id), free(r.aux);
    return rc;
}

/* Fold every group of records of one id held by each of the `nmembers` member
 * inputs (exactly one record each) into its first member's record (rank -1); the
 * other members' records are not taken.  Records of other inputs stay. */
static int reduce(int module, pool *p, const input *in, size_t nmembers, char *take)
{
    size_t *ord = malloc(p->count * sizeof *ord + 8);
    id_at *key = malloc(p->count * sizeof *key + 8);
    if (!ord || !key) {
        free(ord), free(key);
        return IOLENS_E_NOMEM;
    }
    for (size_t i = 0; i < p->count; i++)
        key[i] = (id_at){p->id[i], i};
    qsort(key, p->count, sizeof *key, by_id_then_at);   /* group by id, stably */
    for (size_t i = 0; i < p->count; i++)
        ord[i] = key[i].at;
    free(key);
    int rc = 0;
    for (size_t a = 0; a < p->count && !rc;) {
        size_t b = a;
        while (b < p->count && p->id[ord[b]] == p->id[ord[a]])
            b++;
        /* ids are grouped stably, so the sources of a group ascend */
        size_t nmem = 0, first = 0;
        int distinct = 1, last_src = -1;
        for (size_t k = a; k < b; k++) {
            size_t o = ord[k];
            if (!in[p->src[o]].member)
                continue;
            distinct &= p->src[o] > last_src && (!p->workflow || p->rank[o] == -1);
            last_src = p->src[o];
            if (!nmem++)
                first = o;
        }
        if (nmem == nmembers && distinct) {  /* one record per member: shared by all */
            iolens_combine_acc acc, acc2;
            rc = iolens_combine_prepare(module, p->rank[first], p->ints + first * p->n_int,
                                        p->flts + first * p->n_flt, &acc);
            for (size_t k = a; !rc && k < b; k++) {
                size_t o = ord[k];
                if (o == first || !in[p->src[o]].member)
                    continue;
                rc = iolens_combine_prepare(module, p->rank[o], p->ints + o * p->n_int,
                                            p->flts + o * p->n_flt, &acc2);
                if (!rc)
                    rc = iolens_combine_records(module, p->ints + o * p->n_int,
                                                p->flts + o * p->n_flt, &acc2,
                                                p->ints + first * p->n_int,
                                                p->flts + first * p->n_flt, &acc);
                take[o] = 0;
            }
            if (!rc)
                rc = iolens_combine_finish(module, p->ints + first * p->n_int,
                                           p->flts + first * p->n_flt, &acc);
            p->rank[first] = -1;
            p->src[first] = -1;        /* combined: belongs to no single input */
        }
        a = b;
    }
    free(ord);
    return rc == IOLENS_E_UNSUPPORTED ? 0 : rc;
}

static int merge_counters(iolens_writer *w, int module, input *in, size_t n, int do_reduce,
                          size_t *bad)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    pool p;
    memset(&p, 0, sizeof p);
    p.n_int = mi->n_int;
    p.n_flt = mi->n_flt;
    int has_frid;
    if (iolens_module_layout_extras(module, &has_frid, &p.aux_size) != 0)
        p.aux_size = 0;
    /* timestamps moved to the job's start as they are pooled, so that reduce()'s
     * combine rules (MIN_NZ, MAX) compare times on one clock */
    char *is_stamp = merge_timestamp_columns(mi);
    int rc = is_stamp ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        iolens_records *r = NULL;
        if (!iolens_log_header(in[i].log)->mod[module].len)
            continue;
        if ((rc = iolens_log_records(in[i].log, module, &r)) != IOLENS_OK) {
            *bad = i;                   /* never merged without it: the log would lie */
            break;
        }
        for (size_t k = 0; !rc && k < r->count; k++) {
            const int64_t *ints = r->ints + k * r->n_int;
            if (module == IOL_MOD_STDIO &&
                iolens_stdio_idle_std_stream(r->id[k], ints[STDIO_READS], ints[STDIO_WRITES]))
                continue;
            /* --workflow: stored ranks until reduce() has seen which are shared */
            rc = pool_add(&p, r, k, in[i].rank_as >= 0 ? in[i].rank_as : r->rank[k], (int)i);
            if (!rc)
                merge_shift_timestamps(is_stamp, p.n_flt, p.flts + (p.count - 1) * p.n_flt,
                                       in[i].shift);
        }
        iolens_records_free(r);
    }
    char *take = malloc(p.count + 1);
    if (!take)
        rc = IOLENS_E_NOMEM;
    else
        memset(take, 1, p.count + 1);
    p.workflow = in[0].wf_offset >= 0;
    size_t nmembers = 0;
    for (size_t i = 0; i < n; i++)
        nmembers += in[i].member != 0;
    if (!rc && do_reduce && nmembers > 1)
        rc = reduce(module, &p, in, nmembers, take);
    for (size_t i = 0; !rc && p.workflow && i < p.count; i++)
        if (p.src[i] >= 0)
            p.rank[i] = wf_rank(p.rank[i], in[p.src[i]].wf_offset);
    if (!rc)
        rc = put_pool(w, module, mi->version, &p, take);
    free(take);
    free(is_stamp);
    pool_free(&p);
    return rc;
}

/* The segments' regions (dxt_region_edit.h): concatenated, each input's ranks
 * moved as merge_dxt moves its DXT records' ranks (wf_merge_dxt's rule). */
typedef struct rank_move {
    int64_t offset, rank_as;
} rank_move;

static int64_t moved_rank(const void *ctx, int64_t rank)
{
    const rank_move *m = ctx;
    return m->rank_as >= 0 ? m->rank_as : wf_rank(rank, m->offset);
}

/* One input's DXT_REGION bytes, edited in place; *kept gets their new length. */
static int move_dxt_regions(uint8_t *p, size_t len, const input *in, size_t *kept)
{
    rank_move mv = {in->wf_offset >= 0 ? in->wf_offset : 0, in->rank_as};
    iol_dxt_region_edit e = {&mv, NULL, NULL, moved_rank};
    return iol_dxt_region_edit_run(p, len, &e, kept);
}

/* Modules of no known kind: regions concatenated; each input's bytes edited by
 * `edit` when given (DXT_REGION: move_dxt_regions). */
typedef int (*raw_edit)(uint8_t *p, size_t len, const input *in, size_t *kept);
static int merge_raw(iolens_writer *w, int module, input *in, size_t n, size_t *bad,
                     raw_edit edit)
{
    size_t total = 0, at = 0;
    uint32_t ver = 0;
    for (size_t i = 0; i < n; i++)
        total += iolens_log_header(in[i].log)->mod[module].len;
    uint8_t *buf = malloc(total + 1);
    if (!buf)
        return IOLENS_E_NOMEM;
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const void *p;
        size_t len;
        if (!iolens_log_header(in[i].log)->mod[module].len)
            continue;
        if ((rc = iolens_log_region(in[i].log, module, &p, &len)) != IOLENS_OK) {
            *bad = i;
            break;
        }
        if (at + len > total) {
            uint8_t *b = realloc(buf, at + len);
            if (!b) {
                rc = IOLENS_E_NOMEM;
                break;
            }
            buf = b;
            total = at + len;
        }
        memcpy(buf + at, p, len);
        if (edit && (rc = edit(buf + at, len, &in[i], &len)) != IOLENS_OK) {
            *bad = i;
            break;
        }
        at += len;
        ver = iolens_log_header(in[i].log)->mod_ver[module];
    }
    if (!rc && at)
        rc = iolens_writer_put_region(w, module, ver, buf, at);
    free(buf);
    return rc;
}

static iolens_job merged_job(input *in, size_t n)
{
    iolens_job job = *iolens_log_job(in[0].log);
    int64_t singles = 0, mpi = 0;    /* MPI inputs are ranks of one job: its nprocs */
    for (size_t i = 0; i < n; i++) {
        const iolens_job *j = iolens_log_job(in[i].log);
        int64_t es = j->end_sec, en = j->end_nsec;
        struct stat st;
        if (es == 0 && stat(in[i].path, &st) == 0) {   /* a safety copy: its last write */
            es = st.st_mtim.tv_sec;
            en = st.st_mtim.tv_nsec;
        }
        if (j->start_sec < job.start_sec || (j->start_sec == job.start_sec && j->start_nsec < job.start_nsec)) {
            job.start_sec = j->start_sec;
            job.start_nsec = j->start_nsec;
        }
        if (es > job.end_sec || (es == job.end_sec && en > job.end_nsec)) {
            job.end_sec = es;
            job.end_nsec = en;
        }
        if (in[i].rank_as >= 0)
            singles++;
        else if (j->nprocs > mpi)
            mpi = j->nprocs;
    }
    job.nprocs = singles + mpi;
    size_t l = strlen(job.metadata);
    snprintf(job.metadata + l, sizeof job.metadata - l, "merged=%zu\n", n);
    return job;
}

/* --workflow: each job's ranks after those of the jobs before it. */
static int64_t workflow_nprocs(input *in, size_t n)
{
    iolens_log **logs = malloc(n * sizeof *logs);
    int64_t *off = malloc(n * sizeof *off), total = -1;
    if (logs && off) {
        for (size_t i = 0; i < n; i++)
            logs[i] = in[i].log;
        total = wf_offsets(logs, n, off);
        for (size_t i = 0; i < n; i++) {
            in[i].wf_offset = off[i];
            in[i].rank_as = -2;
            in[i].member = 1;
        }
    }
    free(logs), free(off);
    return total;
}

/* Each input's start, in seconds after the merged job's (merged_job: the
 * earliest input's): what its timestamps, DXT segments and heat map bins, all
 * counted from its own process's start, are moved by.  With --workflow too: a
 * workflow's jobs are then on the first job's clock, one timeline. */
static void set_shifts(input *in, size_t n, const iolens_job *job)
{
    for (size_t i = 0; i < n; i++) {
        const iolens_job *j = iolens_log_job(in[i].log);
        in[i].shift = (double)(j->start_sec - job->start_sec) +
                      (double)(j->start_nsec - job->start_nsec) * 1e-9;
    }
}

/* HEATMAP records with their inputs' ranks, on one grid from the job's start. */
static int merge_heatmap(iolens_writer *w, input *in, size_t n, size_t *bad)
{
    iolens_log **logs = malloc(n * sizeof *logs);
    int64_t *off = malloc(n * sizeof *off), *rank_as = malloc(n * sizeof *rank_as);
    double *shift = malloc(n * sizeof *shift);
    int rc = logs && off && rank_as && shift ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        logs[i] = in[i].log;
        off[i] = in[i].wf_offset >= 0 ? in[i].wf_offset : 0;
        rank_as[i] = in[i].rank_as;
        shift[i] = in[i].shift;
    }
    if (!rc)
        rc = merge_heatmaps(w, logs, shift, rank_as, off, n, bad);
    free(logs), free(off), free(rank_as), free(shift);
    return rc;
}

/* DXT traces with the ranks their inputs' records get and their segments' times
 * moved to the job's start (decoded: the raw regions carry their ranks inside,
 * and their stored versions may differ). */
static int merge_dxt(iolens_writer *w, int module, input *in, size_t n, size_t *bad)
{
    iolens_log **logs = malloc(n * sizeof *logs);
    int64_t *off = malloc(n * sizeof *off), *rank_as = malloc(n * sizeof *rank_as);
    double *shift = malloc(n * sizeof *shift);
    int rc = logs && off && rank_as && shift ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        logs[i] = in[i].log;
        off[i] = in[i].wf_offset >= 0 ? in[i].wf_offset : 0;
        rank_as[i] = in[i].rank_as;
        shift[i] = in[i].shift;
    }
    if (!rc)
        rc = wf_merge_dxt(w, module, logs, (dxt_place){off, rank_as, shift}, n, bad);
    free(logs), free(off), free(rank_as), free(shift);
    return rc;
}

/* MDHIM records with their timestamps moved to the job's start (merge_times.h). */
static int merge_mdhim_records(iolens_writer *w, input *in, size_t n, size_t *bad)
{
    iolens_log **logs = malloc(n * sizeof *logs);
    double *shift = malloc(n * sizeof *shift);
    int rc = logs && shift ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        logs[i] = in[i].log;
        shift[i] = in[i].shift;
    }
    if (!rc)
        rc = merge_mdhim(w, logs, shift, n, bad);
    free(logs), free(shift);
    return rc;
}

/* LUSTRE records with their inputs' ranks, a file every member holds reduced to
 * one shared record as the counters are (decoded: versions may differ). */
static int merge_layouts(iolens_writer *w, input *in, size_t n, int do_reduce, size_t *bad)
{
    iolens_log **logs = malloc(n * sizeof *logs);
    int64_t *off = malloc(n * sizeof *off), *rank_as = malloc(n * sizeof *rank_as);
    char *member = malloc(n);
    int rc = logs && off && rank_as && member ? 0 : IOLENS_E_NOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        logs[i] = in[i].log;
        off[i] = in[i].wf_offset;
        rank_as[i] = in[i].rank_as;
        member[i] = (char)in[i].member;
    }
    lustre_place pl = {rank_as, off, member, in[0].wf_offset >= 0, do_reduce};
    if (!rc)
        rc = merge_lustre(w, logs, &pl, n, bad);
    free(logs), free(off), free(rank_as), free(member);
    return rc;
}

/* The one rank all counter records of a log carry, -1 when they carry several
 * (a whole MPI job's log) and -2 when there are none. */
static int64_t single_rank(iolens_log *log)
{
    int64_t rank = -2;
    for (int m = 0; m < IOL_MAX_MODULES && rank != -1; m++) {
        const iolens_module_info *mi = iolens_module_info_get(m);
        iolens_records *r = NULL;
        if (!mi || mi->kind != IOLENS_KIND_COUNTERS || !iolens_log_header(log)->mod[m].len ||
            iolens_log_records(log, m, &r) != 0 || !r)
            continue;
        for (size_t k = 0; k < r->count && rank != -1; k++)
            rank = rank == -2 || rank == r->rank[k] ? r->rank[k] : -1;
        iolens_records_free(r);
    }
    return rank < -2 ? -1 : rank;
}

/* The ranks of a job's processes (see the top of this file).  Inputs are in the
 * order that decides which of two holders of one rank keeps it: the first.
 * IOLENS_E_BAD_JOB when an input claims more processes than any job has. */
#define MAX_NPROCS (INT64_C(1) << 26)
static int assign_ranks(input *in, size_t n)
{
    int64_t world = 0, nworld = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t np = iolens_log_job(in[i].log)->nprocs;
        if (np > MAX_NPROCS)
            return IOLENS_E_BAD_JOB;
        if (np > world && np > 1)
            world = np;
    }
    char *held = calloc((size_t)world + 1, 1);
    if (!held)
        return IOLENS_E_NOMEM;
    int64_t next = world;
    for (size_t i = 0; i < n; i++) {
        int64_t np = iolens_log_job(in[i].log)->nprocs, r = np > 1 ? single_rank(in[i].log) : -1;
        in[i].member = 0;
        if (np > 1 && r == -2) {
            in[i].rank_as = -2;            /* a rank that recorded nothing: not shared */
        } else if (np > 1 && (r < 0 || r >= world || !held[r])) {
            in[i].rank_as = -2;            /* a rank of the job (or all of them) */
            in[i].member = 1;
            nworld += r >= 0 && r < world ? 1 : np;
            if (r >= 0 && r < world)
                held[r] = 1;
        } else {
            in[i].rank_as = next++;        /* one more process */
        }
    }
    free(held);
    for (size_t i = 0; i < n; i++)
        if (world == 0)                    /* no ranks at all: every process counts */
            in[i].member = 1;
        else if (nworld != world)          /* ranks are missing: nothing is shared by all */
            in[i].member = 0;
    return 0;
}

/* Why a merge failed, never empty: an input that could not be read (named in
 * *where, with the reader's detail), else the writer's detail, else the code's
 * text (*where stays the output). */
static void failure_reason(const input *in, size_t bad, iolens_writer *w, int rc, char *err,
                           size_t errlen, const char **where)
{
    const char *detail = bad != SIZE_MAX ? iolens_log_error(in[bad].log)
                                         : w ? iolens_writer_error(w) : "";
    if (bad != SIZE_MAX)
        *where = in[bad].path;
    snprintf(err, errlen, "%s", detail && *detail ? detail : iolens_strerror(rc));
}

/* Merge into a new log at `out`; on failure `err` holds the reason and *where the
 * file it is about (an input that could not be read, or `out`). */
static int merge(input *in, size_t n, const char *out, int do_reduce, char *err, size_t errlen,
                 const char **where)
{
    iolens_writer *w = NULL;
    size_t bad = SIZE_MAX;
    *where = out;
    int rc = iolens_writer_open(out, IOLENS_COMP_ZLIB, &w);
    if (rc) {
        failure_reason(in, bad, NULL, rc, err, errlen, where);
        return rc;
    }
    iolens_job job = merged_job(in, n);
    set_shifts(in, n, &job);
    if (in[0].wf_offset >= 0 && (job.nprocs = workflow_nprocs(in, n)) < 0)
        rc = iolens_writer_set_job(w, NULL);     /* out of memory: fail the writer */
    else
        rc = iolens_writer_set_job(w, &job);
    if (!rc)
        rc = add_names(w, in, n);
    uint64_t partial = 0;
    for (size_t i = 0; i < n; i++)
        partial |= iolens_log_header(in[i].log)->partial_flag;
    for (int m = 0; !rc && m < IOL_MAX_MODULES; m++) {
        int present = 0;
        for (size_t i = 0; i < n; i++)
            present |= iolens_log_header(in[i].log)->mod[m].len > 0;
        const iolens_module_info *mi = iolens_module_info_get(m);
        if (!present || !mi)
            continue;
        if (mi->kind == IOLENS_KIND_DXT)
            rc = merge_dxt(w, m, in, n, &bad);
        else if (m == IOLENS_DXT_REGION_MODULE)
            rc = merge_raw(w, m, in, n, &bad, move_dxt_regions);
        else if (m == IOL_MOD_HEATMAP)
            rc = merge_heatmap(w, in, n, &bad);
        else if (mi->kind == IOLENS_KIND_LUSTRE)
            rc = merge_layouts(w, in, n, do_reduce, &bad);
        else if (mi->kind == IOLENS_KIND_MDHIM)
            rc = merge_mdhim_records(w, in, n, &bad);
        else
            rc = mi->kind == IOLENS_KIND_COUNTERS ? merge_counters(w, m, in, n, do_reduce, &bad)
                                                  : merge_raw(w, m, in, n, &bad, NULL);
    }
    if (rc) {
        failure_reason(in, bad, w, rc, err, errlen, where);
        iolens_writer_abort(w);
        return rc;
    }
    iolens_writer_set_partial(w, partial);
    if ((rc = iolens_writer_close_err(w, err, errlen)) != 0 && !*err)
        failure_reason(in, bad, NULL, rc, err, errlen, where);
    return rc;
}

/* The first of in[0..i-1] that comes from the same process as in[i], or i.  A
 * process is its job id and start time (to the nanosecond): e.g. a log the
 * runtime wrote and a second one recovered from a safety copy it left. */
static size_t same_process(const input *in, size_t i)
{
    const iolens_job *a = iolens_log_job(in[i].log);
    for (size_t k = 0; k < i; k++) {
        const iolens_job *b = iolens_log_job(in[k].log);
        if (a->jobid == b->jobid && a->start_sec == b->start_sec && a->start_nsec == b->start_nsec)
            return k;
    }
    return i;
}

/* A process a launcher gave a rank (RANK/WORLD_SIZE, ...: metadata rank_from=).
 * Without a scheduler's job id, each such process's job id is its own pid. */
static int launcher_ranked(const iolens_job *j)
{
    return !strncmp(j->metadata, "rank_from=", 10) || strstr(j->metadata, "\nrank_from=");
}

/* Logs of one job: the same job id, or launcher ranks of one world of processes. */
static int same_job(const iolens_job *a, const iolens_job *b)
{
    return a->jobid == b->jobid ||
           (launcher_ranked(a) && launcher_ranked(b) && a->nprocs == b->nprocs);
}

int iol_cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"no-reduce", no_argument, 0, 'n'},
        {"allow-duplicates", no_argument, 0, 'D'}, {"workflow", no_argument, 0, 'w'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *out = NULL;
    int do_reduce = 1, allow_dups = 0, workflow = 0, c;
    optind = 1;
    opterr = 0;         /* its errors are said as every verb says them (cli.h) */
    while ((c = getopt_long(argc, argv, ":o:nh", opts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 'n')
            do_reduce = 0;
        else if (c == 'D')
            allow_dups = 1;
        else if (c == 'w')
            workflow = 1;
        else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            iol_cli_getopt_error("merge", c, argv);
            usage(stderr);
            return 2;
        }
    }
    if (!out || optind >= argc) {
        iol_cli_usage_error("merge", !out ? "no output given (-o OUT)" : "no log given");
        usage(stderr);
        return 2;
    }
    size_t n = (size_t)(argc - optind);
    char err[512] = "";
    iol_output o;       /* OUT never replaces an input, nor any file (safe_output.h) */
    int rc = iol_output_begin(&o, out, (const char *const *)argv + optind, n,
                              IOL_OUT_LOG | IOL_OUT_NO_REPLACE, err, sizeof err);
    if (rc) {
        fprintf(stderr, "iolens merge: %s\n", err);
        return rc;
    }
    input *in = calloc(n, sizeof *in);
    rc = in ? 0 : 1;
    const char *where = out;
    for (size_t i = 0; !rc && i < n; i++) {
        in[i].path = argv[optind + (int)i];
        if (iolens_log_open(in[i].path, &in[i].log, err, sizeof err) != 0) {
            fprintf(stderr, "iolens merge: %s: %s\n", in[i].path, err);
            rc = 1;
            break;
        }
        const iolens_job *j = iolens_log_job(in[i].log);
        size_t twin = same_process(in, i);
        if (twin < i) {
            fprintf(stderr, "iolens merge: %s%s and %s are logs of the same process (same job id "
                    "and start time)%s\n", allow_dups ? "warning: " : "", in[twin].path, in[i].path,
                    allow_dups ? "; merged anyway, counts may be doubled"
                               : "; not merged (--allow-duplicates merges them anyway)");
            if (!allow_dups) {
                rc = 1;
                break;
            }
        }
        in[i].wf_offset = workflow ? 0 : -1;   /* the offsets are set by merge() */
        if (!workflow && i && !same_job(iolens_log_job(in[0].log), j)) {
            /* Their ranks would collide: a usage error, --workflow is the merge asked for. */
            fprintf(stderr, "iolens merge: %s: job id %lld, not %lld as %s; logs of different "
                    "jobs are merged with --workflow\n", in[i].path, (long long)j->jobid,
                    (long long)iolens_log_job(in[0].log)->jobid, in[0].path);
            rc = 2;
            break;
        }
    }
    int ranks_rc = rc || workflow ? 0 : assign_ranks(in, n);
    if (ranks_rc) {
        size_t bad = 0;         /* name the input: the first with an impossible count */
        while (bad + 1 < n && iolens_log_job(in[bad].log)->nprocs <= MAX_NPROCS)
            bad++;
        fprintf(stderr, "iolens merge: %s: %s%s\n", in[bad].path, iolens_strerror(ranks_rc),
                ranks_rc == IOLENS_E_BAD_JOB ? " (its process count is impossibly large)" : "");
        rc = 1;
    }
    if (!rc && merge(in, n, o.path, do_reduce, err, sizeof err, &where) != 0) {
        fprintf(stderr, "iolens merge: %s: %s\n", where == o.path ? out : where, err);
        rc = 1;
    } else if (!rc && iol_output_commit(&o, err, sizeof err) != 0) {
        fprintf(stderr, "iolens merge: %s\n", err);
        rc = 1;
    }
    iol_output_discard(&o);
    for (size_t i = 0; in && i < n; i++)
        iolens_log_close(in[i].log);
    free(in);
    return rc;
}

/* Earlier process start first; the pid in the name (a stable order) on a tie. */
static int by_start(const void *a, const void *b)
{
    const iolens_job *x = iolens_log_job(((const input *)a)->log);
    const iolens_job *y = iolens_log_job(((const input *)b)->log);
    if (x->start_sec != y->start_sec)
        return x->start_sec < y->start_sec ? -1 : 1;
    if (x->start_nsec != y->start_nsec)
        return x->start_nsec < y->start_nsec ? -1 : 1;
    return strcmp(((const input *)a)->path, ((const input *)b)->path);
}

int iol_merge_job(const char *const *paths, size_t n, const char *out, char *err, size_t errlen)
{
    input *in = calloc(n + 1, sizeof *in);
    int rc = in ? 0 : IOLENS_E_NOMEM;
    size_t opened = 0;
    if (rc)
        snprintf(err, errlen, "%s", iolens_strerror(rc));
    for (; !rc && opened < n; opened++) {
        in[opened].path = paths[opened];
        in[opened].wf_offset = -1;
        char why[400] = "";
        if ((rc = iolens_log_open(paths[opened], &in[opened].log, why, sizeof why)) != 0)
            snprintf(err, errlen, "%.3000s: %s", paths[opened],
                     *why ? why : iolens_strerror(rc));
    }
    if (!rc) {
        qsort(in, n, sizeof *in, by_start);
        for (size_t i = 1; !rc && i < n; i++)
            if (same_process(in, i) < i) {
                rc = IOLENS_E_INVALID_ARG;
                snprintf(err, errlen, "%.2000s and %.2000s are logs of the same process",
                         in[same_process(in, i)].path, in[i].path);
            }
    }
    if (!rc && (rc = assign_ranks(in, n)) != 0)
        snprintf(err, errlen, "%s%s", iolens_strerror(rc),
                 rc == IOLENS_E_BAD_JOB ? " (a process count is impossibly large)" : "");
    const char *where = out;
    char why[600] = "";
    if (!rc && (rc = merge(in, n, out, 1, why, sizeof why, &where)) != 0) {
        snprintf(err, errlen, "%.3000s: %s", where, why);
        remove(out);
    }
    for (size_t i = 0; in && i < opened; i++)
        iolens_log_close(in[i].log);
    free(in);
    return rc;
}
