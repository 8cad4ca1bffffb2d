/* One complete compressed stream per call (log-format 3.1; upstream writes one
 * stream per region from its library writer). */
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>
#ifdef IOLENS_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef IOLENS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "internal.h"

#ifdef IOLENS_HAVE_LIBDEFLATE
/* libdeflate writes the same kind of stream (zlib, level 6 as zlib's default)
 * about twice as fast: the runtime compresses at exit, where a full DXT trace is
 * megabytes.  0 when it cannot (the caller then uses zlib). */
static int deflate_libdeflate(const void *in, size_t len, int level, void **out, size_t *outlen)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    if (!c)
        return 0;
    size_t cap = libdeflate_zlib_compress_bound(c, len);
    uint8_t *p = malloc(cap ? cap : 1);
    size_t n = p ? libdeflate_zlib_compress(c, in, len, p, cap) : 0;
    libdeflate_free_compressor(c);
    if (n == 0) {
        free(p);
        return 0;
    }
    *out = p;
    *outlen = n;
    return 1;
}
#endif

static int deflate_all(const void *in, size_t len, int level, void **out, size_t *outlen)
{
#ifdef IOLENS_HAVE_LIBDEFLATE
    if (deflate_libdeflate(in, len, level, out, outlen))
        return IOLENS_OK;
#endif
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit(&zs, level) != Z_OK)
        return IOLENS_E_NOMEM;
    size_t cap = deflateBound(&zs, len > ULONG_MAX ? ULONG_MAX : (uLong)len) + 64;
    uint8_t *p = malloc(cap);
    if (!p) {
        deflateEnd(&zs);
        return IOLENS_E_NOMEM;
    }
    const uint8_t *src = in;
    size_t left = len;
    zs.next_out = p;
    int z;
    do {                           /* input in <= 1 GiB slices: avail_in is 32-bit */
        size_t chunk = left > (1u << 30) ? (1u << 30) : left;
        zs.next_in = (Bytef *)src;
        zs.avail_in = (uInt)chunk;
        size_t room = cap - (size_t)(zs.next_out - p);
        zs.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
        z = deflate(&zs, chunk == left ? Z_FINISH : Z_NO_FLUSH);
        src += chunk - zs.avail_in;
        left -= chunk - zs.avail_in;
    } while (z == Z_OK || (z == Z_BUF_ERROR && left));
    deflateEnd(&zs);
    if (z != Z_STREAM_END) {
        free(p);
        return IOLENS_E_NOMEM;
    }
    *out = p;
    *outlen = (size_t)(zs.next_out - p);
    return IOLENS_OK;
}

#ifdef IOLENS_HAVE_BZIP2
static int bzip2_all(const void *in, size_t len, void **out, size_t *outlen)
{
    bz_stream bs;
    memset(&bs, 0, sizeof bs);
    if (BZ2_bzCompressInit(&bs, 9, 0, 30) != BZ_OK)   /* upstream's block size, work factor */
        return IOLENS_E_NOMEM;
    size_t cap = len + len / 100 + 1024, used = 0;
    uint8_t *p = malloc(cap);
    const char *src = in;
    size_t left = len;
    int b = BZ_RUN_OK;
    while (p && b != BZ_STREAM_END) {
        size_t chunk = left > (1u << 30) ? (1u << 30) : left;
        bs.next_in = (char *)src;
        bs.avail_in = (unsigned)chunk;
        if (cap - used < 4096) {     /* bound above should suffice; grow defensively */
            uint8_t *np = realloc(p, cap * 2);
            if (!np) { free(p); p = NULL; break; }
            p = np;
            cap *= 2;
        }
        size_t room = cap - used;
        bs.next_out = (char *)p + used;
        bs.avail_out = room > (1u << 30) ? (1u << 30) : (unsigned)room;
        unsigned before = bs.avail_out;
        b = BZ2_bzCompress(&bs, chunk == left ? BZ_FINISH : BZ_RUN);
        used += before - bs.avail_out;
        src += chunk - bs.avail_in;
        left -= chunk - bs.avail_in;
        if (b != BZ_RUN_OK && b != BZ_FINISH_OK && b != BZ_STREAM_END) {
            free(p);
            p = NULL;
        }
    }
    BZ2_bzCompressEnd(&bs);
    if (!p)
        return IOLENS_E_NOMEM;
    *out = p;
    *outlen = used;
    return IOLENS_OK;
}
#endif

int iolens_compress(int comp_type, const void *in, size_t len, void **out, size_t *outlen)
{
    return iolens_compress_at(comp_type, 0, in, len, out, outlen);
}

int iolens_compress_at(int comp_type, int level, const void *in, size_t len, void **out,
                       size_t *outlen)
{
    if (!out || !outlen || (!in && len) || level < 0 || level > 9)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    *outlen = 0;
    switch (comp_type) {
    case IOLENS_COMP_ZLIB:
        return deflate_all(in, len, level ? level : 6, out, outlen);
    case IOLENS_COMP_BZIP2:
#ifdef IOLENS_HAVE_BZIP2
        return bzip2_all(in, len, out, outlen);
#else
        return IOLENS_E_UNSUPPORTED;
#endif
    case IOLENS_COMP_NONE:
        if (!(*out = malloc(len ? len : 1)))
            return IOLENS_E_NOMEM;
        if (len)
            memcpy(*out, in, len);
        *outlen = len;
        return IOLENS_OK;
    default:
        return IOLENS_E_BAD_COMPRESSION;
    }
}
