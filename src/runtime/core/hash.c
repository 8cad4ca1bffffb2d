/* Record ids on the wrapper path: the same function as iolens_record_id()
 * (Jenkins' 64-bit hash, level 0; log-format spec 5.3), computed with whole-word
 * loads.  The format library's version reads byte by byte so that it is
 * independent of the host; this one needs a little-endian host (checked at
 * compile time) and is ~4x cheaper on the 20-60 byte paths of a typical open().
 * tests/runtime/test_hash.c checks that both agree. */
#include <string.h>

#include "iolens/log.h"
#include "rt.h"

#define MIX(a, b, c)                              \
    do {                                          \
        a -= b; a -= c; a ^= (c >> 43);           \
        b -= c; b -= a; b ^= (a << 9);            \
        c -= a; c -= b; c ^= (b >> 8);            \
        a -= b; a -= c; a ^= (c >> 38);           \
        b -= c; b -= a; b ^= (a << 23);           \
        c -= a; c -= b; c ^= (b >> 5);            \
        a -= b; a -= c; a ^= (c >> 35);           \
        b -= c; b -= a; b ^= (a << 49);           \
        c -= a; c -= b; c ^= (b >> 11);           \
        a -= b; a -= c; a ^= (c >> 12);           \
        b -= c; b -= a; b ^= (a << 18);           \
        c -= a; c -= b; c ^= (b >> 22);           \
    } while (0)

uint64_t iol_hash(const char *name, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const unsigned char *k = (const unsigned char *)name;
    uint64_t a = 0, b = 0, c = 0x9E3779B97F4A7C13ULL, w[3];
    size_t left = len;
    for (; left >= 24; left -= 24, k += 24) {
        memcpy(w, k, 24);
        a += w[0];
        b += w[1];
        c += w[2];
        MIX(a, b, c);
    }
    c += (uint64_t)len;
    w[0] = w[1] = w[2] = 0;
    memcpy(w, k, left);                   /* the tail, zero-padded */
    a += w[0];
    b += w[1];
    c += w[2] << 8;                       /* the low byte of c carries the length */
    MIX(a, b, c);
    return c;
#else
    return iolens_record_id(name, len);
#endif
}
