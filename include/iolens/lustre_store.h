/* The runtime's LUSTRE record store (docs/runtime.md, "Lustre"), shared by the
 * runtime, which fills it, and `iolens recover`, which reads it back from the file
 * the runtime keeps it in beside its safety copy (<copy>.lustre,
 * docs/recovery.md).
 *
 * A store is one block of memory, zero-filled when made: a 16-byte header (the
 * magic, then the record version of the records, then 4 bytes of zeros), then
 * entries.  An entry is one 8-byte word, cap (low 32 bits, a multiple of 8) and
 * state (high 32 bits), then cap bytes holding one LUSTRE record of version 2
 * (log-format spec 7.9, host byte order) from its start.  A word of 0 ends the
 * store.
 *
 * Consistency: the runtime writes a new entry's record first and its word last,
 * so every prefix of its stores decodes; it rewrites a record in place only
 * between the states BUSY and LIVE; when a record moves to a new entry, the new
 * entry is LIVE before the old one is DEAD, so a store can hold two LIVE entries
 * of one id only when the process died between the two, and then the later one
 * is the newer.  The decoder below never reads outside [store, store + len) and
 * stops at the first entry that does not fit, so it accepts a hostile file too. */
#ifndef IOLENS_LUSTRE_STORE_H
#define IOLENS_LUSTRE_STORE_H

#include <stddef.h>
#include <stdint.h>

/* The store's file is the safety copy's name plus "." and this suffix. */
#define IOLENS_LUSTRE_STORE_SUFFIX "lustre"
#define IOLENS_LUSTRE_STORE_MAGIC "IOLLUS01"
#define IOLENS_LUSTRE_STORE_HDR 16
#define IOLENS_LUSTRE_STORE_VERSION 2       /* the LUSTRE record version it holds */
#define IOLENS_LUSTRE_MAX_COMPS 256       /* as a layout can hold (64 KiB xattr) */
#define IOLENS_LUSTRE_MAX_OSTS 2730

enum { IOLENS_LUSTRE_LIVE = 1, IOLENS_LUSTRE_DEAD = 2, IOLENS_LUSTRE_BUSY = 3 };

/* The length of the version-2 LUSTRE record at rec (avail bytes there), from its
 * num_comps and num_stripes; 0 when they are out of range or it does not fit. */
size_t iolens_lustre_record_len(const void *rec, size_t avail);

/* The LIVE records of the store (len bytes), packed in store order into out (cap
 * bytes; len bytes always suffice), a torn duplicate left out as described
 * above.  Returns the bytes written: 0 for a store without records, a bad magic,
 * or a version other than 2. */
size_t iolens_lustre_store_region(const void *store, size_t len, void *out, size_t cap);

#endif
