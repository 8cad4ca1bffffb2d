/* Counter enums, names and combine rules for every module, expanded from the
 * per-module tables in src/format/counters/ (one .def per module) (the single source of truth).
 *
 * For a module with table file <t>.def this header defines
 *   enum iolens_<t>_int  { <NAME>, ..., IOL_<T>_NUM_INT }
 *   enum iolens_<t>_flt  { <F_NAME>, ..., IOL_<T>_NUM_FLT }
 * and the library exports, per module id, the counter names and combine rules
 * through iolens_module_info() (log.h).  Nothing here is hand-maintained per
 * counter: add a counter by adding a line to its .def file. */
#ifndef IOLENS_COUNTERS_H
#define IOLENS_COUNTERS_H

/* How two processes' values of one counter combine into a shared record, and how
 * `iolens parse --total` folds records.  Rules are from runtime-behavior spec 3.3. */
enum iolens_combine {
    IOL_COMBINE_NONE = 0,  /* not combined (descriptive modules: BG/Q, MDHIM, NULL) */
    IOL_COMBINE_SUM,       /* add; for counters that may be -1, a negative sum is -1 */
    IOL_COMBINE_MAX,       /* larger value (end timestamps, max byte offsets) */
    IOL_COMBINE_MIN_NZ,    /* smaller non-zero value (start timestamps; 0 = absent) */
    IOL_COMBINE_FIRST,     /* take one side (mode, alignment, dimensions) */
    IOL_COMBINE_OR,        /* logical or of flags */
    IOL_COMBINE_MAXTIME,   /* slowest-call time, carried together with its size */
    IOL_COMBINE_COMMON,    /* the four most common values and their counts */
    IOL_COMBINE_RANK,      /* fastest/slowest rank: recomputed by the reduction */
    IOL_COMBINE_RANKBYTES, /* bytes of the fastest/slowest rank: recomputed */
    IOL_COMBINE_RANKTIME,  /* time of the fastest/slowest rank: recomputed */
    IOL_COMBINE_VARIANCE   /* population variance across ranks: recomputed */
};

#define IOL_ENUM_INT(name, combine, desc) name,
#define IOL_ENUM_NONE(name, combine, desc)

#define INT IOL_ENUM_INT
#define FLT IOL_ENUM_NONE
#define COMP IOL_ENUM_NONE

enum iolens_posix_int { 
#include "posix.def"
    POSIX_NUM_INDICES };
enum iolens_mpiio_int {
#include "mpiio.def"
    MPIIO_NUM_INDICES };
enum iolens_stdio_int {
#include "stdio.def"
    STDIO_NUM_INDICES };
enum iolens_h5f_int {
#include "h5f.def"
    H5F_NUM_INDICES };
enum iolens_h5d_int {
#include "h5d.def"
    H5D_NUM_INDICES };
enum iolens_pnetcdf_file_int {
#include "pnetcdf_file.def"
    PNETCDF_FILE_NUM_INDICES };
enum iolens_pnetcdf_var_int {
#include "pnetcdf_var.def"
    PNETCDF_VAR_NUM_INDICES };
enum iolens_bgq_int {
#include "bgq.def"
    BGQ_NUM_INDICES };
enum iolens_mdhim_int {
#include "mdhim.def"
    MDHIM_NUM_INDICES };
enum iolens_null_int {
#include "null.def"
    NULL_NUM_INDICES };
enum iolens_dfs_int {
#include "dfs.def"
    DFS_NUM_INDICES };
enum iolens_daos_int {
#include "daos.def"
    DAOS_NUM_INDICES };

#undef INT
#undef FLT
#define INT IOL_ENUM_NONE
#define FLT IOL_ENUM_INT

enum iolens_posix_flt {
#include "posix.def"
    POSIX_F_NUM_INDICES };
enum iolens_mpiio_flt {
#include "mpiio.def"
    MPIIO_F_NUM_INDICES };
enum iolens_stdio_flt {
#include "stdio.def"
    STDIO_F_NUM_INDICES };
enum iolens_h5f_flt {
#include "h5f.def"
    H5F_F_NUM_INDICES };
enum iolens_h5d_flt {
#include "h5d.def"
    H5D_F_NUM_INDICES };
enum iolens_pnetcdf_file_flt {
#include "pnetcdf_file.def"
    PNETCDF_FILE_F_NUM_INDICES };
enum iolens_pnetcdf_var_flt {
#include "pnetcdf_var.def"
    PNETCDF_VAR_F_NUM_INDICES };
enum iolens_bgq_flt {
#include "bgq.def"
    BGQ_F_NUM_INDICES };
enum iolens_mdhim_flt {
#include "mdhim.def"
    MDHIM_F_NUM_INDICES };
enum iolens_null_flt {
#include "null.def"
    NULL_F_NUM_INDICES };
enum iolens_dfs_flt {
#include "dfs.def"
    DFS_F_NUM_INDICES };
enum iolens_daos_flt {
#include "daos.def"
    DAOS_F_NUM_INDICES };

#undef FLT
#undef COMP
#define FLT IOL_ENUM_NONE
#define COMP IOL_ENUM_INT
enum iolens_lustre_comp {
#include "lustre.def"
    LUSTRE_COMP_NUM_INDICES };

#undef INT
#undef FLT
#undef COMP
#undef IOL_ENUM_INT
#undef IOL_ENUM_NONE

/* Module ids (log-format spec section 6), expanded from modules.def. */
#define MODULE(id, sym, name, ver, kind, tbl) IOL_MOD_##sym = id,
enum iolens_module_id {
#include "modules.def"
    IOL_MOD_COUNT_KNOWN
};
#undef MODULE

/* Record version our writer emits, per module (modules.def): IOL_MOD_POSIX_VERSION. */
#define MODULE(id, sym, name, ver, kind, tbl) IOL_MOD_##sym##_VERSION = ver,
enum iolens_module_version {
#include "modules.def"
};
#undef MODULE

/* The one module-count constant: room for every module id a log header can name
 * (log-format spec section 3).  Tables indexed by module id use it. */
#define IOL_MAX_MODULES 64

#endif
