/* See dxt_region_edit.h. */
#include "dxt_region_edit.h"

#include <string.h>

#include "iolens/dxt_region.h"
#include "iolens/log.h"

static void edit_one(uint8_t *rec, const iolens_dxt_region_hdr *rh, const iol_dxt_region_edit *e)
{
    iolens_dxt_region_hdr h = *rh;
    if (e->id_of) {
        h.id = e->id_of(e->ctx, h.id);
        for (uint32_t k = 0; k < h.ntab; k++) {
            uint64_t v;
            memcpy(&v, rec + IOLENS_DXT_REGION_HDR + 8 * (size_t)k, 8);
            v = e->id_of(e->ctx, v);
            memcpy(rec + IOLENS_DXT_REGION_HDR + 8 * (size_t)k, &v, 8);
        }
    }
    if (e->rank_of)
        h.rank = e->rank_of(e->ctx, h.rank);
    memcpy(rec, &h, sizeof h);
}

int iol_dxt_region_edit_run(uint8_t *p, size_t len, const iol_dxt_region_edit *e, size_t *out_len)
{
    size_t at = 0, kept = 0;
    *out_len = 0;
    while (at < len) {
        iolens_dxt_region_hdr rh;
        if (len - at < IOLENS_DXT_REGION_HDR)
            return IOLENS_E_BAD_RECORD;
        memcpy(&rh, p + at, sizeof rh);
        uint64_t size = iolens_dxt_region_size(rh.ntab, rh.nseg);
        if (rh.ntab > IOLENS_DXT_REGION_MAX_TABLE || size > len - at)
            return IOLENS_E_BAD_RECORD;
        if (!e->keep || e->keep(e->ctx, rh.id)) {
            memmove(p + kept, p + at, (size_t)size);
            edit_one(p + kept, &rh, e);
            kept += (size_t)size;
        }
        at += (size_t)size;
    }
    *out_len = kept;
    return IOLENS_OK;
}
