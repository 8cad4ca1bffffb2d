/* Lazy resolution of the HDF5 library's functions (hdf5_api.h).
 *
 * The runtime never links HDF5: a program that does not use it loads nothing and
 * pays nothing, and LD_BIND_NOW=1 finds no undefined HDF5 symbol in us.  The
 * first intercepted HDF5 call finds the library that defines it: dlsym(RTLD_NEXT)
 * when HDF5 is in the global scope (linked by the program), else a search of every
 * loaded object, because Python extensions (h5py, netCDF4) load their HDF5 with
 * RTLD_LOCAL, where RTLD_NEXT cannot see it.  Every other function then comes
 * from that same library, so ids never cross between two HDF5 copies.
 *
 * Contract: callable from any thread; the table is filled once under a lock and
 * published with release stores; a wrapper's fast path is one load. */
#include "hdf5_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../core/core_int.h"
#include "libfind.h"

iol_h5_table iol_h5;

static const struct {
    const char *name;
    size_t off;
    int required;            /* the modules cannot work without it */
} ENTRIES[] = {
#define IOL_H5_FN(ret, name, params) {#name, offsetof(iol_h5_table, name), 0},
#define IOL_H5_API(ret, name, params) {#name, offsetof(iol_h5_table, name), 1},
#include "hdf5.def"
#undef IOL_H5_FN
#undef IOL_H5_API
};

/* Optional even though the modules call them: newer or parallel-only API. */
static int optional_api(const char *name)
{
    static const char *const names[] = {"H5Pget_driver", "H5FD_mpio_init", "H5Pget_dxpl_mpio",
                                        "H5Sis_regular_hyperslab", "H5Sget_regular_hyperslab"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

void *iol_h5_real(const char *name, void **slot)
{
    return iol_find_real_slot(name, slot);
}

/* The library that defines H5Fopen (any intercepted function would do). */
static void *hdf5_handle(void)
{
    void *p = iol_find_real("H5Fopen");
    Dl_info di;
    if (!p || !dladdr(p, &di))
        return NULL;
    void *h = di.dli_fname ? dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    return h ? h : dlopen(NULL, RTLD_LAZY);       /* HDF5 linked into the executable */
}

static int resolve_all(void)
{
    void *h = hdf5_handle();
    if (!h)
        return -1;
    for (size_t i = 0; i < sizeof ENTRIES / sizeof ENTRIES[0]; i++) {
        void **slot = (void **)((char *)&iol_h5 + ENTRIES[i].off);
        void *p = dlsym(h, ENTRIES[i].name);
        if (!p && ENTRIES[i].required && !optional_api(ENTRIES[i].name)) {
            iol_note("h5", "incomplete-library");
            return -1;
        }
        if (p)
            __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    /* The handle stays open: HDF5 cannot be unloaded while its ids are in use. */
    unsigned major = 0, minor = 0, release = 0;
    if (iol_h5.H5get_libversion(&major, &minor, &release) < 0)
        return -1;
    if (major < 1 || (major == 1 && minor < 10)) {   /* 32-bit ids: said in the log */
        char v[48];
        snprintf(v, sizeof v, "unsupported-%u.%u.%u", major, minor, release);
        iol_note("h5", v);
        return -1;
    }
    return 1;
}

int iol_h5_ready(void)
{
    static iol_lib_once once;
    return iol_lib_ready(&once, resolve_all);
}
