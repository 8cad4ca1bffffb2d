/* The runtime's DXT trace store (docs/dxt.md), shared by the runtime, which fills
 * it, and `iolens recover`, which reads it back from the file the runtime keeps it
 * in beside its safety copy.
 *
 * A store is one block of memory: this header at offset 0, then files and chunks
 * allocated upwards.  Every link is a byte offset from the start of the block (0 =
 * none), so the same bytes mean the same thing in the process and in the file.
 * Layout is the host's (little-endian x86-64 / aarch64), 8-byte aligned (the
 * runtime starts every file and chunk on a 64-byte line).
 *
 * A segment is stored as four LEB128 varints of zigzag differences from the
 * previous segment of its lane: offset from the previous end (offset + length),
 * length from the previous length, start from the previous end time, duration;
 * times in whole nanoseconds since the process's start.  The lane's state starts
 * at 0.  A chunk holds the segments of one grant.  A store whose header has
 * IOLENS_DXT_STORE_THREADS set adds a fifth varint to every segment: the index of
 * the calling thread in the header's thread table (a thread id is 8 bytes, and a
 * process has few threads; an index past the table stands for an unknown thread,
 * written as id 0).  Such a store gives the thread-id versions of the log
 * (DXT_POSIX 2, DXT_MPIIO 3: 40-byte segments).  A store whose header has
 * IOLENS_DXT_STORE_REGIONS set adds one more varint after those: the region the
 * call ran in (docs/regions.md, "DXT segments"), 0 outside every region, k the
 * region whose REGION record id is regions[k - 1] in the header, and any index
 * past the table a region not recorded (unknown).  The flag is set at the start
 * when the REGION module is on, so a store is decoded the same way whenever it is
 * read; the regions go to the log's DXT_REGION extension, never into the DXT
 * segments, whose layout stays upstream's.
 *
 * Consistency: the runtime updates a store so that every prefix of its stores
 * decodes to whole segments (the log may be written, or the process killed, at
 * any instruction); the decoder below never reads outside [base, base + len) and
 * stops at the first thing that does not fit, so it accepts a hostile file too. */
#ifndef IOLENS_DXT_STORE_H
#define IOLENS_DXT_STORE_H

#include <stddef.h>
#include <stdint.h>

#define IOLENS_DXT_STORE_MAGIC "IOLDXTS1"
#define IOLENS_DXT_STORE_HDR 8192    /* the header's pages; files and chunks follow */
#define IOLENS_DXT_MAX_ENC 45        /* bytes of the longest encoded segment */
#define IOLENS_DXT_STORE_THREADS 1u  /* flags: segments carry a thread index */
#define IOLENS_DXT_MAX_THREADS 480   /* thread table entries (fits the header page) */
#define IOLENS_DXT_STORE_REGIONS 2u  /* flags: segments carry a region index */
#define IOLENS_DXT_MAX_REGIONS 254   /* region table entries: indices fit one log byte */

typedef struct iolens_dxt_store_hdr {
    char magic[8];
    uint32_t modid;              /* 10 DXT_POSIX, 11 DXT_MPIIO */
    uint32_t cut;                /* a segment or file was dropped (partial) */
    int64_t rank;
    uint64_t len;                /* bytes of the store */
    uint64_t used;               /* allocated so far (files and chunks) */
    int64_t remaining;           /* budget left, in upstream's accounting */
    uint64_t first, last;        /* files in creation order */
    char host[64];               /* node name, NUL-padded */
    uint32_t flags;              /* IOLENS_DXT_STORE_THREADS */
    uint32_t nthreads;           /* entries of threads[] in use */
    uint64_t threads[IOLENS_DXT_MAX_THREADS];   /* pthread_self() of each index */
    uint32_t nregions;           /* entries of regions[] in use */
    uint32_t pad;
    uint64_t regions[IOLENS_DXT_MAX_REGIONS];   /* REGION record id of index k + 1 */
} iolens_dxt_store_hdr;

_Static_assert(sizeof(iolens_dxt_store_hdr) <= IOLENS_DXT_STORE_HDR,
               "the store header fits its page");

/* The segments of one file in one direction. */
typedef struct iolens_dxt_lane {
    uint64_t pos;                /* next free byte of the last chunk */
    int64_t n, room;             /* segments stored, and granted */
    int64_t sealed;              /* segments in the chunks before the last */
    uint64_t prev_end_off, prev_len, prev_end_ns;   /* encoder state (wrapping) */
    uint64_t first, last;        /* chunks */
} iolens_dxt_lane;

typedef struct iolens_dxt_file {
    uint64_t id;                 /* record id of the traced file */
    uint64_t next;
    int32_t dropped;             /* removed by a trigger at shutdown */
    int32_t pad;
    iolens_dxt_lane lane[2];     /* 0 read, 1 write */
} iolens_dxt_file;

typedef struct iolens_dxt_chunk {
    uint64_t next;
    int64_t nseg;                /* segments, once sealed (not the last chunk) */
    uint64_t end;                /* end of its bytes, once sealed */
    /* encoded segments follow */
} iolens_dxt_chunk;

/* The encoding: append v as a LEB128 varint at p (returns the end), and the
 * zigzag of the wrapping difference a - b (small magnitudes of either sign stay
 * small).  Inline: the runtime calls them for every traced operation. */
static inline uint8_t *iolens_dxt_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}
static inline uint64_t iolens_dxt_delta(uint64_t a, uint64_t b)
{
    int64_t d = (int64_t)(a - b);
    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

/* The DXT region a store gives (log-format 7.10; 32-byte segments, DXT_POSIX v1 and
 * DXT_MPIIO v2, or with thread ids 40-byte segments, DXT_POSIX v2 and DXT_MPIIO v3,
 * as iolens_dxt_store_version says): for each file not dropped with segments, the
 * 104-byte record (id, rank, 0, hostname, write_count, read_count), its writes,
 * then its reads.
 * iolens_dxt_store_bound gives an upper bound of the size (0: no segments or not
 * a store); iolens_dxt_store_region fills out (cap bytes) and returns the bytes
 * written.  rank: the rank written in the records (< 0: the store's own). */
size_t iolens_dxt_store_bound(const uint8_t *base, size_t len);
size_t iolens_dxt_store_region(const uint8_t *base, size_t len, int64_t rank, uint8_t *out,
                               size_t cap);
/* The record version of the region a store gives (0: not a store). */
int iolens_dxt_store_version(const uint8_t *base, size_t len);

/* The DXT_REGION extension records of a store's DXT region (format:
 * iolens/dxt_region.h), one per record iolens_dxt_store_region gives, in the
 * same order with the same segments: 0 when the store carries no regions or its
 * region table is empty (no segment ran in a recorded region).
 * Same contract as the two above; `module` is the store's DXT module id. */
size_t iolens_dxt_store_regions_bound(const uint8_t *base, size_t len);
size_t iolens_dxt_store_regions(const uint8_t *base, size_t len, int64_t rank, uint8_t *out,
                                size_t cap);

#endif
