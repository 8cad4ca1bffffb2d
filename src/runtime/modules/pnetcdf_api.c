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
#include <pthread.h>
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

static int missing(void)
{
    return -1;
}

void *iol_nc_real(const char *name, void **slot)
{
    int e = errno;
    void *p = iol_find_real(name);
    if (!p) {
        iol_fail(IOL_FAIL_SYMBOL);
        p = (void *)missing;
    }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    errno = e;
    return p;
}

static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static int ready_state;      /* 0 not tried, 1 usable, -1 not usable */

int iol_nc_ready(void)
{
    int s = __atomic_load_n(&ready_state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != 0, 1))
        return s > 0;
    pthread_mutex_lock(&ready_lock);
    if (ready_state == 0) {
        int e = errno;
        s = 1;
        for (size_t i = 0; i < sizeof ENTRIES / sizeof ENTRIES[0]; i++) {
            void *p = iol_find_real(ENTRIES[i].name);
            if (!p) {
                s = -1;
                break;
            }
            __atomic_store_n((void **)((char *)&iol_nc + ENTRIES[i].off), p, __ATOMIC_RELEASE);
        }
        if (s < 0)
            iol_fail(IOL_FAIL_SYMBOL);
        errno = e;
        __atomic_store_n(&ready_state, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ready_lock);
    return ready_state > 0;
}
