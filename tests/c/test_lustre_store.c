/* The LUSTRE record store's decoder (include/iolens/lustre_store.h), on stores
 * built here as the runtime writes them: live, dead, busy (being rewritten) and
 * duplicated entries (a death between a move's two steps), every prefix of a
 * store (a death at any store), and damaged headers. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "iolens/lustre_store.h"

static uint8_t store[8192], out[8192];
static size_t used;

static void start(void)
{
    memset(store, 0, sizeof store);
    memcpy(store, IOLENS_LUSTRE_STORE_MAGIC, 8);
    uint32_t v = 2;
    memcpy(store + 8, &v, 4);
    used = IOLENS_LUSTRE_STORE_HDR;
}

/* A record of id with ncomps components and nosts OST ids (values from id). */
static size_t record(uint8_t *p, uint64_t id, int64_t ncomps, int64_t nosts)
{
    size_t len = 32 + 72 * (size_t)ncomps + 8 * (size_t)nosts;
    int64_t head[3] = {0, ncomps, nosts};
    memcpy(p, &id, 8);
    memcpy(p + 8, head, 24);
    for (size_t i = 32; i < len; i++)
        p[i] = (uint8_t)(id + i);
    return len;
}

/* Append an entry (cap bytes, a record in it) with state; its offset. */
static size_t entry(uint64_t id, int64_t ncomps, int64_t nosts, uint32_t cap, uint32_t state)
{
    size_t off = used;
    size_t len = record(store + off + 8, id, ncomps, nosts);
    if (!cap)
        cap = (uint32_t)len;
    uint64_t w = (uint64_t)state << 32 | cap;
    memcpy(store + off, &w, 8);
    used += 8 + cap;
    return off;
}

static uint64_t id_at(size_t off)
{
    uint64_t id;
    memcpy(&id, out + off, 8);
    return id;
}

static void test_states(void)
{
    start();
    entry(1, 1, 2, 0, IOLENS_LUSTRE_LIVE);            /* 120 bytes */
    entry(2, 1, 1, 0, IOLENS_LUSTRE_DEAD);
    entry(3, 2, 0, 256, IOLENS_LUSTRE_LIVE);          /* room left after the record */
    entry(4, 1, 0, 0, IOLENS_LUSTRE_BUSY);            /* torn: left out */
    size_t n = iolens_lustre_store_region(store, sizeof store, out, sizeof out);
    CHECK(n == 120 + 176, "live records only: %zu", n);
    CHECK(id_at(0) == 1 && id_at(120) == 3, "order");
    uint8_t want[512];
    CHECK(memcmp(out + 120, want, record(want, 3, 2, 0)) == 0, "record bytes");
}

static void test_moved(void)
{
    /* a record that grew: the new entry is LIVE, the process died before the old
     * one became DEAD; the newer one is kept, in its place */
    start();
    entry(7, 1, 1, 0, IOLENS_LUSTRE_LIVE);
    entry(8, 1, 0, 0, IOLENS_LUSTRE_LIVE);
    entry(7, 2, 9, 0, IOLENS_LUSTRE_LIVE);
    size_t n = iolens_lustre_store_region(store, sizeof store, out, sizeof out);
    CHECK(n == 104 + 32 + 144 + 72, "one record of id 7: %zu", n);
    CHECK(id_at(0) == 8 && id_at(104) == 7, "the newer record of 7 kept");
    int64_t ncomps;
    memcpy(&ncomps, out + 104 + 16, 8);
    CHECK(ncomps == 2, "its layout");
}

static void test_prefixes(void)
{
    /* every prefix (a store cut by a death, or a short file) decodes to whole
     * records and never reads beyond it */
    start();
    entry(1, 1, 4, 0, IOLENS_LUSTRE_LIVE);
    entry(2, 3, 10, 0, IOLENS_LUSTRE_LIVE);
    entry(3, 1, 0, 0, IOLENS_LUSTRE_LIVE);
    size_t full = iolens_lustre_store_region(store, used, out, sizeof out), prev = 0;
    CHECK(full == 136 + 328 + 104, "whole store %zu", full);
    for (size_t len = 0; len <= used; len++) {
        uint8_t *copy = malloc(len ? len : 1);     /* exact size: asan sees overreads */
        memcpy(copy, store, len);
        size_t n = iolens_lustre_store_region(copy, len, out, sizeof out);
        CHECK(n == 0 || n == 136 || n == 136 + 328 || n == full, "prefix %zu: %zu", len, n);
        CHECK(n >= prev, "prefix %zu shrank", len);
        prev = n;
        free(copy);
    }
}

static void test_hostile(void)
{
    start();
    entry(1, 1, 0, 0, IOLENS_LUSTRE_LIVE);
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 104, "good");
    store[0] ^= 1;
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 0, "bad magic");
    store[0] ^= 1;
    uint8_t version_byte = store[8];      /* of the 64-bit version, in host order */
    store[8] ^= 3;
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 0, "another version");
    store[8] = version_byte;
    uint64_t w = (uint64_t)IOLENS_LUSTRE_LIVE << 32 | 0xFFFFFFF8u;   /* cap beyond the store */
    memcpy(store + used, &w, 8);
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 104, "huge cap");
    w = (uint64_t)IOLENS_LUSTRE_LIVE << 32 | 13;                     /* not a multiple of 8 */
    memcpy(store + used, &w, 8);
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 104, "odd cap");
    /* a record claiming more than its entry holds */
    start();
    size_t off = entry(5, 1, 0, 0, IOLENS_LUSTRE_LIVE);
    int64_t many = 1000;
    memcpy(store + off + 8 + 24, &many, 8);
    CHECK(iolens_lustre_store_region(store, sizeof store, out, sizeof out) == 0, "overlong");
    CHECK(iolens_lustre_record_len(store + off + 8, 104) == 0, "record_len refuses it");
    CHECK(iolens_lustre_store_region(store, 10, out, sizeof out) == 0, "short header");
}

int main(void)
{
    test_states();
    test_moved();
    test_prefixes();
    test_hostile();
    return check_result("test_lustre_store");
}
