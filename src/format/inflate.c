/* Region decompression (log-format 3.1-3.3): a region is zero or more complete
 * streams back to back; the payload is their concatenated output. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#ifdef IOLENS_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef IOLENS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#include "internal.h"

#define IOL_CAP_FLOOR   ((size_t)256 << 20)   /* any region may reach 256 MiB */
#define IOL_CAP_RATIO   5000u                 /* beyond that, at most 5000:1 */
#define IOL_CAP_ABS     ((size_t)8 << 30)     /* and never above 8 GiB */

size_t iol_region_cap(uint64_t len)
{
    uint64_t cap = len > IOL_CAP_ABS / IOL_CAP_RATIO ? IOL_CAP_ABS : len * IOL_CAP_RATIO;
    if (cap < IOL_CAP_FLOOR)
        cap = IOL_CAP_FLOOR;
    if (cap > IOL_CAP_ABS)
        cap = IOL_CAP_ABS;
    return (size_t)cap;
}

/* Growable output buffer. */
typedef struct outbuf {
    uint8_t *p;
    size_t len, cap, max;
    size_t hint;              /* first allocation: a guess from the input size */
} outbuf;

/* Make room for at least one more byte; 0 on success, -1 on no memory, 1 at max. */
static int out_grow(outbuf *o)
{
    if (o->len < o->cap)
        return 0;
    if (o->cap >= o->max)
        return 1;
    size_t ncap = o->cap ? o->cap * 2 : o->hint;
    if (ncap > o->max)
        ncap = o->max;
    uint8_t *np = realloc(o->p, ncap ? ncap : 1);
    if (!np)
        return -1;
    o->p = np;
    o->cap = ncap;
    return 0;
}

static int fail(char *d, size_t dl, int code, const char *msg, long long at)
{
    if (at >= 0)
        snprintf(d, dl, "%s at compressed byte %lld", msg, at);
    else
        snprintf(d, dl, "%s", msg);
    return code;
}

/* Returns 0 ok, 1 output limit reached, or a negative status. */
static int run_zlib(const uint8_t *in, size_t len, size_t pos, outbuf *o, char *d, size_t dl)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK)
        return fail(d, dl, IOLENS_E_NOMEM, "zlib initialisation failed", -1);
    int rc = 0;
    while (pos < len) {
        size_t chunk = len - pos > (1u << 30) ? (1u << 30) : len - pos;
        zs.next_in = (Bytef *)(in + pos);
        zs.avail_in = (uInt)chunk;
        int g = out_grow(o);
        if (g) { rc = g < 0 ? fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1) : 1; break; }
        zs.next_out = o->p + o->len;
        size_t room = o->cap - o->len;
        zs.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
        uInt out_before = zs.avail_out;
        int z = inflate(&zs, Z_NO_FLUSH);
        o->len += out_before - zs.avail_out;
        pos += chunk - zs.avail_in;
        if (z == Z_STREAM_END) {
            inflateReset(&zs);        /* next stream, if any bytes remain */
        } else if (z == Z_BUF_ERROR) {
            if (zs.avail_in == 0 && pos >= len)
                break;                /* region ends mid-stream: short payload */
            rc = fail(d, dl, IOLENS_E_DECOMPRESS, "zlib made no progress", (long long)pos);
            break;
        } else if (z != Z_OK) {
            rc = fail(d, dl, IOLENS_E_DECOMPRESS,
                      z == Z_MEM_ERROR ? "zlib out of memory"
                      : zs.msg ? zs.msg : "invalid zlib data", (long long)pos);
            break;
        }
    }
    inflateEnd(&zs);
    return rc;
}

#ifdef IOLENS_HAVE_LIBDEFLATE
/* Whole streams with libdeflate, straight into the output buffer; a stream that
 * does not fit makes the buffer grow and is decoded again.  Anything else that is
 * not a clean stream (a cut or corrupt stream, garbage after a stream, output at
 * the limit) is handed to run_zlib from the start of that stream, so the short
 * payload, the limit and the error texts stay exactly zlib's. */
static int run_libdeflate(const uint8_t *in, size_t len, outbuf *o, char *d, size_t dl)
{
    struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
    if (!dec)
        return run_zlib(in, len, 0, o, d, dl);
    size_t pos = 0;
    while (pos < len) {
        if (o->len == o->cap) {
            int g = out_grow(o);
            if (g < 0) {
                libdeflate_free_decompressor(dec);
                return fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1);
            }
            if (g > 0)
                break;                /* at the limit: zlib decides (clip or error) */
        }
        size_t used = 0, got = 0;
        enum libdeflate_result r = libdeflate_zlib_decompress_ex(
            dec, in + pos, len - pos, o->p + o->len, o->cap - o->len, &used, &got);
        if (r == LIBDEFLATE_SUCCESS) {
            o->len += got;
            pos += used;
        } else if (r == LIBDEFLATE_INSUFFICIENT_SPACE && o->cap < o->max) {
            size_t keep = o->len;
            o->len = o->cap;          /* make out_grow double the buffer */
            int g = out_grow(o);
            o->len = keep;
            if (g < 0) {
                libdeflate_free_decompressor(dec);
                return fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1);
            }
        } else {
            break;
        }
    }
    libdeflate_free_decompressor(dec);
    return pos < len ? run_zlib(in, len, pos, o, d, dl) : 0;
}
#endif

