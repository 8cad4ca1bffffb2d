/* Streaming decompression of one region (log-format 3.1-3.3): the payload comes
 * out through a 1 MiB window while the compressed bytes are read from the file
 * in 256 KiB chunks, so a reader of any size of region holds about 1.3 MiB.
 *
 * The payload is the same byte sequence iol_inflate() returns: every complete
 * stream back to back; a region that ends inside a stream yields what was
 * decoded so far; anything else that does not decode is an error at the
 * compressed byte where it was found.  The bomb guard is the ratio part of
 * iol_region_cap() only: nothing is held, so no absolute ceiling is needed. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#ifdef IOLENS_HAVE_BZIP2
#include <bzlib.h>
#endif
#include "internal.h"
#include "log_impl.h"

#define ZS_OUT ((size_t)1 << 20)
#define ZS_IN ((size_t)256 << 10)
#define ZS_MEM_CHUNK ((size_t)1 << 30)    /* zlib/bzip2 take 32-bit lengths */

struct iol_zs {
    iolens_log *log;
    int comp;
    char what[48];
    iolens_region r;
    uint64_t next_in;          /* region offset of the next input chunk to fetch */
    uint64_t used_in;          /* compressed bytes consumed by the decoder */
    const uint8_t *in;         /* current input chunk */
    size_t in_left;
    uint8_t *inbuf;            /* file mode: the chunk buffer */
    int fd;                    /* file mode: the log's file, for the iterator's life */
    uint8_t *out;
    size_t out_start, out_end; /* unread payload is out[out_start..out_end) */
    uint64_t total, cap, consumed;
    int active;                /* a zlib/bzip2 stream is open */
    int zinit;
    int ended;
    int err;                   /* first error, returned by every later call */
    z_stream zs;
#ifdef IOLENS_HAVE_BZIP2
    bz_stream bs;
#endif
};

static uint64_t stream_cap(uint64_t len)
{
    uint64_t floor = (uint64_t)256 << 20;
    if (len > UINT64_MAX / 5000u)
        return UINT64_MAX;
    return len * 5000u > floor ? len * 5000u : floor;
}

static int zs_fail(iol_zs *z, int code, const char *msg, long long at)
{
    char detail[200];
    if (at >= 0)
        snprintf(detail, sizeof detail, "%s at compressed byte %lld", msg, at);
    else
        snprintf(detail, sizeof detail, "%s", msg);
    z->err = iol_log_fail(z->log, code, "%s region [off %llu, len %llu]: %s", z->what,
                          (unsigned long long)z->r.off, (unsigned long long)z->r.len, detail);
    return z->err;
}

int iol_zs_open(iolens_log *log, iolens_region r, const char *what, iol_zs **out)
{
    *out = NULL;
    iol_zs *z = calloc(1, sizeof *z);
    if (!z)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory opening the %s region", what);
    z->log = log;
    z->comp = log->hdr.comp_type;
    snprintf(z->what, sizeof z->what, "%s", what);
    z->r = r;
    z->cap = stream_cap(r.len);
    z->fd = -1;
    z->out = malloc(ZS_OUT);
    if (log->from_file)
        z->inbuf = malloc(ZS_IN);
    if (!z->out || (log->from_file && !z->inbuf)) {
        iol_zs_close(z);
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory opening the %s region", what);
    }
    int rc = log->from_file ? iol_log_fd(log, &z->fd) : IOLENS_OK;
    if (rc) {
        iol_zs_close(z);
        return rc;
    }
#ifndef IOLENS_HAVE_BZIP2
    if (z->comp == IOLENS_COMP_BZIP2) {
        rc = zs_fail(z, IOLENS_E_UNSUPPORTED, "bzip2 support not built in", -1);
        iol_zs_close(z);
        return rc;
    }
#endif
    *out = z;
    return IOLENS_OK;
}

void iol_zs_close(iol_zs *z)
{
    if (!z)
        return;
    if (z->zinit)
        inflateEnd(&z->zs);
#ifdef IOLENS_HAVE_BZIP2
    if (z->comp == IOLENS_COMP_BZIP2 && z->active)
        BZ2_bzDecompressEnd(&z->bs);
#endif
    iol_log_fd_done(z->log, z->fd);
    free(z->inbuf);
    free(z->out);
    free(z);
}

/* Next input chunk when the current one is used up; 0 when the region is. */
static int refill(iol_zs *z)
{
    if (z->in_left)
        return IOLENS_OK;
    uint64_t left = z->r.len - z->next_in;
    if (!left)
        return IOLENS_OK;
    if (!z->log->from_file) {
        z->in = z->log->buf + z->r.off + z->next_in;
        z->in_left = left > ZS_MEM_CHUNK ? ZS_MEM_CHUNK : (size_t)left;
    } else {
        size_t want = left > ZS_IN ? ZS_IN : (size_t)left, got;
        int rc = iol_log_pread_fd(z->log, z->fd, z->r.off + z->next_in, z->inbuf, want, &got);
        if (rc)
            return z->err = rc;
        if (got < want)
            return zs_fail(z, IOLENS_E_TRUNCATED,
                           "the file ended while the region was read (did it shrink?)", -1);
        z->in = z->inbuf;
        z->in_left = got;
    }
    z->next_in += z->in_left;
    return IOLENS_OK;
}

static void took_input(iol_zs *z, size_t n)
{
    z->in += n;
    z->in_left -= n;
    z->used_in += n;
}

