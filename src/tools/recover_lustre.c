/* The LUSTRE records a killed process left beside its safety copy: the runtime
 * keeps its LUSTRE store in a file <copy>.lustre (docs/recovery.md), and the
 * format library decodes such a store, checking every length, into a LUSTRE
 * region (include/iolens/lustre_store.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/lustre_store.h"
#include "recover.h"

int iol_recover_lustre(const char *copy, void **region, size_t *len, char *note, size_t notelen)
{
    char path[8400];
    snprintf(path, sizeof path, "%s." IOLENS_LUSTRE_STORE_SUFFIX, copy);
    *region = NULL;
    *len = 0;
    note[0] = '\0';
    uint8_t *store;
    size_t size;
    int got = iol_sidecar_load(copy, path, "its LUSTRE records are", &store, &size, note,
                               notelen);
    if (got <= 0)
        return got == 0;
    uint8_t *out = size ? malloc(size) : NULL;
    size_t n = out ? iolens_lustre_store_region(store, size, out, size) : 0;
    if (size && !out)
        snprintf(note, notelen, "%.400s: out of memory; its LUSTRE records are not recovered",
                 path);
    else if (size && (size < IOLENS_LUSTRE_STORE_HDR ||
                      memcmp(store, IOLENS_LUSTRE_STORE_MAGIC, 8) != 0))
        snprintf(note, notelen, "%.400s: not a LUSTRE store; its records are not recovered", path);
    else if (size) {
        uint32_t version;
        memcpy(&version, store + 8, 4);
        if (version != IOLENS_LUSTRE_STORE_VERSION)
            snprintf(note, notelen, "%.400s: a LUSTRE store of record version %u, not %d; its "
                     "records are not recovered", path, version, IOLENS_LUSTRE_STORE_VERSION);
    }
    free(store);
    if (n) {
        *region = out;
        *len = n;
    } else {
        free(out);
    }
    return 1;
}
