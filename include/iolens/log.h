/* libiolens-log: read every Darshan 3.x log, write Darshan 3.41 logs.
 *
 * Contract (all functions):
 *  - Return IOLENS_OK (0) or a negative iolens_status; never print, never exit.
 *  - A log is hostile input: every offset, length and count is checked before use.
 *    Failures carry a human-readable detail that names the problem (which region,
 *    which record, what was expected), readable through iolens_log_error() or the
 *    errbuf of iolens_log_open().
 *  - A handle (iolens_log, iolens_writer) is not thread-safe; distinct handles are.
 *  - All decoded values are in host byte order and already upgraded to the current
 *    record layout of the module (log-format spec section 8.4), with correct values
 *    (no upstream data-loss quirks; see docs/deviations.md).
 */
#ifndef IOLENS_LOG_H
#define IOLENS_LOG_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */
typedef enum iolens_status {
    IOLENS_OK = 0,
    IOLENS_E_IO = -1,              /* open/read/write/seek of the file failed (errno in detail) */
    IOLENS_E_NOMEM = -2,
    IOLENS_E_TRUNCATED = -3,       /* file shorter than the header or a region it names */
    IOLENS_E_BAD_MAGIC = -4,       /* not a Darshan log */
    IOLENS_E_BAD_VERSION = -5,     /* version string not a supported 3.x version */
    IOLENS_E_BAD_COMPRESSION = -6, /* unknown comp_type */
    IOLENS_E_BAD_REGION = -7,      /* region offset/length outside the file or overlapping */
    IOLENS_E_DECOMPRESS = -8,      /* a region does not decompress */
    IOLENS_E_BAD_JOB = -9,         /* job region too short or malformed mount table */
    IOLENS_E_BAD_NAMES = -10,      /* name region malformed */
    IOLENS_E_BAD_MODULE_VERSION = -11, /* mod_ver 0 or newer than we know */
    IOLENS_E_BAD_RECORD = -12,     /* a record is cut short or has impossible counts */
    IOLENS_E_UNKNOWN_MODULE = -13, /* module id with no decoder (unknown id or opaque) */
    IOLENS_E_INVALID_ARG = -14,
    IOLENS_E_UNSUPPORTED = -15,    /* e.g. compression library not built in */
    IOLENS_E_NOT_PRESENT = -16,    /* module has no region in this log */
    IOLENS_E_NOT_REGULAR = -17     /* a FIFO, device or socket named as a log (see open) */
} iolens_status;

/* Stable short text for a status code ("truncated log", ...). Never NULL. */
const char *iolens_strerror(int status);

/* ---------------------------------------------------------------- header */
enum iolens_comp { IOLENS_COMP_ZLIB = 0, IOLENS_COMP_BZIP2 = 1, IOLENS_COMP_NONE = 2 };

typedef struct iolens_region { uint64_t off, len; } iolens_region;

typedef struct iolens_header {
    char version[9];          /* "3.41", NUL-terminated */
    int major, minor;         /* 3, 41 */
    int big_endian;           /* writer byte order was big-endian */
    int comp_type;            /* enum iolens_comp (as stored; may be unknown => open fails) */
    size_t header_size;       /* 1328 or 360 */
    uint64_t partial_flag;    /* bit i = module i incomplete (renumbered to current ids) */
    iolens_region job;        /* derived extent of the job region */
    iolens_region names;
    iolens_region mod[IOL_MAX_MODULES];  /* indexed by current module id */
    uint32_t mod_ver[IOL_MAX_MODULES];   /* record version as stored, current ids */
} iolens_header;

/* ---------------------------------------------------------------- job */
typedef struct iolens_mount {
    char *path;               /* mount point */
    char *fstype;
} iolens_mount;

typedef struct iolens_job {
    int64_t uid, start_sec, start_nsec, end_sec, end_nsec, nprocs, jobid;
    char metadata[1025];      /* raw "key=value\n..." text, NUL-terminated */
    char *exe_mounts;         /* the raw exe+mounts string as stored (section 4.4) */
    char *exe;                /* command line as upstream reports it (empty if no '\n') */
    size_t nmounts;
    iolens_mount *mounts;     /* sorted as upstream sorts them (section 4.4) */
} iolens_job;

/* Run time as darshan-parser computes it (section 4.1/4.2). */
double iolens_job_runtime(const iolens_job *job, int log_minor);

