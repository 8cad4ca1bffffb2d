/* Static module descriptions, expanded from counters/modules.def and the
 * per-module counter tables: names, descriptions and combine rules live only there. */
#include <strings.h>
#include "internal.h"

#define IOL_TBL null
#define IOL_TBL_FILE "null.def"
#include "module_table_gen.h"
#define IOL_TBL posix
#define IOL_TBL_FILE "posix.def"
#include "module_table_gen.h"
#define IOL_TBL mpiio
#define IOL_TBL_FILE "mpiio.def"
#include "module_table_gen.h"
#define IOL_TBL h5f
#define IOL_TBL_FILE "h5f.def"
#include "module_table_gen.h"
#define IOL_TBL h5d
#define IOL_TBL_FILE "h5d.def"
#include "module_table_gen.h"
#define IOL_TBL pnetcdf_file
#define IOL_TBL_FILE "pnetcdf_file.def"
#include "module_table_gen.h"
#define IOL_TBL pnetcdf_var
#define IOL_TBL_FILE "pnetcdf_var.def"
#include "module_table_gen.h"
#define IOL_TBL bgq
#define IOL_TBL_FILE "bgq.def"
#include "module_table_gen.h"
#define IOL_TBL lustre
#define IOL_TBL_FILE "lustre.def"
#include "module_table_gen.h"
#define IOL_TBL stdio
#define IOL_TBL_FILE "stdio.def"
#include "module_table_gen.h"
#define IOL_TBL mdhim
#define IOL_TBL_FILE "mdhim.def"
#include "module_table_gen.h"
#define IOL_TBL dfs
#define IOL_TBL_FILE "dfs.def"
#include "module_table_gen.h"
#define IOL_TBL daos
#define IOL_TBL_FILE "daos.def"
#include "module_table_gen.h"

/* Modules without a counter table (DXT, HEATMAP, opaque). */
static const char *const none_int_names[] = { NULL }, *const none_flt_names[] = { NULL };
static const char *const none_int_desc[] = { NULL }, *const none_flt_desc[] = { NULL };
static const unsigned char none_int_combine[] = { 0 }, none_flt_combine[] = { 0 };

#define IOL_N(arr) (sizeof(arr) / sizeof((arr)[0]) - 1)

#define MODULE(id_, sym, name_, ver, kind_, tbl)                                  \
    [id_] = { .id = id_, .name = name_, .version = ver,                           \
              .kind = IOLENS_KIND_##kind_,                                        \
              .n_int = IOL_N(tbl##_int_names), .n_flt = IOL_N(tbl##_flt_names),   \
              .int_names = tbl##_int_names, .flt_names = tbl##_flt_names,         \
              .int_desc = tbl##_int_desc, .flt_desc = tbl##_flt_desc,             \
              .int_combine = tbl##_int_combine, .flt_combine = tbl##_flt_combine },
static const iolens_module_info modules[IOL_MAX_MODULES] = {
#include "modules.def"
};
#undef MODULE

/* Symbols ("MPIIO") for lookup by either spelling. */
#define MODULE(id_, sym, name_, ver, kind_, tbl) [id_] = #sym,
static const char *const symbols[IOL_MAX_MODULES] = {
#include "modules.def"
};
#undef MODULE

const iolens_module_info *iolens_module_info_get(int id)
{
    if (id < 0 || id >= IOL_MAX_MODULES || !modules[id].name)
        return NULL;
    return &modules[id];
}

int iolens_module_id(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (modules[i].name &&
            (strcasecmp(name, modules[i].name) == 0 || strcasecmp(name, symbols[i]) == 0))
            return i;
    return -1;
}

/* The written version is the newest for every module except DXT, where the
 * readable versions run ahead of what we write (log-format 8.3). */
uint32_t iol_module_max_version(int id)
{
    if (id == IOL_MOD_DXT_POSIX)
        return 2;
    if (id == IOL_MOD_DXT_MPIIO)
        return 3;
    const iolens_module_info *mi = iolens_module_info_get(id);
    return mi ? mi->version : 0;
}
