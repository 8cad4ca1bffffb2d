/* What the log generators of bench/ share: a fixed-seed generator (so two runs
 * write the same log) and little-endian field stores (the host is little-endian). */
#ifndef IOLENS_BENCH_GEN_H
#define IOLENS_BENCH_GEN_H

#include <stdint.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static inline uint64_t next(void)          /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void putf(uint8_t *p, double v) { memcpy(p, &v, 8); }

#endif
