/* The side tables of the DFS and DAOS modules: which record an open handle
 * belongs to (a dfs_obj_t pointer, a DAOS object handle's cookie), and which pool
 * and container a mount or container handle names.  Both are fixed in size, so
 * memory stays bounded: a handle that finds its table full is not followed (a
 * counted failure) and its calls go unrecorded.  Callers hold their module's
 * lock; a table is zeroed memory when empty. */
#ifndef IOLENS_RUNTIME_DAOS_HANDLES_H
#define IOLENS_RUNTIME_DAOS_HANDLES_H

#include <stdint.h>

#define IOL_DAOS_HANDLES 4096          /* open handles per module (a power of two) */
#define IOL_DAOS_CONTAINERS 64         /* mounts / container handles per module */

typedef struct iol_daos_handle {
    uint64_t key;
    uint32_t index;                    /* the record's */
    uint32_t used;                     /* 0: a free slot (all zero) */
} iol_daos_handle;

/* IOL_DAOS_HANDLES entries, iol_map'd at the module's activation (NULL: none). */
typedef struct iol_daos_handles {
    iol_daos_handle *e;
} iol_daos_handles;

int iol_daos_handles_open(iol_daos_handles *t);
void iol_daos_handles_close(iol_daos_handles *t);
/* The entry of key, or NULL (valid until the next put or drop: a drop moves
 * entries). */
iol_daos_handle *iol_daos_handle_find(iol_daos_handles *t, uint64_t key);
/* key -> record index (the newest mapping of a key wins). */
void iol_daos_handle_put(iol_daos_handles *t, uint64_t key, uint32_t index);
void iol_daos_handle_drop(iol_daos_handles *t, uint64_t key);

typedef struct iol_daos_container {
    uint64_t key;                      /* a dfs_t pointer, a container handle's cookie */
    int used;
    unsigned char uuids[32];           /* pool, then container */
} iol_daos_container;

/* The uuids of key, or 32 zero bytes when it is not known (upstream's record id
 * then hashes zeros for them). */
const unsigned char *iol_daos_container_uuids(const iol_daos_container *t, uint64_t key);
void iol_daos_container_put(iol_daos_container *t, uint64_t key, const unsigned char uuids[32]);
void iol_daos_container_drop(iol_daos_container *t, uint64_t key);

#endif
