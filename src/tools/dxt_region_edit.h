/* Rewrites of the DXT_REGION extension (include/iolens/dxt_region.h) by `convert`
 * and `merge`: its records name DXT records by (module, rank, id) and regions by
 * REGION record id, so a rewrite that moves ranks or changes ids must do the same
 * to them as to the records they name. */
#ifndef IOLENS_DXT_REGION_EDIT_H
#define IOLENS_DXT_REGION_EDIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct iol_dxt_region_edit {
    const void *ctx;
    int (*keep)(const void *ctx, uint64_t id);        /* NULL: every record kept */
    uint64_t (*id_of)(const void *ctx, uint64_t id);  /* NULL: ids unchanged */
    int64_t (*rank_of)(const void *ctx, int64_t rank); /* NULL: ranks unchanged */
} iol_dxt_region_edit;

/* Edit the records of region p (len bytes) in place, dropping those `keep`
 * refuses; *out_len gets the new length.  IOLENS_OK, or IOLENS_E_BAD_RECORD when
 * a record does not fit the region (p is then unchanged up to that record). */
int iol_dxt_region_edit_run(uint8_t *p, size_t len, const iol_dxt_region_edit *e, size_t *out_len);

#endif
