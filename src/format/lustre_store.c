/* The LUSTRE record store's decoder (include/iolens/lustre_store.h). */
#include <string.h>

#include "iolens/lustre_store.h"

enum { REC_HEAD = 32, COMP_BYTES = 72 };

size_t iolens_lustre_record_len(const void *rec, size_t avail)
{
    int64_t head[2];
    if (avail < REC_HEAD)
        return 0;
    memcpy(head, (const uint8_t *)rec + 16, 16);
    if (head[0] < 1 || head[0] > IOLENS_LUSTRE_MAX_COMPS || head[1] < 0 ||
        head[1] > IOLENS_LUSTRE_MAX_OSTS)
        return 0;
    size_t len = REC_HEAD + COMP_BYTES * (size_t)head[0] + 8 * (size_t)head[1];
    return len <= avail ? len : 0;
}

/* The entry at off: its word, or 0 when the store ends there (a zero word, or
 * an entry that does not fit). */
static uint64_t entry_at(const uint8_t *s, size_t len, size_t off)
{
    uint64_t w;
    if (off > len || len - off < 8)
        return 0;
    memcpy(&w, s + off, 8);
    uint32_t cap = (uint32_t)w;
    return cap && cap % 8 == 0 && cap <= len - off - 8 ? w : 0;
}

/* The record of a LIVE entry (its length, 0 when it is not one). */
static size_t live_record(const uint8_t *s, size_t len, size_t off, uint64_t w)
{
    return (w >> 32) == IOLENS_LUSTRE_LIVE ? iolens_lustre_record_len(s + off + 8, (uint32_t)w) : 0;
}

size_t iolens_lustre_store_region(const void *store, size_t len, void *out, size_t cap)
{
    const uint8_t *s = store;
    uint32_t version;
    if (len < IOLENS_LUSTRE_STORE_HDR || memcmp(s, IOLENS_LUSTRE_STORE_MAGIC, 8) != 0)
        return 0;
    memcpy(&version, s + 8, 4);
    if (version != IOLENS_LUSTRE_STORE_VERSION)
        return 0;
    /* The last LIVE entry: an earlier LIVE entry of its id is the one it replaced. */
    uint64_t last_id = 0;
    size_t last_off = 0;
    for (size_t off = IOLENS_LUSTRE_STORE_HDR, w; (w = entry_at(s, len, off)) != 0;
         off += 8 + (uint32_t)w)
        if (live_record(s, len, off, w)) {
            memcpy(&last_id, s + off + 8, 8);
            last_off = off;
        }
    size_t n = 0;
    for (size_t off = IOLENS_LUSTRE_STORE_HDR, w; (w = entry_at(s, len, off)) != 0;
         off += 8 + (uint32_t)w) {
        size_t rl = live_record(s, len, off, w);
        uint64_t id;
        memcpy(&id, s + off + 8, 8);
        if (!rl || (id == last_id && off != last_off) || rl > cap - n)
            continue;
        memcpy((uint8_t *)out + n, s + off + 8, rl);
        n += rl;
    }
    return n;
}
