/* Counter enums, names and combine rules for every module, expanded from the
 * per-module tables in src/format/counters/ (one .def per module) (the single source of truth).
 *
 * For every module of counters/modules.def with table file <t>.def (the build
 * writes the list, iolens/counter_enums.h, from modules.def) this header defines
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

#define IOL_COUNTER_ENUMS_INT
#include "iolens/counter_enums.h"
#undef IOL_COUNTER_ENUMS_INT

#undef INT
#undef FLT
#define INT IOL_ENUM_NONE
#define FLT IOL_ENUM_INT

#define IOL_COUNTER_ENUMS_FLT
#include "iolens/counter_enums.h"
#undef IOL_COUNTER_ENUMS_FLT

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
#define MODULE(id, sym, name, ver, kind, role, summary, layer, depth, runtime, tbl) \
    IOL_MOD_##sym = id,
enum iolens_module_id {
#include "modules.def"
    IOL_MOD_COUNT_KNOWN
};
#undef MODULE

/* Record version our writer emits, per module (modules.def): IOL_MOD_POSIX_VERSION. */
#define MODULE(id, sym, name, ver, kind, role, summary, layer, depth, runtime, tbl) \
    IOL_MOD_##sym##_VERSION = ver,
enum iolens_module_version {
#include "modules.def"
};
#undef MODULE

/* The one module-count constant: room for every module id a log header can name
 * (log-format spec section 3).  Tables indexed by module id use it. */
#define IOL_MAX_MODULES 64

#endif
