/* Record ids: Bob Jenkins' 1997 64-bit hash at level 0 (log-format 5.3).
 * Input words are always read little-endian so ids do not depend on the host. */
#include "internal.h"

#define IOL_MIX(a, b, c) do {                    \
    a -= b; a -= c; a ^= (c >> 43);              \
    b -= c; b -= a; b ^= (a << 9);               \
    c -= a; c -= b; c ^= (b >> 8);               \
    a -= b; a -= c; a ^= (c >> 38);              \
    b -= c; b -= a; b ^= (a << 23);              \
    c -= a; c -= b; c ^= (b >> 5);               \
    a -= b; a -= c; a ^= (c >> 35);              \
    b -= c; b -= a; b ^= (a << 49);              \
    c -= a; c -= b; c ^= (b >> 11);              \
    a -= b; a -= c; a ^= (c >> 12);              \
    b -= c; b -= a; b ^= (a << 18);              \
    c -= a; c -= b; c ^= (b >> 22);              \
} while (0)

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

uint64_t iolens_record_id(const void *name, size_t len)
{
    const uint8_t *k = name;
    uint64_t a = 0, b = 0, c = 0x9E3779B97F4A7C13ULL;
    size_t left = len;

    for (; left >= 24; left -= 24, k += 24) {
        a += le64(k);
        b += le64(k + 8);
        c += le64(k + 16);
        IOL_MIX(a, b, c);
    }
    c += (uint64_t)len;
    /* Tail: bytes 0..7 feed a, 8..15 feed b, 16..22 feed c above its low byte
     * (which carries the length). */
    for (size_t j = 0; j < left; j++) {
        uint64_t t = k[j];
        if (j < 8)
            a += t << (8 * j);
        else if (j < 16)
            b += t << (8 * (j - 8));
        else
            c += t << (8 * (j - 15));
    }
    IOL_MIX(a, b, c);
    return c;
}
