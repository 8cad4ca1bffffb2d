/* Lazy resolution of the PnetCDF library's functions (pnetcdf_api.h).
 *
 * The runtime never links PnetCDF: a program without it loads nothing and pays
 * nothing, and LD_BIND_NOW=1 finds no undefined PnetCDF symbol in us.  Each real
 * function is looked up by iol_find_real (libfind.h): the next definition after
 * ours, or the one in a library loaded privately (RTLD_LOCAL).
 *
 * Contract: callable from any thread; each slot is written once with a release
 * store, so a wrapper's fast path is one load. */
#include "pnetcdf_api.h"

#include <errno.h>
#include <stddef.h>

#include "../core/rt.h"
#include "libfind.h"

iol_nc_table iol_nc;

static const struct {
    const char *name;
    size_t off;
} ENTRIES[] = {
#define IOL_NC_API(ret, name, params) {#name, offsetof(iol_nc_table, name)},
#include "pnetcdf.def"
#undef IOL_NC_API
};

void *iol_nc_real(const char *name, void **slot)
{
    return iol_find_real_slot(name, slot);
}

static int resolve_all(void)
{
    for (size_t i = 0; i < sizeof ENTRIES / sizeof ENTRIES[0]; i++) {
        void *p = iol_find_real(ENTRIES[i].name);
        if (!p)
            return -1;
        __atomic_store_n((void **)((char *)&iol_nc + ENTRIES[i].off), p, __ATOMIC_RELEASE);
    }
    return 1;
}

int iol_nc_ready(void)
{
    static iol_lib_once once;
    return iol_lib_ready(&once, resolve_all);
}
