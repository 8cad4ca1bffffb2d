/* Static module descriptions, expanded from counters/modules.def and the
 * per-module counter tables: names, descriptions and combine rules live only there. */
#include <strings.h>
#include "internal.h"

/* One block per counter table, written by the build from modules.def. */
#include "iolens/module_tables.h"

/* Modules without a counter table (DXT, HEATMAP, opaque). */
static const char *const none_int_names[] = { NULL }, *const none_flt_names[] = { NULL };
static const char *const none_int_desc[] = { NULL }, *const none_flt_desc[] = { NULL };
static const unsigned char none_int_combine[] = { 0 }, none_flt_combine[] = { 0 };

/* modules.def `summary` column */
enum { IOL_SUMMARY_NONE = 0, IOL_SUMMARY_PARSER = 1 };

#define IOL_N(arr) (sizeof(arr) / sizeof((arr)[0]) - 1)

#define MODULE(id_, sym, name_, ver, kind_, role_, summary_, layer_, depth_, runtime_, tbl) \
    [id_] = { .id = id_, .name = name_, .version = ver,                           \
              .kind = IOLENS_KIND_##kind_, .role = IOLENS_ROLE_##role_,           \
              .symbol = #sym, .summaries = IOL_SUMMARY_##summary_,               \
              .layer = IOLENS_LAYER_##layer_, .depth = depth_,                    \
              .runtime = IOLENS_RUNTIME_##runtime_,                               \
              .n_int = IOL_N(tbl##_int_names), .n_flt = IOL_N(tbl##_flt_names),   \
              .int_names = tbl##_int_names, .flt_names = tbl##_flt_names,         \
              .int_desc = tbl##_int_desc, .flt_desc = tbl##_flt_desc,             \
              .int_combine = tbl##_int_combine, .flt_combine = tbl##_flt_combine },
static const iolens_module_info modules[IOL_MAX_MODULES] = {
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
            (strcasecmp(name, modules[i].name) == 0 || strcasecmp(name, modules[i].symbol) == 0))
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