/* ---------------------------------------------------------------- modules */
enum iolens_module_kind {
    IOLENS_KIND_COUNTERS, IOLENS_KIND_LUSTRE, IOLENS_KIND_DXT,
    IOLENS_KIND_HEATMAP, IOLENS_KIND_MDHIM, IOLENS_KIND_OPAQUE
};
/* What a module tells about a job (modules.def explains each). */
enum iolens_module_role {
    IOLENS_ROLE_NONE, IOLENS_ROLE_IO, IOLENS_ROLE_TRACE,
    IOLENS_ROLE_HEATMAP, IOLENS_ROLE_LAYOUT, IOLENS_ROLE_PLATFORM, IOLENS_ROLE_PHASE
};
/* Where an I/O module sits in the I/O stack (modules.def `layer`). */
enum iolens_module_layer {
    IOLENS_LAYER_NONE, IOLENS_LAYER_HIGHLEVEL, IOLENS_LAYER_MIDDLEWARE, IOLENS_LAYER_FILESYSTEM
};
/* Which runtimes write a module (modules.def `runtime`). */
enum iolens_module_runtime { IOLENS_RUNTIME_NONE, IOLENS_RUNTIME_LIB, IOLENS_RUNTIME_MPI };

typedef struct iolens_module_info {
    int id;
    const char *name;           /* as printed: "POSIX", "MPI-IO", "BG/Q" ... */
    uint32_t version;           /* current (written) record version */
    int kind;                   /* enum iolens_module_kind */
    size_t n_int, n_flt;        /* counters per record (0 for DXT/HEATMAP/OPAQUE; MDHIM: its
                                 * fixed counters; LUSTRE: n_int = the per-component counters) */
    const char *const *int_names, *const *flt_names;
    const char *const *int_desc, *const *flt_desc;
    const unsigned char *int_combine, *flt_combine;  /* enum iolens_combine */
    int role;                   /* enum iolens_module_role */
    const char *symbol;         /* as in C names: "MPIIO", "BGQ" (counter prefix + "_") */
    int summaries;              /* modules.def `summary` PARSER: darshan-parser's
                                 * --total/--file/--perf figures (iolens/metrics.h) */
    int layer;                  /* enum iolens_module_layer */
    int depth;                  /* place in the I/O stack, 1 = top; 0 = not in it */
    int runtime;                /* enum iolens_module_runtime */
} iolens_module_info;

/* What the current record layout of a fixed-size module (counters kind, MDHIM)
 * holds besides id, rank and counters: whether a u64 file_rec_id follows the base
 * record (H5D, PNETCDF_VAR) and how many bytes follow the float counters (DFS,
 * DAOS ids).  The one statement of these layout cases, from the decoder's layout
 * table.  Returns 0, or -1 for a module without a fixed-size layout. */
int iolens_module_layout_extras(int module, int *file_rec_id, size_t *trailing_bytes);

/* Size in bytes of one record of the current layout of a fixed-size module
 * (counters kind, MDHIM: its fixed part), from the decoder's layout table, which
 * derives it from the counter table for modules without a written-out row; 0 for
 * other modules. */
size_t iolens_module_record_size(int module);

/* What a counter measures, by a naming rule on the counter tables (counter_units.c
 * states it): the one place tools and Python learn which counters are times,
 * timestamps, byte counts, byte offsets, ranks, operation counts or ids. */
enum iolens_counter_unit {
    IOLENS_UNIT_OTHER,      /* flags, modes, dimensions, kinds: no unit */
    IOLENS_UNIT_COUNT,      /* operations or occurrences */
    IOLENS_UNIT_BYTES,      /* an amount of data or a size */
    IOLENS_UNIT_OFFSET,     /* a byte position in a file */
    IOLENS_UNIT_SECONDS,    /* a duration */
    IOLENS_UNIT_TIMESTAMP,  /* seconds since the job started */
    IOLENS_UNIT_RANK,       /* an MPI rank */
    IOLENS_UNIT_ID,         /* a record id or another identifier */
    IOLENS_UNIT_VARIANCE    /* a variance across ranks (seconds^2 or bytes^2) */
};
/* Unit of counter k of the int (flt = 0) or float table; OTHER when out of range. */
int iolens_counter_unit(const iolens_module_info *mi, int flt, size_t k);
/* "count", "bytes", ... (the enum's names in lower case); never NULL. */
const char *iolens_unit_name(int unit);

