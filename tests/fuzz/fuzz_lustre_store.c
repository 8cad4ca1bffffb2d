/* libFuzzer target: the LUSTRE record store decoder (src/format/lustre_store.c) on
 * hostile store images, as `iolens recover` reads them from the <copy>.lustre files
 * killed processes left.  The magic and version are forced in so mutations
 * explore the entries.  The output buffer is exactly the image's size (what
 * recover gives it), so a write past it is an ASan report; every record written
 * must be one the record-length rule accepts, back to back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/lustre_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *img = malloc(size ? size : 1), *out = malloc(size ? size : 1);
    if (!img || !out) {
        free(img);
        free(out);
        return 0;
    }
    memcpy(img, data, size);
    if (size >= 12) {
        uint32_t v = 2;
        memcpy(img, IOLENS_LUSTRE_STORE_MAGIC, 8);
        memcpy(img + 8, &v, 4);
    }
    size_t n = iolens_lustre_store_region(img, size, out, size);
    if (n > size)
        abort();
    for (size_t off = 0, len; off < n; off += len)
        if (!(len = iolens_lustre_record_len(out + off, n - off)))
            abort();               /* a region readers would walk differently */
    free(img);
    free(out);
    return 0;
}
