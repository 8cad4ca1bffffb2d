/* darshan-parser's figures in the format library (iolens/metrics.h): known
 * answers for three POSIX records made by hand (a file of rank 0, a file of rank
 * 1, a shared file), a rank outside the job, and the modules without figures
 * (modules.def `summary` column). */
#include <math.h>
#include <string.h>
#include "iolens/metrics.h"
#include "check.h"

typedef struct rec {
    int64_t ints[POSIX_NUM_INDICES];
    double flts[POSIX_F_NUM_INDICES];
    iolens_record r;
} rec;

static void make(rec *x, uint64_t id, int64_t rank, int64_t rd, int64_t wr, double meta,
                 double rt, double wt, double slowest)
{
    memset(x, 0, sizeof *x);
    x->ints[POSIX_OPENS] = 1;
    x->ints[POSIX_BYTES_READ] = rd;
    x->ints[POSIX_BYTES_WRITTEN] = wr;
    x->ints[POSIX_MAX_BYTE_READ] = rd ? rd - 1 : 0;
    x->ints[POSIX_MAX_BYTE_WRITTEN] = wr ? wr - 1 : 0;
    x->flts[POSIX_F_META_TIME] = meta;
    x->flts[POSIX_F_READ_TIME] = rt;
    x->flts[POSIX_F_WRITE_TIME] = wt;
    x->flts[POSIX_F_SLOWEST_RANK_TIME] = slowest;
    x->r.id = id;
    x->r.rank = rank;
    x->r.ints = x->ints;
    x->r.flts = x->flts;
    x->r.n_int = POSIX_NUM_INDICES;
    x->r.n_flt = POSIX_F_NUM_INDICES;
}

static int same_cat(const iolens_file_category *c, int64_t n, int64_t bytes, int64_t max)
{
    return c->count == n && c->bytes == bytes && c->max_offset == max;
}

int main(void)
{
    const iolens_module_info *posix = iolens_module_info_get(IOL_MOD_POSIX);
    rec a, b, s, far;
    make(&a, 1, 0, 100, 0, 1.0, 2.0, 0.0, 0.0);     /* rank 0 reads file 1 */
    make(&b, 2, 1, 0, 50, 0.5, 0.0, 4.0, 0.0);      /* rank 1 writes file 2 */
    make(&s, 3, -1, 10, 0, 9.0, 9.0, 9.0, 3.0);     /* shared file 3: its slowest rank */
    make(&far, 4, 7, 1000, 0, 50.0, 0.0, 0.0, 0.0); /* rank 7 of a 2-process job */

    iolens_total *t;
    iolens_files *f;
    iolens_perf *p;
    CHECK(iolens_total_new(posix, &t) == 0 && iolens_files_new(posix, &f) == 0 &&
          iolens_perf_new(posix, 2, &p) == 0, "POSIX has figures");
    const rec *all[] = {&a, &b, &s, &far};
    for (size_t i = 0; i < 4; i++) {
        CHECK(iolens_total_add(t, &all[i]->r) == 0, "total add %zu", i);
        CHECK(iolens_files_add(f, &all[i]->r) == 0, "files add %zu", i);
        CHECK(iolens_perf_add(p, &all[i]->r) == 0, "perf add %zu", i);
    }

    iolens_total_result tr;
    iolens_total_result_get(t, &tr);
    CHECK(tr.records == 4 && tr.module == posix && tr.n_int == POSIX_NUM_INDICES, "total shape");
    CHECK(tr.ints[POSIX_OPENS] == 4 && tr.ints[POSIX_BYTES_READ] == 1110 &&
          tr.ints[POSIX_BYTES_WRITTEN] == 50, "total sums");
    CHECK(tr.ints[POSIX_MAX_BYTE_READ] == 999, "total max");

    iolens_files_result fr;
    iolens_files_result_get(f, &fr);
    CHECK(same_cat(&fr.total, 4, 1160, 999), "total files");
    CHECK(same_cat(&fr.read_only, 3, 1110, 999), "read-only files");
    CHECK(same_cat(&fr.write_only, 1, 50, 49), "write-only files");
    CHECK(same_cat(&fr.read_write, 0, 0, 0), "read-write files");
    CHECK(same_cat(&fr.unique, 3, 1150, 999), "unique files");
    CHECK(same_cat(&fr.shared, 1, 10, 9), "shared files");

    iolens_perf_result pr;
    iolens_perf_result_get(p, &pr);
    CHECK(pr.total_bytes == 1160, "perf bytes count every record");
    CHECK(pr.slowest_rank == 1 && pr.slowest_rank_io_time == 4.5 &&
          pr.slowest_rank_meta_only_time == 0.5 && pr.slowest_rank_rw_only_time == 4.0,
          "slowest rank 1 (rank 7 is outside the job): %d %f", pr.slowest_rank,
          pr.slowest_rank_io_time);
    CHECK(pr.shared_time_by_slowest == 3.0 && pr.agg_time_by_slowest == 7.5, "times");
    CHECK(fabs(pr.agg_perf_by_slowest - 1160 / 1048576.0 / 7.5) < 1e-15, "MiB/s");
    iolens_total_free(t);
    iolens_files_free(f);
    iolens_perf_free(p);

    /* an empty module: zero time gives zero bandwidth, rank 0 */
    CHECK(iolens_perf_new(posix, 2, &p) == 0, "perf new");
    iolens_perf_result_get(p, &pr);
    CHECK(pr.agg_perf_by_slowest == 0 && pr.slowest_rank == 0 && pr.total_bytes == 0, "empty");
    iolens_perf_free(p);

    /* only the modules.def summary column decides which modules have figures */
    for (int id = 0; id < IOL_MOD_COUNT_KNOWN; id++) {
        const iolens_module_info *mi = iolens_module_info_get(id);
        if (!mi)
            continue;   /* an unassigned id between upstream's and ours */
        int want = id == IOL_MOD_POSIX || id == IOL_MOD_MPIIO || id == IOL_MOD_STDIO ||
                   id == IOL_MOD_DFS || id == IOL_MOD_DAOS;
        CHECK(mi->summaries == want, "module %s summary column", mi->name);
        int rc = iolens_total_new(mi, &t);
        CHECK(want ? rc == 0 && t : rc == IOLENS_E_UNSUPPORTED && !t, "%s --total", mi->name);
        iolens_total_free(t);
        rc = iolens_perf_new(mi, 4, &p);
        CHECK(want ? rc == 0 : rc == IOLENS_E_UNSUPPORTED, "%s --perf", mi->name);
        iolens_perf_free(p);
        rc = iolens_files_new(mi, &f);
        CHECK(want ? rc == 0 : rc == IOLENS_E_UNSUPPORTED, "%s --file", mi->name);
        iolens_files_free(f);
    }
    return check_result("test_metrics");
}
