/* Small helpers shared by the record decoders (decode_*.c).  Not installed. */
#ifndef IOLENS_FORMAT_DECODE_UTIL_H
#define IOLENS_FORMAT_DECODE_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include "iolens/log.h"

/* malloc of n elements of `size` bytes; never malloc(0) (so NULL always means
 * failure) and NULL on multiplication overflow. */
static inline void *iol_alloc_array(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    return malloc(bytes ? bytes : 1);
}

/* Whether fields of a log need byte swapping on this host. */
static inline int iol_decode_swap(const iolens_header *h)
{
    return h->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* The same for n * m elements. */
static inline void *iol_alloc_array2(size_t n, size_t m, size_t size)
{
    if (m && n > SIZE_MAX / m)
        return NULL;
    return iol_alloc_array(n * m, size);
}

#endif
