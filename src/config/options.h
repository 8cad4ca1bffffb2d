/* The runtime's settings: one table (options.c) maps every environment variable and
 * config-file key to a field of iol_config.  Nothing else in the runtime calls
 * getenv().  This file is also compiled into the `iolens` tool (config verb), so it
 * must not depend on the runtime core.
 *
 * Storage is fixed-size (no allocation): the table is filled at init, before any
 * wrapper records anything, and read-only afterwards. */
#ifndef IOLENS_RUNTIME_OPTIONS_H
#define IOLENS_RUNTIME_OPTIONS_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "iolens/counters.h"

#define IOL_PATH_LEN 4096
#define IOL_LIST_LEN 1024
#define IOL_NAME_RULES 32

typedef struct iol_name_rule {
    uint64_t modmask;      /* modules the rule applies to */
    int include;           /* 1 = NAME_INCLUDE, 0 = NAME_EXCLUDE */
    int compiled;
    regex_t re;
    char text[256];
} iol_name_rule;

typedef struct iol_config {
    int disable, enable_nonmpi, dump_config, internal_timing, no_shared_reduction;
    int dxt_enable;                      /* DXT_ENABLE_IO_TRACE present */
    int dxt_mpiio_offsets;               /* IOLENS_DXT_MPIIO_OFFSETS: byte offsets in
                                            DXT_MPIIO traces under Open MPI too */
    int dxt_thread_ids;                  /* DXT_THREAD_IDS: thread ids in traces
                                            (DXT_POSIX v2, DXT_MPIIO v3) */
    int no_safety;                       /* IOLENS_NO_SAFETY_COPY: no mmap'd safety copy */
    int lustre_no_api;                   /* IOLENS_NO_LUSTRE_API: never use liblustreapi,
                                            read the lustre.lov xattr */
    int no_tsc;                          /* IOLENS_NO_TSC: time calls with clock_gettime,
                                            never the TSC (rt.h "clock") */
    int64_t job_pid;                     /* IOLENS_JOB_PID: first process of the job (0 = none) */
    uint64_t modmem, namemem;            /* bytes */
    int64_t memalign;                    /* bytes, >= 1 */
    char config_path[IOL_PATH_LEN];
    char jobid_env[128];
    char loghints[512];
    char logpath[IOL_PATH_LEN];          /* dated root (Y/M/D used when present) */
    char logfile[IOL_PATH_LEN];          /* exact output path */
    char mmap_logpath[IOL_PATH_LEN];
    char report_path[IOL_PATH_LEN];      /* IOLENS_LOG_REPORT: append final path here */
    char username[256];                  /* LOGNAME (the uid when empty) */
    char region[128];                    /* IOLENS_REGION: the process's base region
                                            (modules/region.c; "" = none) */
    int64_t jobid;                       /* value of the JOBID variable; -1 = none */
    int launcher_rank, launcher_size;    /* from a launcher's variables; -1 = none */
    const char *launcher_var;            /* the rank variable used (static string) */
    char exclude_dirs[IOL_LIST_LEN];     /* DARSHAN_EXCLUDE_DIRS (3.5.0 semantics) */
    int exclude_dirs_set;
    char app_exclude[IOL_LIST_LEN], app_include[IOL_LIST_LEN];
    char rank_exclude[IOL_LIST_LEN], rank_include[IOL_LIST_LEN];
    char mod_disable[IOL_LIST_LEN], mod_enable[IOL_LIST_LEN];
    double dxt_small_trigger, dxt_unaligned_trigger;   /* < 0 = unset */
    int64_t max_records[IOL_MAX_MODULES];      /* 0 = default */
    uint64_t mod_disabled;               /* final mask, bit = module id */
    size_t nrules;
    iol_name_rule rules[IOL_NAME_RULES];
} iol_config;

/* Where a warning goes: the runtime passes its allocation-free writer, the tool
 * passes a stdio printer.  fmt is printf-style; the text has no trailing newline. */
typedef void (*iol_warn_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fill `c` from defaults, the config file (DARSHAN_CONFIG_PATH) and the
 * environment, in that order.  getenv_fn is getenv (tests may pass another). */
void iol_config_load(iol_config *c, char *(*getenv_fn)(const char *), iol_warn_fn warn);
/* Release compiled regexes (no allocation otherwise). */
void iol_config_free(iol_config *c);
/* Module id for a printed module name ("MPI-IO", "POSIX"); -1 if unknown. */
int iol_config_module_id(const char *name);
/* The DARSHAN_DUMP_CONFIG text, written with `out` (stderr for the runtime). */
void iol_config_dump(const iol_config *c, void (*out)(const char *line, void *arg), void *arg);
/* Is `rank` of `nprocs` excluded by RANK_EXCLUDE/RANK_INCLUDE?  Bad tokens are
 * warned about once and ignored. */
int iol_config_rank_excluded(const iol_config *c, int rank, int nprocs, iol_warn_fn warn);
/* Is the program (first token of the exe string) excluded by APP_*? */
int iol_config_app_excluded(const iol_config *c, const char *exe, iol_warn_fn warn);

/* ---- ranks from launchers without MPI (launcher.c). */
/* The rank and job size set by the innermost launcher (RANK/WORLD_SIZE,
 * OMPI_COMM_WORLD_RANK/_SIZE, PMI_RANK/PMI_SIZE, PMIX_RANK, PALS_RANKID,
 * SLURM_PROCID/SLURM_STEP_NUM_TASKS or SLURM_NTASKS, in that order).  1 with
 * *rank, *size (rank + 1 when the launcher exports no size) and *var (the rank
 * variable's name, a static string) set; 0 when none is set or valid. */
int iol_launcher_rank(char *(*getenv_fn)(const char *), int *rank, int *size, const char **var);

/* ---- log location (logpath.c): shared by the runtime and `iolens config`. */
/* The default log directory when nothing is configured:
 * ${XDG_STATE_HOME:-$HOME/.local/state}/iolens/logs.  Returns 0 or -1; -1 also
 * when it would come from a HOME that is not an existing directory (a missing
 * home is never created: HOME=/nonexistent must not make /nonexistent). */
int iol_default_log_dir(char *out, size_t len, char *(*getenv_fn)(const char *));
/* The directory a log written now would go to (before fallbacks): the dated
 * <logpath>/Y/M/D when it exists, else <logpath>, else the default directory.
 * *configured says whether a log path was configured. */
int iol_log_dir(const iol_config *c, time_t when, char *out, size_t len,
                char *(*getenv_fn)(const char *), int *configured);
/* The user part of log file names: LOGNAME (c->username) when set, else the
 * numeric effective uid.  (Here, not in logwrite.c, so that the safety copy
 * and the log writer do not call each other.) */
void iol_log_user(const iol_config *c, char *out, size_t len);
/* mkdir -p `path` with `mode`; 0 or -1 (errno set). */
int iol_mkdirs(const char *path, mode_t mode);
/* Every directory a log may go to, in the order to try them (the one fallback
 * order of both log writers, docs/runtime.md): the configured directory (or
 * the default one when nothing is configured, created 0700), the default
 * directory, $TMPDIR (when absolute), /tmp; duplicates dropped.  Fills
 * out[0..n-1] and returns n (at least 1: /tmp). */
#define IOL_LOG_DIRS_MAX 4
int iol_log_dirs(const iol_config *c, time_t when, char *(*getenv_fn)(const char *),
                 char out[IOL_LOG_DIRS_MAX][IOL_PATH_LEN]);

#endif