/* Static description of module `id` (0..63); NULL for an unassigned id. */
const iolens_module_info *iolens_module_info_get(int id);
/* Module id by printed name ("MPI-IO") or symbol ("MPIIO"); -1 if none. */
int iolens_module_id(const char *name);

/* ---------------------------------------------------------------- reading */
typedef struct iolens_log iolens_log;

/* Open and validate the header, job region and name region.  On failure *out is
 * NULL and errbuf (if given) holds a message naming the problem but not the path:
 * the caller names the path once ("iolens parse: PATH: cannot open: ...").
 * The file is not read whole: later calls read the regions they need, each
 * through a descriptor opened for it by the file's absolute path and checked to
 * be the same file, so an open log holds no descriptor (only a streaming iterator
 * does, while it exists).  A log moved, deleted or replaced after it was opened
 * gives IOLENS_E_IO on the next read that needs the file.
 *
 * Only regular files are opened by name, checked on the open descriptor (opened
 * O_NONBLOCK, so that a FIFO cannot block the open): a FIFO, a device or a socket,
 * also behind a symbolic link, is IOLENS_E_NOT_REGULAR before a byte is read.  A
 * stream is read only when its name asks for one: "-" (standard input),
 * "/dev/stdin", "/dev/fd/N" and "/proc/self/fd/N" (a shell's `<(...)`).  A stream is
 * read whole at open, but no further than the header and the regions it names
 * (bytes past the last region are left unread), and a stream whose first bytes
 * are not a log header is refused at once. */
int iolens_log_open(const char *path, iolens_log **out, char *errbuf, size_t errlen);
/* The same on a buffer the caller keeps alive until close (fuzzing, Python bytes). */
int iolens_log_open_mem(const void *buf, size_t len, iolens_log **out, char *errbuf, size_t errlen);
void iolens_log_close(iolens_log *log);
/* iolens_log_open with flags.  IOLENS_OPEN_LAZY_NAMES: open checks the name region
 * as usual but keeps nothing; the names are loaded on the first name call (a
 * reader that never asks for names, e.g. `parse --total`, never holds them). */
#define IOLENS_OPEN_LAZY_NAMES 1
/* IOLENS_OPEN_NOFOLLOW: a symbolic link as the last component of the path is
 * refused (IOLENS_E_NOT_REGULAR), for names anyone can plant (`iolens recover`). */
#define IOLENS_OPEN_NOFOLLOW 2
int iolens_log_open_ex(const char *path, int flags, iolens_log **out, char *errbuf,
                       size_t errlen);

/* Detail text of the last failing call on this handle ("" if none). */
const char *iolens_log_error(const iolens_log *log);

const iolens_header *iolens_log_header(const iolens_log *log);
const iolens_job *iolens_log_job(const iolens_log *log);

/* Names (section 5.2 rules applied): lookup by id (NULL if none), or iterate. */
const char *iolens_log_name(const iolens_log *log, uint64_t id);
size_t iolens_log_name_count(const iolens_log *log);
int iolens_log_name_at(const iolens_log *log, size_t i, uint64_t *id, const char **name);

/* Decompressed payload of a module region (all streams concatenated), as stored
 * (writer byte order, stored version).  Owned by the log; valid until close. */
int iolens_log_region(iolens_log *log, int module, const void **payload, size_t *len);
/* Hand the decompressed payload of a module region to the caller, who must free()
 * it; the log forgets it.  Lets a reader keep one copy of a large region. */
int iolens_log_region_take(iolens_log *log, int module, void **payload, size_t *len);
/* Drop the cached payload of a module region (it is decompressed again if needed). */
void iolens_log_region_release(iolens_log *log, int module);

/* Counter-kind modules and MDHIM: all records, in file order, as row-major arrays.
 * ints[i*n_int + k] is counter k of record i; flts likewise. */
typedef struct iolens_records {
    int module;
    uint32_t stored_version;
    size_t count, n_int, n_flt;
    uint64_t *id;
    int64_t *rank;
    uint64_t *file_rec_id;    /* H5D, PNETCDF_VAR; NULL otherwise */
    int64_t *ints;
    double *flts;
    size_t aux_size;          /* bytes of aux per record: DFS 32 (pool, cont uuid), */
    uint8_t *aux;             /*   DAOS 48 (pool, cont uuid, oid_hi, oid_lo as host u64) */
    size_t *tail_start;       /* MDHIM: count+1 offsets into tail (server histogram) */
    int64_t *tail;
    int dropped;              /* records skipped by the upgrade (POSIX v1 with FOPENS>0) */
} iolens_records;
int iolens_log_records(iolens_log *log, int module, iolens_records **out);
void iolens_records_free(iolens_records *r);

