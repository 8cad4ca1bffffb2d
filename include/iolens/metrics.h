/* darshan-parser's derived figures, computed once for every tool: the --total
 * fold of a module's records (log-format spec 9.5), the --file access categories
 * (9.6) and the --perf I/O time and bandwidth estimate (9.7).  `iolens parse`
 * prints these results and the Python extension hands them to Python, so the
 * arithmetic exists in one place.
 *
 * Contract (as log.h): functions return IOLENS_OK or a negative iolens_status and
 * never print.  An accumulator is fed the records of ONE module in file order
 * (iolens_record_iter gives that order; upstream's fold depends on it), then read
 * with its _result function, which may be called at any time and does not change
 * the state.  Memory: --total holds one aggregate record, --file a few numbers per
 * distinct file, --perf three times per rank seen (below nprocs).
 *
 * Which modules have these figures is the module table's `summary` column
 * (modules.def; iolens_module_info.summaries): darshan-parser computes them for
 * POSIX, MPI-IO, STDIO, DFS and DAOS.  _new returns IOLENS_E_UNSUPPORTED for any
 * other module, and for a module whose counter table lacks a counter the figures
 * need (BYTES_READ, BYTES_WRITTEN, READ/WRITE/META_TIME, the rank counters). */
#ifndef IOLENS_METRICS_H
#define IOLENS_METRICS_H

#include <stdint.h>
#include "iolens/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- --total */
typedef struct iolens_total iolens_total;

/* The aggregate record: n_int/n_flt counters in the module's table order, named
 * by module->int_names/flt_names (darshan-parser prints "total_<NAME>: value").
 * `records` is how many records were folded in (0: every value is 0). */
typedef struct iolens_total_result {
    const iolens_module_info *module;
    const int64_t *ints;         /* valid until the accumulator is freed */
    const double *flts;
    size_t n_int, n_flt;
    uint64_t records;
} iolens_total_result;

int iolens_total_new(const iolens_module_info *mi, iolens_total **out);
/* A record with other counter counts than the module's table is not folded
 * (returns IOLENS_E_INVALID_ARG; the accumulator is unchanged). */
int iolens_total_add(iolens_total *t, const iolens_record *r);
void iolens_total_result_get(const iolens_total *t, iolens_total_result *out);
void iolens_total_free(iolens_total *t);

/* ---------------------------------------------------------------- --file */
typedef struct iolens_files iolens_files;

/* One access category: files, bytes read+written, and the largest byte offset
 * (MAX_BYTE_READ/WRITTEN; -1 for modules without offsets: MPI-IO, DFS, DAOS).
 * Sums wrap like upstream's 64-bit arithmetic on hostile values. */
typedef struct iolens_file_category {
    int64_t count, bytes, max_offset;
} iolens_file_category;

/* darshan-parser's six lines.  A file is keyed by record id; it is `unique` when
 * exactly one process record names it, `shared` otherwise (a shared record, rank
 * -1, or several per-rank records: upstream's "partially shared" lines are
 * printed added into shared, and so are they here). */
typedef struct iolens_files_result {
    iolens_file_category total, read_only, write_only, read_write, unique, shared;
} iolens_files_result;

int iolens_files_new(const iolens_module_info *mi, iolens_files **out);
int iolens_files_add(iolens_files *f, const iolens_record *r);   /* 0 or NOMEM */
void iolens_files_result_get(const iolens_files *f, iolens_files_result *out);
void iolens_files_free(iolens_files *f);

/* ---------------------------------------------------------------- --perf */
typedef struct iolens_perf iolens_perf;

/* darshan-parser's "performance" block; times in seconds, agg_perf in MiB/s
 * (2^20 bytes per second).  Per rank, io = META+READ+WRITE time of its own
 * records; the slowest rank is the first with the largest io (0 when none).
 * Shared records (rank -1) add their SLOWEST_RANK_TIME to shared_time. */
typedef struct iolens_perf_result {
    int64_t total_bytes;                  /* BYTES_READ + BYTES_WRITTEN, every record */
    double slowest_rank_io_time;
    double slowest_rank_meta_only_time;
    double slowest_rank_rw_only_time;
    int slowest_rank;
    double shared_time_by_slowest;
    double agg_time_by_slowest;           /* slowest_rank_io_time + shared time */
    double agg_perf_by_slowest;           /* total_bytes / 2^20 / agg_time; 0 if no time */
} iolens_perf_result;

/* Ranks at or above nprocs are left out (a hostile rank cannot drive an allocation). */
int iolens_perf_new(const iolens_module_info *mi, int64_t nprocs, iolens_perf **out);
int iolens_perf_add(iolens_perf *p, const iolens_record *r);     /* 0 or NOMEM */
void iolens_perf_result_get(const iolens_perf *p, iolens_perf_result *out);
void iolens_perf_free(iolens_perf *p);

/* ---------------------------------------------------------------- all three */
/* The accumulators a caller asks for (`which`: IOLENS_FIG_* bits), fed together.
 * init leaves every pointer NULL on failure; free takes an initialised or zeroed
 * struct and zeroes it. */
enum { IOLENS_FIG_TOTAL = 1, IOLENS_FIG_FILES = 2, IOLENS_FIG_PERF = 4, IOLENS_FIG_ALL = 7 };

typedef struct iolens_figures {
    iolens_total *total;         /* NULL unless asked for */
    iolens_files *files;
    iolens_perf *perf;
} iolens_figures;

int iolens_figures_init(iolens_figures *f, const iolens_module_info *mi, int64_t nprocs,
                        int which);
/* Records from iolens_record_iter always fit --total; 0 or IOLENS_E_NOMEM. */
int iolens_figures_add(iolens_figures *f, const iolens_record *r);
void iolens_figures_free(iolens_figures *f);

#ifdef __cplusplus
}
#endif
#endif
