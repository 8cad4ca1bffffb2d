/* Reading the DXT_REGION extension (include/iolens/dxt_region.h): the region of
 * each segment of a decoded DXT module.  The region is hostile input: every
 * record must fit the region, name a DXT module, keep its table within 254
 * entries and its indices within the table, and a record that names a DXT record
 * of d must have exactly that record's segment count and come once. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "iolens/dxt_region.h"

typedef struct key {
    int64_t rank;
    uint64_t id;
    size_t rec;                  /* index of the DXT record */
} key;

static int cmp_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Fill region[] for the segments of the DXT record a record names (or skip it). */
static int apply(iolens_log *log, const iolens_dxt *d, const key *keys, uint8_t *seen,
                 const iolens_dxt_region_hdr *rh, const uint8_t *rec, uint64_t *region)
{
    key want = {rh->rank, rh->id, 0};
    const key *k = rh->module == (uint32_t)d->module
                       ? bsearch(&want, keys, d->count, sizeof *keys, cmp_key) : NULL;
    if (!k)
        return IOLENS_OK;        /* another module's, or a record a rewrite dropped */
    size_t i = k->rec, first = d->seg_start[i];
    if (seen[i] || d->seg_start[i + 1] - first != rh->nseg)
        return iol_log_fail(log, IOLENS_E_BAD_RECORD,
                            "DXT_REGION record of id %llu rank %lld: %s", (unsigned long long)rh->id,
                            (long long)rh->rank, seen[i] ? "given twice" :
                            "its segment count differs from the DXT record's");
    seen[i] = 1;
    const uint8_t *table = rec + IOLENS_DXT_REGION_HDR, *idx = table + 8 * (size_t)rh->ntab;
    for (uint32_t s = 0; s < rh->nseg; s++) {
        uint8_t v = idx[s];
        if (v == 0) {
            region[first + s] = 0;
        } else if (v == IOLENS_DXT_REGION_UNKNOWN) {
            region[first + s] = IOLENS_DXT_REGION_NOT_KNOWN;
        } else if (v <= rh->ntab) {
            memcpy(&region[first + s], table + 8 * (size_t)(v - 1), 8);
        } else {
            return iol_log_fail(log, IOLENS_E_BAD_RECORD,
                                "DXT_REGION record of id %llu rank %lld: segment %u names "
                                "region %u of a table of %u", (unsigned long long)rh->id,
                                (long long)rh->rank, s, v, rh->ntab);
        }
    }
    return IOLENS_OK;
}

static int walk(iolens_log *log, const iolens_dxt *d, const uint8_t *p, size_t len,
                const key *keys, uint8_t *seen, uint64_t *region)
{
    for (size_t at = 0; at < len;) {
        iolens_dxt_region_hdr rh;
        if (len - at < IOLENS_DXT_REGION_HDR)
            return iol_log_fail(log, IOLENS_E_BAD_RECORD,
                                "DXT_REGION module: a record is cut short at byte %zu", at);
        memcpy(&rh, p + at, sizeof rh);
        if ((rh.module != IOL_MOD_DXT_POSIX && rh.module != IOL_MOD_DXT_MPIIO) ||
            rh.ntab > IOLENS_DXT_REGION_MAX_TABLE || rh.reserved != 0)
            return iol_log_fail(log, IOLENS_E_BAD_RECORD,
                                "DXT_REGION module: the record at byte %zu has module %u, %u "
                                "table entries, reserved %u", at, rh.module, rh.ntab, rh.reserved);
        uint64_t size = iolens_dxt_region_size(rh.ntab, rh.nseg);
        if (size > len - at)
            return iol_log_fail(log, IOLENS_E_BAD_RECORD,
                                "DXT_REGION module: the record at byte %zu claims %llu bytes, "
                                "%zu are left", at, (unsigned long long)size, len - at);
        int rc = apply(log, d, keys, seen, &rh, p + at, region);
        if (rc)
            return rc;
        at += (size_t)size;
    }
    return IOLENS_OK;
}

int iolens_log_dxt_regions(iolens_log *log, const iolens_dxt *d, uint64_t **out)
{
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log || !d)
        return IOLENS_E_INVALID_ARG;
    const void *payload;
    size_t len;
    if (!iolens_log_header(log)->mod[IOLENS_DXT_REGION_MODULE].len)
        return IOLENS_E_NOT_PRESENT;
    int rc = iolens_log_region(log, IOLENS_DXT_REGION_MODULE, &payload, &len);
    if (rc)
        return rc;
    uint64_t *region = malloc((d->nseg ? d->nseg : 1) * sizeof *region);
    key *keys = malloc((d->count ? d->count : 1) * sizeof *keys);
    uint8_t *seen = calloc(d->count ? d->count : 1, 1);
    if (!region || !keys || !seen) {
        rc = iol_log_fail(log, IOLENS_E_NOMEM, "DXT_REGION module: out of memory");
    } else {
        for (size_t s = 0; s < d->nseg; s++)
            region[s] = IOLENS_DXT_REGION_NOT_KNOWN;
        for (size_t i = 0; i < d->count; i++)
            keys[i] = (key){d->rank[i], d->id[i], i};
        qsort(keys, d->count, sizeof *keys, cmp_key);
        rc = walk(log, d, payload, len, keys, seen, region);
    }
    free(keys);
    free(seen);
    if (rc)
        free(region);
    else
        *out = region;
    return rc;
}