/* DXT_POSIX / DXT_MPIIO.  Segments of record i are seg_start[i] .. seg_start[i+1]-1,
 * its write segments first, then its read segments (as stored). */
typedef struct iolens_dxt {
    int module;
    uint32_t stored_version;
    size_t count;
    uint64_t *id;
    int64_t *rank;
    char (*hostname)[65];
    int64_t *write_count, *read_count;
    size_t *seg_start;        /* count + 1 entries */
    size_t nseg;
    int64_t *offset, *length;
    double *start, *end;
    uint64_t *thread_id;      /* NULL when the stored version has none */
} iolens_dxt;
int iolens_log_dxt(iolens_log *log, int module, iolens_dxt **out);
void iolens_dxt_free(iolens_dxt *d);

/* The region each segment of d ran in (our DXT_REGION extension, docs/regions.md):
 * *region (malloc'd, d->nseg entries, free()) holds per segment the REGION record
 * id of its region (the name through the log's name records), 0 outside every
 * region, or IOLENS_DXT_REGION_NOT_KNOWN (no DXT_REGION record for it, or a
 * region the process could not record).  IOLENS_E_NOT_PRESENT when the log has
 * no DXT_REGION module; IOLENS_E_BAD_RECORD when its records are malformed or
 * disagree with d's segment counts. */
#define IOLENS_DXT_REGION_NOT_KNOWN UINT64_MAX
int iolens_log_dxt_regions(iolens_log *log, const iolens_dxt *d, uint64_t **region);

/* ---------------------------------------------------------------- streaming */
/* Record by record, in file order, in bounded memory: the region is decompressed
 * a window at a time (about 1.3 MiB per iterator) instead of being held whole.
 * Records come out decoded and upgraded exactly as iolens_log_records() and
 * iolens_log_dxt() give them.  A region that is corrupt part-way gives the
 * records before the damage, then an error naming the record (detail on the log
 * through iolens_log_error()).  An iterator must be closed before its log. */

/* One record of a counter-kind or MDHIM module.  The pointers are into the
 * iterator and stay valid until its next call. */
typedef struct iolens_record {
    uint64_t id;
    int64_t rank;
    uint64_t file_rec_id;     /* H5D, PNETCDF_VAR (has_file_rec_id); 0 otherwise */
    const int64_t *ints;      /* n_int counters */
    const double *flts;       /* n_flt counters */
    const uint8_t *aux;       /* aux_size bytes as in iolens_records; NULL when 0 */
    const int64_t *tail;      /* MDHIM: the server histogram, ntail values */
    size_t ntail;
    size_t n_int, n_flt, aux_size;
    int has_file_rec_id;
    uint32_t stored_version;
} iolens_record;

typedef struct iolens_record_iter iolens_record_iter;
/* IOLENS_OK, IOLENS_E_NOT_PRESENT (no region), or the errors of iolens_log_records. */
int iolens_record_iter_open(iolens_log *log, int module, iolens_record_iter **out);
/* 1: *rec holds the next record; 0: no more records; < 0: an error. */
int iolens_record_iter_next(iolens_record_iter *it, iolens_record *rec);
/* Records skipped so far by the upgrade (POSIX v1 with FOPENS > 0). */
size_t iolens_record_iter_dropped(const iolens_record_iter *it);
void iolens_record_iter_close(iolens_record_iter *it);

/* DXT_POSIX / DXT_MPIIO: a record's header, then its segments in pieces. */
typedef struct iolens_dxt_rec {
    uint64_t id;
    int64_t rank;
    char hostname[65];
    int64_t write_count, read_count;   /* its write segments come first */
    int has_thread_id;                 /* the stored version records thread ids */
    uint32_t stored_version;
} iolens_dxt_rec;

typedef struct iolens_dxt_seg {
    int64_t offset, length;
    double start, end;
    uint64_t thread_id;                /* 0 when the version has none */
} iolens_dxt_seg;

typedef struct iolens_dxt_iter iolens_dxt_iter;
int iolens_dxt_iter_open(iolens_log *log, int module, iolens_dxt_iter **out);
/* 1: *rec is the next record's header (segments of the previous record not read
 * are skipped); 0: no more records; < 0: an error. */