/* One decoder step into out[out_end..ZS_OUT).  Sets ended at the end. */
static int step_zlib(iol_zs *z)
{
    if (!z->active) {
        if (!z->in_left) {
            z->ended = 1;            /* every stream complete and nothing follows */
            return IOLENS_OK;
        }
        if (!z->zinit) {
            if (inflateInit(&z->zs) != Z_OK)
                return zs_fail(z, IOLENS_E_NOMEM, "zlib initialisation failed", -1);
            z->zinit = 1;
        } else {
            inflateReset(&z->zs);
        }
        z->active = 1;
    }
    z->zs.next_in = (Bytef *)z->in;
    z->zs.avail_in = (uInt)z->in_left;
    z->zs.next_out = z->out + z->out_end;
    z->zs.avail_out = (uInt)(ZS_OUT - z->out_end);
    int rc = inflate(&z->zs, Z_NO_FLUSH);
    size_t made = (ZS_OUT - z->out_end) - z->zs.avail_out;
    took_input(z, z->in_left - z->zs.avail_in);
    z->out_end += made;
    z->total += made;
    if (rc == Z_STREAM_END) {
        z->active = 0;
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && made == 0 && z->in_left == 0)) {
        if (z->in_left == 0 && z->next_in >= z->r.len)
            z->ended = 1;            /* region ends inside a stream: short payload */
        else if (z->in_left != 0)
            return zs_fail(z, IOLENS_E_DECOMPRESS, "zlib made no progress",
                           (long long)z->used_in);
    } else if (rc != Z_OK) {
        return zs_fail(z, IOLENS_E_DECOMPRESS,
                       rc == Z_MEM_ERROR ? "zlib out of memory"
                       : z->zs.msg ? z->zs.msg : "invalid zlib data", (long long)z->used_in);
    }
    return IOLENS_OK;
}

#ifdef IOLENS_HAVE_BZIP2
static int step_bzip2(iol_zs *z)
{
    if (!z->active) {
        if (!z->in_left) {
            z->ended = 1;
            return IOLENS_OK;
        }
        memset(&z->bs, 0, sizeof z->bs);
        if (BZ2_bzDecompressInit(&z->bs, 0, 0) != BZ_OK)
            return zs_fail(z, IOLENS_E_NOMEM, "bzip2 initialisation failed", -1);
        z->active = 1;
    }
    z->bs.next_in = (char *)z->in;
    z->bs.avail_in = (unsigned)z->in_left;
    z->bs.next_out = (char *)(z->out + z->out_end);
    z->bs.avail_out = (unsigned)(ZS_OUT - z->out_end);
    int rc = BZ2_bzDecompress(&z->bs);
    size_t made = (ZS_OUT - z->out_end) - z->bs.avail_out;
    took_input(z, z->in_left - z->bs.avail_in);
    z->out_end += made;
    z->total += made;
    if (rc == BZ_STREAM_END) {
        BZ2_bzDecompressEnd(&z->bs);
        z->active = 0;
    } else if (rc != BZ_OK) {
        return zs_fail(z, IOLENS_E_DECOMPRESS,
                       rc == BZ_MEM_ERROR ? "bzip2 out of memory" : "invalid bzip2 data",
                       (long long)z->used_in);
    } else if (made == 0 && z->in_left == 0 && z->next_in >= z->r.len) {
        z->ended = 1;                /* region ends inside a stream: short payload */
    }
    return IOLENS_OK;
}
#endif

static int step_none(iol_zs *z)
{
    if (!z->in_left) {
        z->ended = 1;
        return IOLENS_OK;
    }
    size_t n = ZS_OUT - z->out_end < z->in_left ? ZS_OUT - z->out_end : z->in_left;
    memcpy(z->out + z->out_end, z->in, n);
    took_input(z, n);
    z->out_end += n;
    z->total += n;
    return IOLENS_OK;
}

int iol_zs_fill(iol_zs *z, size_t need, const uint8_t **p, size_t *avail)
{
    if (z->err)
        return z->err;
    if (need > ZS_OUT)
        return iol_log_fail(z->log, IOLENS_E_INVALID_ARG, "iol_zs_fill: %zu bytes at once", need);
    if (z->out_end - z->out_start < need && !z->ended) {
        /* move the unread tail to the front, then decode until enough */
        memmove(z->out, z->out + z->out_start, z->out_end - z->out_start);
        z->out_end -= z->out_start;
        z->out_start = 0;
        while (z->out_end < need && !z->ended) {
            int rc = refill(z);
            if (!rc) {
                if (z->comp == IOLENS_COMP_ZLIB)
                    rc = step_zlib(z);
#ifdef IOLENS_HAVE_BZIP2
                else if (z->comp == IOLENS_COMP_BZIP2)
                    rc = step_bzip2(z);
#endif
                else
                    rc = step_none(z);
            }
            if (rc)
                return rc;
            if (z->total > z->cap)
                return zs_fail(z, IOLENS_E_DECOMPRESS,
                               "decompressed size exceeds the safety limit (possible "
                               "decompression bomb)", -1);
        }
    }
    *p = z->out + z->out_start;
    *avail = z->out_end - z->out_start;
    return IOLENS_OK;
}

void iol_zs_consume(iol_zs *z, size_t n)
{
    if (n > z->out_end - z->out_start)
        n = z->out_end - z->out_start;
    z->out_start += n;
    z->consumed += n;
}

uint64_t iol_zs_offset(const iol_zs *z)
{
    return z->consumed;
}
