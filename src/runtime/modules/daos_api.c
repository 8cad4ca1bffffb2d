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

void *iol_daos_real(const char *name, void **slot)
{
    return iol_find_real_slot(name, slot);
}

/* Each called function on its own: a program may load libdaos without libdfs, and
 * the DAOS module needs none of DFS's.  A function no loaded object defines is
 * looked up again at its next use: only the paths of a library that is loaded
 * call its functions, so that does not happen in practice. */
void *iol_daos_called(const char *name, void **slot)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (p)
        return p;
    int e = errno;
    p = iol_find_real(name);
    errno = e;
    if (p)
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}

int iol_daos_uuids(daos_handle_t poh, daos_handle_t coh, unsigned char out[32])
{
    __typeof__(iol_daos.daos_pool_query) pool_query = IOL_DAOS_CALLED(daos_pool_query);
    __typeof__(iol_daos.daos_cont_query) cont_query = IOL_DAOS_CALLED(daos_cont_query);
    if (!pool_query || !cont_query)
        return -1;
    int e = errno;
    iol_daos_info pool, cont;
    memset(pool.bytes, 0, sizeof pool.bytes);    /* pi_bits 0: the uuid alone */
    memset(cont.bytes, 0, sizeof cont.bytes);
    int rc = pool_query(poh, NULL, pool.bytes, NULL, NULL);
    if (rc == 0)
        rc = cont_query(coh, cont.bytes, NULL, NULL);
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
