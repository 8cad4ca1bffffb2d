/* The handle and container tables of the DFS and DAOS modules (daos_handles.h). */
#include "daos_handles.h"

#include <string.h>

#include "../core/rt.h"

int iol_daos_handles_open(iol_daos_handles *t)
{
    t->e = iol_map(IOL_DAOS_HANDLES * sizeof *t->e);
    return t->e ? 0 : -1;
}

void iol_daos_handles_close(iol_daos_handles *t)
{
    if (t->e)
        iol_unmap(t->e, IOL_DAOS_HANDLES * sizeof *t->e);
    t->e = NULL;
}

static size_t slot_of(uint64_t key)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(key >> 40) & (IOL_DAOS_HANDLES - 1);
}

static size_t next_slot(size_t s) { return (s + 1) & (IOL_DAOS_HANDLES - 1); }

iol_daos_handle *iol_daos_handle_find(iol_daos_handles *t, uint64_t key)
{
    for (size_t s = slot_of(key), k = 0; t->e && k < IOL_DAOS_HANDLES; s = next_slot(s), k++) {
        if (!t->e[s].used)
            return NULL;
        if (t->e[s].key == key)
            return &t->e[s];
    }
    return NULL;
}

void iol_daos_handle_put(iol_daos_handles *t, uint64_t key, uint32_t index)
{
    iol_daos_handle *e = iol_daos_handle_find(t, key);
    for (size_t s = slot_of(key), k = 0; !e && t->e && k < IOL_DAOS_HANDLES; s = next_slot(s), k++)
        if (!t->e[s].used)
            e = &t->e[s];
    if (!e) {
        iol_fail(IOL_FAIL_HANDLES);
        return;
    }
    *e = (iol_daos_handle){key, index, 1};
}

/* Linear probing with backward-shift deletion: the entries after the freed slot
 * that probed past it move back, so no "removed" marker is left behind.  With
 * markers, a long run that opens and closes many objects (DAOS never reuses a
 * handle's cookie) would fill the table with them, and every miss -- each open,
 * each call on an untracked handle -- would then scan all slots under the lock. */
void iol_daos_handle_drop(iol_daos_handles *t, uint64_t key)
{
    iol_daos_handle *e = iol_daos_handle_find(t, key);
    if (!e)
        return;
    /* The hole is emptied first and each moved entry's old slot at once: the scan
     * stops at the first empty slot, and in a table that was full the hole is the
     * only one (left marked used, the scan would never end). */
    size_t hole = (size_t)(e - t->e);
    t->e[hole] = (iol_daos_handle){0};
    for (size_t s = next_slot(hole); t->e[s].used; s = next_slot(s)) {
        /* the entry at s may fill the hole when its home is not cyclically in (hole, s] */
        size_t home = slot_of(t->e[s].key);
        int home_after_hole = hole <= s ? (home > hole && home <= s) : (home > hole || home <= s);
        if (!home_after_hole) {
            t->e[hole] = t->e[s];
            t->e[s] = (iol_daos_handle){0};
            hole = s;
        }
    }
}

static const iol_daos_container *container_of(const iol_daos_container *t, uint64_t key)
{
    for (int i = 0; i < IOL_DAOS_CONTAINERS; i++)
        if (t[i].used && t[i].key == key)
            return &t[i];
    return NULL;
}

const unsigned char *iol_daos_container_uuids(const iol_daos_container *t, uint64_t key)
{
    static const unsigned char none[32];
    const iol_daos_container *c = container_of(t, key);
    return c ? c->uuids : none;
}

void iol_daos_container_put(iol_daos_container *t, uint64_t key, const unsigned char uuids[32])
{
    iol_daos_container *c = (iol_daos_container *)container_of(t, key);
    for (int i = 0; !c && i < IOL_DAOS_CONTAINERS; i++)
        if (!t[i].used)
            c = &t[i];
    if (!c) {
        iol_fail(IOL_FAIL_HANDLES);
        return;
    }
    c->key = key;
    c->used = 1;
    memcpy(c->uuids, uuids, 32);
}

void iol_daos_container_drop(iol_daos_container *t, uint64_t key)
{
    iol_daos_container *c = (iol_daos_container *)container_of(t, key);
    if (c)
        memset(c, 0, sizeof *c);
}