int iolens_dxt_iter_next(iolens_dxt_iter *it, iolens_dxt_rec *rec);
/* Up to `max` next segments of the current record into segs; *got = 0 once all
 * are read.  A record whose segments run past the end of the region is an error
 * (IOLENS_E_BAD_RECORD), as in iolens_log_dxt(). */
int iolens_dxt_iter_segments(iolens_dxt_iter *it, iolens_dxt_seg *segs, size_t max, size_t *got);
void iolens_dxt_iter_close(iolens_dxt_iter *it);

/* HEATMAP.  Bins of record i are bin_start[i] .. bin_start[i+1]-1. */
typedef struct iolens_heatmap {
    size_t count;
    uint64_t *id;
    int64_t *rank;
    double *bin_width;
    int64_t *nbins;
    size_t *bin_start;        /* count + 1 entries */
    int64_t *write_bins, *read_bins;
} iolens_heatmap;
int iolens_log_heatmap(iolens_log *log, iolens_heatmap **out);
void iolens_heatmap_free(iolens_heatmap *h);

/* LUSTRE, after the truncation rule of section 7.9. */
typedef struct iolens_lustre {
    size_t count;
    uint64_t *id;
    int64_t *rank;
    int64_t *num_comps, *num_stripes;
    size_t *comp_start;       /* count + 1: components of record i */
    int64_t *comp;            /* LUSTRE_COMP_NUM_INDICES per component */
    char (*pool_name)[17];
    size_t *ost_start;        /* count + 1: OST ids of record i */
    int64_t *ost;
} iolens_lustre;
int iolens_log_lustre(iolens_log *log, iolens_lustre **out);
void iolens_lustre_free(iolens_lustre *l);

/* ---------------------------------------------------------------- combining records */
/* Combining one module's records of the same file from several processes into one
 * shared record (runtime spec 3.3), driven by the combine column of the counter
 * tables.  Used by the runtime's MPI reduction and by offline merging of logs.
 * All counters are host order, current record layout of the module (as
 * iolens_log_records() returns them: n_int int64 then n_flt double per record).
 * Not combined by these functions: DXT, HEATMAP, LUSTRE, MDHIM (kinds other than
 * COUNTERS); they return IOLENS_E_UNSUPPORTED for those modules.
 *
 * Variance state: the population variance of per-process time and bytes needs,
 * per record, a count, a sum and a sum of squared deviations (pairwise update of
 * spec 3.3).  A combined record carries its state in an iolens_combine_acc. */
typedef struct iolens_combine_acc {
    double n;                    /* processes folded in */
    double time_sum, time_m2;    /* sum of per-process time; sum of squared deviations */
    double bytes_sum, bytes_m2;  /* the same for per-process bytes */
} iolens_combine_acc;

/* Prepare one process's record for combining (spec 3.3 step 1): set its
 * FASTEST/SLOWEST rank = `rank`, their bytes and times from its own counters, and
 * (if acc is not NULL) acc = {1, time, 0, bytes, 0}.  Does not change the rank of
 * the record itself (the caller sets it to -1).  IOLENS_OK or an error. */
int iolens_combine_prepare(int module, int64_t rank, int64_t *ints, double *flts,
                           iolens_combine_acc *acc);
/* Fold record `in` into `inout` (both prepared): sums, min non-zero, max, first
 * (in's value), or, slowest-op time with its size, common-value merge (add mode for
 * access sizes/strides, set mode for H5D/PnetCDF tuples), fastest from a strictly
 * smaller time (ties keep inout), slowest from a strictly larger one.  The two acc
 * (either may be NULL, then variance is not tracked) are combined into acc_inout. */
int iolens_combine_records(int module, const int64_t *in_ints, const double *in_flts,
                           const iolens_combine_acc *acc_in, int64_t *inout_ints,
                           double *inout_flts, iolens_combine_acc *acc_inout);
/* Store the variance counters of a combined record from its state (S/n). */
int iolens_combine_finish(int module, int64_t *ints, double *flts, const iolens_combine_acc *acc);

/* ---------------------------------------------------------------- record ids */
/* Bob Jenkins' 64-bit hash as Darshan uses it (section 5.3), level 0. */
uint64_t iolens_record_id(const void *name, size_t len);
/* Upstream's STDIO rule: 1 if a STDIO record of a standard stream (<STDIN>,
 * <STDOUT>, <STDERR>) was neither read nor written, so it is left out of a log. */
int iolens_stdio_idle_std_stream(uint64_t id, int64_t reads, int64_t writes);

