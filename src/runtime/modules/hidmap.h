/* Open handles of a library (HDF5 ids) -> record index, for modules whose calls
 * name a handle rather than a path.  A fixed open-addressing table in memory the
 * module maps at activation: no allocation while a wrapper runs.  A handle that
 * does not fit is not tracked (its later calls are not counted) and the failure
 * is counted once per handle.  Callers hold their module's lock. */
#ifndef IOLENS_RUNTIME_HIDMAP_H
#define IOLENS_RUNTIME_HIDMAP_H

#include <stdint.h>

#include "../core/rt.h"

#define IOL_HIDMAP_SLOTS 8192        /* power of two; 128 KiB of address space */

typedef struct iol_hid_slot {
    int64_t key;
    uint32_t rec;                    /* record index + 1; 0 empty, UINT32_MAX deleted */
    uint32_t pad;
} iol_hid_slot;

typedef struct iol_hidmap {
    iol_hid_slot *slot;              /* NULL until mapped */
} iol_hidmap;

static inline int iol_hidmap_init(iol_hidmap *h)
{
    h->slot = iol_map(IOL_HIDMAP_SLOTS * sizeof *h->slot);
    return h->slot ? 0 : -1;
}

static inline void iol_hidmap_release(iol_hidmap *h)
{
    iol_unmap(h->slot, IOL_HIDMAP_SLOTS * sizeof *h->slot);
    h->slot = NULL;
}

static inline size_t iol_hidmap_home(int64_t key)
{
    uint64_t k = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 51) & (IOL_HIDMAP_SLOTS - 1);
}

/* The record index + 1 of key, or 0. */
static inline uint32_t iol_hidmap_get(const iol_hidmap *h, int64_t key)
{
    if (!h->slot)
        return 0;
    for (size_t i = iol_hidmap_home(key), n = 0; n < IOL_HIDMAP_SLOTS;
         i = (i + 1) & (IOL_HIDMAP_SLOTS - 1), n++) {
        if (h->slot[i].rec == 0)
            return 0;
        if (h->slot[i].rec != UINT32_MAX && h->slot[i].key == key)
            return h->slot[i].rec;
    }
    return 0;
}

/* Map key to rec (index + 1), replacing an earlier mapping of the same key
 * (HDF5 reuses the numbers of closed ids). */
static inline void iol_hidmap_put(iol_hidmap *h, int64_t key, uint32_t rec)
{
    if (!h->slot)
        return;
    size_t free_at = SIZE_MAX;
    for (size_t i = iol_hidmap_home(key), n = 0; n < IOL_HIDMAP_SLOTS;
         i = (i + 1) & (IOL_HIDMAP_SLOTS - 1), n++) {
        iol_hid_slot *s = &h->slot[i];
        if (s->rec == UINT32_MAX) {
            if (free_at == SIZE_MAX)
                free_at = i;
            continue;
        }
        if (s->rec == 0) {
            if (free_at == SIZE_MAX)
                free_at = i;
            break;
        }
        if (s->key == key) {
            s->rec = rec;
            return;
        }
    }
    if (free_at == SIZE_MAX) {
        iol_fail(IOL_FAIL_FDTABLE);
        return;
    }
    h->slot[free_at] = (iol_hid_slot){key, rec, 0};
}

static inline void iol_hidmap_del(iol_hidmap *h, int64_t key)
{
    if (!h->slot)
        return;
    for (size_t i = iol_hidmap_home(key), n = 0; n < IOL_HIDMAP_SLOTS;
         i = (i + 1) & (IOL_HIDMAP_SLOTS - 1), n++) {
        iol_hid_slot *s = &h->slot[i];
        if (s->rec == 0)
            return;
        if (s->rec != UINT32_MAX && s->key == key) {
            s->rec = UINT32_MAX;
            return;
        }
    }
}

#endif