#ifdef IOLENS_HAVE_BZIP2
static int run_bzip2(const uint8_t *in, size_t len, outbuf *o, char *d, size_t dl)
{
    size_t pos = 0;
    while (pos < len) {
        bz_stream bs;
        memset(&bs, 0, sizeof bs);
        if (BZ2_bzDecompressInit(&bs, 0, 0) != BZ_OK)
            return fail(d, dl, IOLENS_E_NOMEM, "bzip2 initialisation failed", -1);
        int rc = 0, end = 0;
        while (!end && pos < len) {
            size_t chunk = len - pos > (1u << 30) ? (1u << 30) : len - pos;
            bs.next_in = (char *)(in + pos);
            bs.avail_in = (unsigned)chunk;
            int g = out_grow(o);
            if (g) { rc = g < 0 ? fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1) : 1; break; }
            size_t room = o->cap - o->len;
            bs.next_out = (char *)(o->p + o->len);
            bs.avail_out = room > (1u << 30) ? (1u << 30) : (unsigned)room;
            unsigned out_before = bs.avail_out;
            int b = BZ2_bzDecompress(&bs);
            o->len += out_before - bs.avail_out;
            pos += chunk - bs.avail_in;
            if (b == BZ_STREAM_END)
                end = 1;
            else if (b != BZ_OK)
                rc = fail(d, dl, IOLENS_E_DECOMPRESS,
                          b == BZ_MEM_ERROR ? "bzip2 out of memory" : "invalid bzip2 data",
                          (long long)pos);
            else if (bs.avail_in == 0 && pos >= len)
                break;                /* region ends mid-stream: short payload */
            if (rc)
                break;
        }
        BZ2_bzDecompressEnd(&bs);
        if (rc)
            return rc;
    }
    return 0;
}
#endif

int iol_inflate(int comp_type, const uint8_t *in, size_t len, size_t max_out, int clip,
                void **out, size_t *outlen, char *d, size_t dl)
{
    /* Logs compress about 4-20x; start at 8x the input to avoid most regrowth. */
    size_t hint = len > max_out / 8 ? max_out : len * 8;
    outbuf o = { NULL, 0, 0, max_out, hint < 65536 ? (max_out < 65536 ? max_out : 65536) : hint };
    int rc;
    *out = NULL;
    *outlen = 0;
    if (comp_type == IOLENS_COMP_NONE) {
        if (len > max_out && !clip)
            return fail(d, dl, IOLENS_E_DECOMPRESS, "uncompressed region exceeds the safety limit", -1);
        size_t n = len > max_out ? max_out : len;
        o.p = malloc(n ? n : 1);
        if (!o.p)
            return fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1);
        memcpy(o.p, in, n);
        o.len = n;
        rc = 0;
    } else if (comp_type == IOLENS_COMP_ZLIB) {
#ifdef IOLENS_HAVE_LIBDEFLATE
        /* Large regions: reserve the whole limit up front (address space only;
         * untouched pages cost nothing) so the stream is decoded once, then give
         * the rest back below.  If the reservation fails, grow from the hint. */
        if (len >= ((size_t)1 << 20) && max_out > o.hint && (o.p = malloc(max_out)))
            o.cap = max_out;
        rc = run_libdeflate(in, len, &o, d, dl);
#else
        rc = run_zlib(in, len, 0, &o, d, dl);
#endif
    } else if (comp_type == IOLENS_COMP_BZIP2) {
#ifdef IOLENS_HAVE_BZIP2
        rc = run_bzip2(in, len, &o, d, dl);
#else
        return fail(d, dl, IOLENS_E_UNSUPPORTED, "bzip2 support not built in", -1);
#endif
    } else {
        return fail(d, dl, IOLENS_E_BAD_COMPRESSION, "unknown compression type", -1);
    }
    if (rc == 1 && !clip)
        rc = fail(d, dl, IOLENS_E_DECOMPRESS,
                  "decompressed size exceeds the safety limit (possible decompression bomb)", -1);
    else if (rc == 1)
        rc = 0;
    if (rc < 0) {
        free(o.p);
        return rc;
    }
    if (!o.p && !(o.p = malloc(1)))
        return fail(d, dl, IOLENS_E_NOMEM, "out of memory", -1);
    if (o.cap > o.len + ((size_t)1 << 20)) {   /* return unused room (no copy for large blocks) */
        void *np = realloc(o.p, o.len ? o.len : 1);
        if (np)
            o.p = np;
    }
    *out = o.p;
    *outlen = o.len;
    return IOLENS_OK;
}
