/* The DXT_REGION extension module (id 42, ours: docs/regions.md, "DXT segments"):
 * the region each DXT segment ran in, kept beside the DXT records so that the
 * DXT segments keep upstream's layout.
 *
 * The module's region (little-endian) is a sequence of records, each 8-byte
 * aligned, one per DXT record that has regions:
 *
 *   uint64 id        the DXT record's file id  \  the DXT record this one
 *   int64  rank      its rank                   |  belongs to: (module, rank,
 *   uint32 module    10 DXT_POSIX, 11 DXT_MPIIO /  id) names one DXT record
 *   uint32 nseg      its segments: write_count + read_count
 *   uint32 ntab      entries of the table, at most 254
 *   uint32 reserved  0
 *   uint64 table[ntab]   REGION record ids (the region's name through the name records)
 *   uint8  index[nseg]   per segment, writes then reads as the DXT record lists them:
 *                        0 outside every region, k in 1..ntab the region table[k - 1],
 *                        255 a region the process did not record (name table full)
 *   zero bytes up to the next multiple of 8
 *
 * Each record carries its own table, so records survive a rewrite that keeps or
 * drops DXT records one by one (convert's selections, merge's rank moves). */
#ifndef IOLENS_DXT_REGION_H
#define IOLENS_DXT_REGION_H

#include <stdint.h>

#define IOLENS_DXT_REGION_MODULE 42
#define IOLENS_DXT_REGION_HDR 32
#define IOLENS_DXT_REGION_MAX_TABLE 254
#define IOLENS_DXT_REGION_UNKNOWN 255

typedef struct iolens_dxt_region_hdr {
    uint64_t id;
    int64_t rank;
    uint32_t module;
    uint32_t nseg;
    uint32_t ntab;
    uint32_t reserved;
} iolens_dxt_region_hdr;

/* Bytes of a record with ntab table entries and nseg segments. */
static inline uint64_t iolens_dxt_region_size(uint64_t ntab, uint64_t nseg)
{
    return (IOLENS_DXT_REGION_HDR + 8 * ntab + nseg + 7) & ~(uint64_t)7;
}

#endif