/* ---------------------------------------------------------------- writing */
/* A 3.41 writer.  Usage: open, set_job, add names, put each module region (ascending
 * module id), close.  The header is written last.  On any failure the partial file
 * is removed by close unless keep-partial is requested. */
typedef struct iolens_writer iolens_writer;

int iolens_writer_open(const char *path, int comp_type, iolens_writer **out);
/* Job record; exe and mounts are encoded as section 4.4 (mount order kept as given). */
int iolens_writer_set_job(iolens_writer *w, const iolens_job *job);
int iolens_writer_add_name(iolens_writer *w, uint64_t id, const char *name);
/* A module region from a payload already encoded little-endian at `version`. */
int iolens_writer_put_region(iolens_writer *w, int module, uint32_t version,
                             const void *payload, size_t len);
/* Encoders from decoded structures to a little-endian payload at the current version
 * (DXT with thread_id set: the next version, the one with thread ids, log-format 7.10). */
int iolens_writer_put_records(iolens_writer *w, const iolens_records *r);
int iolens_writer_put_dxt(iolens_writer *w, const iolens_dxt *d);
int iolens_writer_put_heatmap(iolens_writer *w, const iolens_heatmap *h);
int iolens_writer_put_lustre(iolens_writer *w, const iolens_lustre *l);
void iolens_writer_set_partial(iolens_writer *w, uint64_t partial_flag);
/* Streams of the encoded module regions written after this call: on = one
 * compressed stream per run of one rank's records (the layout an MPI job's ranks
 * write), off (the default) = one stream per module ("condensed"). */
void iolens_writer_set_per_process(iolens_writer *w, int on);
/* The zlib level of the regions written after this call (iolens_compress_at;
 * 0, the default, = 6).  The runtime's exit-time write uses 1: a process waits
 * for it to die. */
void iolens_writer_set_level(iolens_writer *w, int level);
/* Finish: write header, fsync, close.  Returns the first error of the writer's life. */
int iolens_writer_close(iolens_writer *w);
/* The same, first copying the writer's error detail ("" if none) to errbuf. */
int iolens_writer_close_err(iolens_writer *w, char *errbuf, size_t errlen);
/* Abandon: close and remove the file. */
void iolens_writer_abort(iolens_writer *w);
const char *iolens_writer_error(const iolens_writer *w);

/* Building blocks for writers that place regions themselves (MPI collective write). */
/* Compress `len` bytes as one complete stream; *out is malloc'ed. */
int iolens_compress(int comp_type, const void *in, size_t len, void **out, size_t *outlen);
/* The same at a zlib level (1 fastest .. 9 smallest; 0 = the default, 6); bzip2
 * and none ignore it.  The stream is the same kind at every level. */
int iolens_compress_at(int comp_type, int level, const void *in, size_t len, void **out,
                       size_t *outlen);
/* Our extension modules (ids from IOL_MOD_FIRST_EXTENSION on) stay out of the
 * header's module map: after the last module region is written, and before the
 * header is, this moves them into the job metadata key iolens_ext (docs/regions.md,
 * "The REGION module (format)").  The writer calls it at close; a program that
 * writes a log's regions itself (the MPI runtime) calls it on its file.
 *   hdr: the header to be written; hdr->job = the job region as written at job.off.
 *   job: the uncompressed job region (iolens_job_encode), its metadata field gets
 *        the line; end: the end of the file (updated).
 * The job region is rewritten and the regions after it move by the change in its
 * compressed size (offsets in hdr updated); the extension slots and partial bits of
 * hdr are cleared.  Without room in the metadata the extension regions are cut off
 * and `iolens_ext=omitted` is written when it fits.  IOLENS_OK, or an error with
 * its detail in err; with no extension module, nothing is done. */
typedef struct iolens_ext_out {
    int fd;                  /* readable and writable */
    int comp, level;         /* compression of the log (iolens_compress_at) */
    iolens_header *hdr;
    uint8_t *job;
    size_t job_len;
    uint64_t end;
} iolens_ext_out;
int iolens_log_place_extensions(iolens_ext_out *o, char *err, size_t errlen);
/* Encode a 1328-byte 3.41 header. */
int iolens_header_encode(const iolens_header *h, uint8_t out[1328]);
/* Encode the uncompressed job region (job record + exe/mounts string); *out malloc'ed. */
int iolens_job_encode(const iolens_job *job, void **out, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
