/* Record ids: Bob Jenkins' 1997 64-bit hash at level 0 (log-format 5.3).
 * Input words are always read little-endian so ids do not depend on the host.
 * This is the one implementation (the runtime hashes every opened path with it),
 * so it reads whole words: a 40-byte path costs two mixes and a few loads. */
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

static inline uint64_t le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint64_t le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* The last n (0..7) bytes of the input, p[0..n), as a little-endian number.
 * Never reads outside the input: with `whole` (the input has at least 8 bytes)
 * it loads the 8 bytes that end at p + n and shifts; otherwise p is the start of
 * the input and overlapping 4-byte or single-byte loads cover p[0..n). */
static inline uint64_t le_last(const uint8_t *p, size_t n, int whole)
{
    if (n == 0)
        return 0;
    if (whole)
        return le64(p + n - 8) >> (64 - 8 * n);
    if (n >= 4)
        return le32(p) | (le32(p + n - 4) << (8 * (n - 4)));
    return (uint64_t)p[0] | ((uint64_t)p[n / 2] << (8 * (n / 2))) | ((uint64_t)p[n - 1] << (8 * (n - 1)));
}

uint64_t iolens_record_id(const void *name, size_t len)
{
    const uint8_t *k = name;
    uint64_t a = 0, b = 0, c = 0x9E3779B97F4A7C13ULL;
    size_t left = len;
    int whole = len >= 8;

    for (; left >= 24; left -= 24, k += 24) {
        a += le64(k);
        b += le64(k + 8);
        c += le64(k + 16);
        IOL_MIX(a, b, c);
    }
    c += (uint64_t)len;
    /* Tail: bytes 0..7 feed a, 8..15 feed b, 16..22 feed c above its low byte
     * (which carries the length). */
    if (left >= 16) {
        a += le64(k);
        b += le64(k + 8);
        c += le_last(k + 16, left - 16, 1) << 8;
    } else if (left >= 8) {
        a += le64(k);
        b += le_last(k + 8, left - 8, 1);
    } else {
        a += le_last(k, left, whole);
    }
    IOL_MIX(a, b, c);
    return c;
}
