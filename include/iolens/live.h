/* The live trailer of a safety copy (docs/live.md): the last 64 bytes of the
 * file, outside every log region, so that `iolens recover` and any 3.41 reader
 * ignore it and a copy without it (an older runtime) still reads as a log.
 *
 * It tells a live reader where the record seq table is: for a record of a module
 * with record locks (POSIX, STDIO, MPI-IO) at file offset o, its sequence word
 * (uint32, little-endian) is at seq_off + ((o - pool_off) >> seq_shift) * 4.  The
 * word is odd while the process updates the record; a reader copies the record
 * between two equal even readings, else retries (a record whose word stays odd
 * belongs to a process that died inside an update). */
#ifndef IOLENS_LIVE_H
#define IOLENS_LIVE_H

#include <stdint.h>

#define IOLENS_LIVE_MAGIC "IOLLIVE1"

typedef struct iolens_live_trailer {
    char magic[8];           /* IOLENS_LIVE_MAGIC */
    uint64_t pool_off;       /* file offset of the record pool */
    uint64_t seq_off;        /* file offset of the seq table */
    uint64_t seq_len;        /* its bytes */
    uint32_t seq_shift;      /* one word per 2^seq_shift bytes of pool */
    uint32_t pid;            /* the process */
    uint8_t reserved[24];
} iolens_live_trailer;
_Static_assert(sizeof(iolens_live_trailer) == 64, "the trailer is 64 bytes");

#endif
