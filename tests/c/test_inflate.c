/* Region decompression internals (src/format/inflate.c): the expansion limit that
 * guards against decompression bombs, clipping, and every compression type. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "check.h"

static void limit(int comp)
{
    size_t n = 1 << 20;
    uint8_t *zeros = calloc(1, n);
    void *z, *out;
    size_t zl, ol;
    char d[160] = "";
    CHECK(iolens_compress(comp, zeros, n, &z, &zl) == IOLENS_OK, "compress %d", comp);
    int rc = iol_inflate(comp, z, zl, 65536, 0, &out, &ol, d, sizeof d);
    CHECK(rc == IOLENS_E_DECOMPRESS && strstr(d, "safety limit"), "comp %d over the limit: %d %s",
          comp, rc, d);
    rc = iol_inflate(comp, z, zl, 65536, 1, &out, &ol, d, sizeof d);
    CHECK(rc == IOLENS_OK && ol == 65536, "comp %d clipped: %d, %zu bytes", comp, rc, ol);
    if (rc == IOLENS_OK)
        free(out);
    rc = iol_inflate(comp, z, zl, n, 0, &out, &ol, d, sizeof d);
    CHECK(rc == IOLENS_OK && ol == n && memcmp(out, zeros, n) == 0, "comp %d exact limit", comp);
    if (rc == IOLENS_OK)
        free(out);
    free(z);
    free(zeros);
}

int main(void)
{
    limit(IOLENS_COMP_ZLIB);
    limit(IOLENS_COMP_BZIP2);
    limit(IOLENS_COMP_NONE);
    /* The cap scales with the compressed size but has a floor and a ceiling. */
    CHECK(iol_region_cap(1) >= ((size_t)256 << 20), "floor");
    CHECK(iol_region_cap(UINT64_MAX) <= ((size_t)8 << 30), "ceiling");
    CHECK(iol_region_cap(1 << 20) >= (size_t)1000 << 20, "ratio: zlib's 1032:1 must fit");
    /* Empty input: a valid, empty payload. */
    void *out;
    size_t ol;
    char d[160];
    CHECK(iol_inflate(IOLENS_COMP_ZLIB, (const uint8_t *)"", 0, 10, 0, &out, &ol, d, sizeof d) ==
          IOLENS_OK && ol == 0, "empty region");
    free(out);
    CHECK(iol_inflate(5, (const uint8_t *)"x", 1, 10, 0, &out, &ol, d, sizeof d) ==
          IOLENS_E_BAD_COMPRESSION, "unknown type");
    return check_result("test_inflate");
}
