/* libFuzzer target: the DXT store decoder (src/format/dxt_store.c) on hostile
 * store images, as `iolens recover` reads them from files killed processes left.
 * The input is the image; the magic is forced in so mutations explore the
 * structure rather than the 8-byte check.  The output buffer is exactly the bound,
 * so a write past it is an ASan report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/dxt_store.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *img = malloc(size ? size : 1);
    if (!img)
        return 0;
    memcpy(img, data, size);
    if (size >= 8)
        memcpy(img, IOLENS_DXT_STORE_MAGIC, 8);
    size_t cap = iolens_dxt_store_bound(img, size);
    if (cap && cap <= ((size_t)64 << 20)) {
        uint8_t *out = malloc(cap);
        if (out) {
            size_t n = iolens_dxt_store_region(img, size, -1, out, cap);
            if (n > cap)
                abort();
            for (size_t i = 0; i < n; i += 4096)
                sink += out[i];
            free(out);
        }
    }
    free(img);
    return 0;
}
