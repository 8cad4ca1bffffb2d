/* Lazy resolution of the DAOS libraries' functions (daos_api.h), the way
 * pnetcdf_api.c does it for PnetCDF.
 *
 * The runtime never links DAOS: a process without it loads nothing and pays
 * nothing (the wrappers are reached only by a program that calls DAOS).  Each
 * real function is looked up by iol_find_real (libfind.h): the next definition
 * after ours, or the one in a library loaded privately (RTLD_LOCAL).
 *
 * Contract: callable from any thread; each slot is written once with a release
 * store, so a wrapper's fast path is one load. */
#include "daos_api.h"

#include <errno.h>
#include <string.h>

#include "../core/rt.h"
#include "libfind.h"

iol_daos_table iol_daos;

static const struct {
    const char *name;
    size_t off;
} CALLED[] = {
#define IOL_DAOS_FN(ret, name, params)
#define IOL_DAOS_API(ret, name, params) {#name, offsetof(iol_daos_table, name)},
#include "daos_fns.def"
#undef IOL_DAOS_FN
#undef IOL_DAOS_API
};

void *iol_daos_real(const char *name, void **slot)
{
    return iol_find_real_slot(name, slot);
}

static int resolve_called(void)
{
    for (size_t i = 0; i < sizeof CALLED / sizeof CALLED[0]; i++) {
        void *p = iol_find_real(CALLED[i].name);
        if (!p)
            return -1;
        __atomic_store_n((void **)((char *)&iol_daos + CALLED[i].off), p, __ATOMIC_RELEASE);
    }
    return 1;
}

int iol_daos_ready(void)
{
    static iol_lib_once once;
    return iol_lib_ready(&once, resolve_called);
}

int iol_daos_uuids(daos_handle_t poh, daos_handle_t coh, unsigned char out[32])
{
    if (!iol_daos_ready())
        return -1;
    int e = errno;
    iol_daos_info pool, cont;
    memset(pool.bytes, 0, sizeof pool.bytes);    /* pi_bits 0: the uuid alone */
    memset(cont.bytes, 0, sizeof cont.bytes);
    int rc = iol_daos.daos_pool_query(poh, NULL, pool.bytes, NULL, NULL);
    if (rc == 0)
        rc = iol_daos.daos_cont_query(coh, cont.bytes, NULL, NULL);
    errno = e;
    if (rc != 0)
        return -1;
    memcpy(out, pool.uuid, 16);
    memcpy(out + 16, cont.uuid, 16);
    return 0;
}

uint64_t iol_daos_object_id(const unsigned char uuids[32], daos_obj_id_t oid)
{
    unsigned char glob[32 + sizeof oid];
    memcpy(glob, uuids, 32);
    memcpy(glob + 32, &oid, sizeof oid);
    return iol_hash((const char *)glob, sizeof glob);
}
