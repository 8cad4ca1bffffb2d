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
    snprintf(path, sizeof path, "%s.lustre", copy);
    *region = NULL;
    *len = 0;
    note[0] = '\0';
    int ours = iol_sidecar_ours(copy, path);
    if (ours < 0)
        return 0;
    if (!ours) {
        snprintf(note, notelen, "%.400s: not a file of the copy's owner; ignored", path);
        return 1;
    }
    int err = 0;
    size_t size = 0;
    uint8_t *store = iol_sidecar_slurp(path, &size, &err);
    if (err) {
        snprintf(note, notelen, "%.400s: %s; its LUSTRE records are not recovered", path,
                 strerror(err));
        free(store);
        return 1;
    }
    uint8_t *out = size ? malloc(size) : NULL;
    size_t n = out ? iolens_lustre_store_region(store, size, out, size) : 0;
    if (size && !out)
        snprintf(note, notelen, "%.400s: out of memory; its LUSTRE records are not recovered",
                 path);
    else if (size && memcmp(store, IOLENS_LUSTRE_STORE_MAGIC, size < 8 ? size : 8) != 0)
        snprintf(note, notelen, "%.400s: not a LUSTRE store; its records are not recovered", path);
    free(store);
    if (n) {
        *region = out;
        *len = n;
    } else {
        free(out);
    }
    return 1;
}
