/* Unit test of the DFS/DAOS handle table (src/runtime/modules/daos_handles.c)
 * against a plain reference: random puts and drops at up to 3/4 load (so probe
 * runs wrap and overlap), every live key found with its newest index, every
 * dropped one gone; a table filled to its last slot, where a drop must still end
 * (its scan for an empty slot found none); and, after a long run of
 * open-then-close of fresh keys (DAOS never reuses a cookie), the table is all
 * zero again: a drop leaves no marker behind, so misses never scan a table full of
 * them.  The table is compiled in with stand-ins for the three core functions it
 * uses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt.h"
#include "modules/daos_handles.h"

#include "../c/check.h"

/* ------------------------------------------------------------ core stand-ins */
static int failures;
void iol_fail(enum iol_failure what) { (void)what; failures++; }
void *iol_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
void iol_unmap(void *p, size_t len) { munmap(p, len); }

/* ------------------------------------------------------------ the reference */
#define NKEYS 6000
static uint64_t keys[NKEYS];
static uint32_t want[NKEYS];           /* index + 1; 0: not in the table */

static int table_is_zero(const iol_daos_handles *t)
{
    static const iol_daos_handle zero;
    for (size_t i = 0; i < IOL_DAOS_HANDLES; i++)
        if (memcmp(&t->e[i], &zero, sizeof zero) != 0)
            return 0;
    return 1;
}

static void check_against_reference(iol_daos_handles *t, const char *when)
{
    int bad = 0;
    for (int i = 0; i < NKEYS; i++) {
        iol_daos_handle *h = iol_daos_handle_find(t, keys[i]);
        bad += want[i] ? !h || h->index + 1 != want[i] : h != NULL;
    }
    CHECK(bad == 0, "%s: %d keys differ from the reference", when, bad);
}

static void test_random_against_reference(void)
{
    iol_daos_handles t;
    CHECK(iol_daos_handles_open(&t) == 0, "open");
    /* 6,000 keys, at most 3/4 of the slots live: long, wrapping probe runs. */
    for (int i = 0; i < NKEYS; i++)
        keys[i] = ((uint64_t)(i % 97) << 3) | ((uint64_t)i << 44);
    memset(want, 0, sizeof want);
    int live = 0;
    srand(12345);
    for (int step = 0; step < 200000; step++) {
        int i = rand() % NKEYS;
        if (want[i] && rand() % 2) {
            iol_daos_handle_drop(&t, keys[i]);
            want[i] = 0;
            live--;
        } else if (want[i] || live < IOL_DAOS_HANDLES * 3 / 4) {
            uint32_t idx = (uint32_t)(rand() % 100000);
            live += !want[i];
            iol_daos_handle_put(&t, keys[i], idx);
            want[i] = idx + 1;
        }
        if (step % 20000 == 0)
            check_against_reference(&t, "during");
    }
    check_against_reference(&t, "after the random run");
    CHECK(failures == 0, "no put found the table full (%d)", failures);
    for (int i = 0; i < NKEYS; i++)
        if (want[i])
            iol_daos_handle_drop(&t, keys[i]);
    CHECK(table_is_zero(&t), "every key dropped: the table is all zero");
    iol_daos_handles_close(&t);
}

/* Every slot used: a drop must end (it ran forever while its own slot still
 * counted as used), the others stay found, and dropping them all empties it. */
static void test_full_table(void)
{
    iol_daos_handles t;
    CHECK(iol_daos_handles_open(&t) == 0, "open");
    for (int i = 0; i < IOL_DAOS_HANDLES; i++)
        iol_daos_handle_put(&t, (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull, (uint32_t)i);
    int before = failures;
    iol_daos_handle_put(&t, 0xfeedull, 1);
    CHECK(failures == before + 1, "a put into the full table is a counted failure");
    failures = before;
    iol_daos_handle_drop(&t, 1 * 0x9e3779b97f4a7c15ull);
    int bad = iol_daos_handle_find(&t, 1 * 0x9e3779b97f4a7c15ull) != NULL;
    for (int i = 1; i < IOL_DAOS_HANDLES; i++) {
        iol_daos_handle *h = iol_daos_handle_find(&t, (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
        bad += !h || h->index != (uint32_t)i;
    }
    CHECK(bad == 0, "after a drop from the full table: %d keys wrong", bad);
    for (int i = 1; i < IOL_DAOS_HANDLES; i++)
        iol_daos_handle_drop(&t, (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
    CHECK(table_is_zero(&t), "every key dropped from the full table: all zero");
    iol_daos_handles_close(&t);
}

static void test_open_close_leaves_no_trace(void)
{
    iol_daos_handles t;
    CHECK(iol_daos_handles_open(&t) == 0, "open");
    for (uint64_t cookie = 1; cookie <= 4 * IOL_DAOS_HANDLES; cookie++) {
        iol_daos_handle_put(&t, cookie * 0x9e3779b97f4a7c15ull, 7);
        iol_daos_handle_drop(&t, cookie * 0x9e3779b97f4a7c15ull);
    }
    CHECK(table_is_zero(&t), "after 16,384 opens and closes the table is all zero");
    CHECK(iol_daos_handle_find(&t, 42) == NULL, "a miss on the empty table");
    iol_daos_handles_close(&t);
}

int main(void)
{
    test_random_against_reference();
    test_full_table();
    test_open_close_leaves_no_trace();
    return check_result("test_daos_handles");
}
