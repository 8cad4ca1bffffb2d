/* iolens_live_read_copy (include/iolens/live_read.h) on real files made here: a
 * copy with a 3.41 header whose module map names two regions (module 1 and 2),
 * read in one call per round: the head returned as read, every layer's records
 * read once and then only when their seq word changed, a state too small
 * (grow), bytes moved per record kept up to date, a region beyond the copy's
 * size; and hostile input (too many layers, a module id >= 64, a NULL state, a
 * copy shorter than its head, a closed fd, module map entries that overflow,
 * garbage): a clear error or no records, never a crash (this test also runs
 * under AddressSanitizer: scripts/test.sh, build-asan). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "scratch_file.h"
#include "iolens/live_read.h"
#include "iolens/log.h"

/* Records of WORDS words: word 2 an int counter -> figure 0, word 3 an int
 * -> figure 1, word 4 a float end time.  Module 1's region holds N1 records at
 * OFF1, module 2's N2 at OFF2; seq words, one per 16 bytes of the pool (from
 * POOL), at SEQ_OFF. */
enum { WORDS = 6, RS = WORDS * 8, POOL = 4096, N1 = 40, N2 = 7 };
enum { OFF1 = POOL, OFF2 = POOL + N1 * RS, POOL_END = OFF2 + N2 * RS };
enum { SEQ_OFF = POOL_END, SEQ_LEN = (POOL_END - POOL) / 16 * 4 + 4, SIZE = SEQ_OFF + SEQ_LEN };

static const iolens_live_term terms[] = {{2, 0, 0}, {3, 1, 0}};
static const uint32_t lasts[] = {4};
static const iolens_live_seqs seqs = {SEQ_OFF, SEQ_LEN, POOL, 4};

typedef struct copy {
    char path[64];
    int fd;
} copy;

static void put_u64(const copy *c, uint64_t off, uint64_t v) { scratch_put(c->fd, off, &v, 8); }

/* The module map entry of module m: its region at off, len bytes. */
static void set_region(const copy *c, unsigned m, uint64_t off, uint64_t len)
{
    put_u64(c, 48 + 16 * (uint64_t)m, off);
    put_u64(c, 48 + 16 * (uint64_t)m + 8, len);
}

/* The record at off with counters a and b and end time t, its seq word s. */
static void set_rec(const copy *c, uint64_t off, int64_t a, int64_t b, double t, uint32_t s)
{
    int64_t w[WORDS] = {(int64_t)off, 0, a, b};
    memcpy(&w[4], &t, 8);
    scratch_put(c->fd, off, w, sizeof w);
    scratch_put(c->fd, SEQ_OFF + (off - POOL) / 16 * 4, &s, 4);
}

static copy make(void)
{
    copy c;
    strcpy(c.path, "/tmp/iolens-live-copy-XXXXXX");
    c.fd = mkstemp(c.path);
    CHECK(c.fd >= 0 && ftruncate(c.fd, SIZE) == 0, "the copy");
    scratch_put(c.fd, 1328, "job-fields", 10);            /* inside the head */
    set_region(&c, 1, OFF1, N1 * RS);
    set_region(&c, 2, OFF2, N2 * RS);
    for (int i = 0; i < N1; i++)
        set_rec(&c, OFF1 + (uint64_t)i * RS, i, 1, 5.0 + i, 2);
    for (int i = 0; i < N2; i++)
        set_rec(&c, OFF2 + (uint64_t)i * RS, 100, 2, 1.0, 2);
    return c;
}

typedef struct kept {
    iolens_live_state st;
    uint32_t seq[64];
    double figs[64 * IOLENS_LIVE_FIGURES];
    double moved[64];
} kept;

static void fresh(kept *k, size_t cap, int moved)
{
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < 64; i++)
        k->seq[i] = 1;
    k->st = (iolens_live_state){cap, k->seq, k->figs, NULL, moved ? k->moved : NULL};
}

static iolens_live_layer layer(unsigned module, kept *k)
{
    iolens_live_layout l = {WORDS, 2, terms, 1, lasts, 1u << 0 | 1u << 1};
    return (iolens_live_layer){module, l, &k->st};
}

static void test_rounds(void)
{
    copy c = make();
    kept a, b;
    fresh(&a, N1, 1);
    fresh(&b, N2, 0);
    iolens_live_layer ls[] = {layer(1, &a), layer(2, &b), layer(3, &b)};
    iolens_live_copy_result *r = malloc(sizeof *r);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 3, &seqs, 8, r) == IOLENS_OK, "first round");
    CHECK(!r->grow && r->records[0] == N1 && r->records[1] == N2 && r->records[2] == 0,
          "records %zu %zu %zu", r->records[0], r->records[1], r->records[2]);
    CHECK(memcmp(r->head + 1328, "job-fields", 10) == 0, "the head as read");
    CHECK(r->layer[0].changed == N1 && r->layer[1].changed == N2, "all read");
    CHECK(r->layer[0].delta[0] == N1 * (N1 - 1) / 2 && r->layer[1].delta[1] == 2 * N2,
          "sums %g %g", r->layer[0].delta[0], r->layer[1].delta[1]);
    CHECK(r->layer[0].last == 5.0 + N1 - 1, "last %g", r->layer[0].last);
    CHECK(a.moved[7] == 7 + 1, "bytes moved: figures 0 and 1 of record 7: %g", a.moved[7]);

    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 3, &seqs, 8, r) == IOLENS_OK &&
          r->layer[0].changed == 0 && r->layer[1].changed == 0, "an idle round");
    set_rec(&c, OFF1 + 3 * RS, 1003, 1, 99.0, 4);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 3, &seqs, 8, r) == IOLENS_OK &&
          r->layer[0].changed == 1 && r->layer[0].delta[0] == 1000 && r->layer[1].changed == 0,
          "one record read again");
    CHECK(a.moved[3] == 1004 && a.moved[7] == 8, "bytes moved updated: %g", a.moved[3]);

    /* module 2 grows beyond its state: no region read, grow asked */
    set_region(&c, 2, OFF2, (N2 + 1) * RS);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 3, &seqs, 8, r) == IOLENS_OK && r->grow &&
          r->records[1] == N2 + 1 && r->layer[0].changed == 0, "grow");
    b.st.cap = N2 + 1;
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 3, &seqs, 8, r) == IOLENS_OK && !r->grow &&
          r->layer[1].changed == 1, "the new record read: %zu", r->layer[1].changed);
    /* a region beyond the size the copy had when opened: no records */
    CHECK(iolens_live_read_copy(c.fd, OFF2 + 10, ls, 3, &seqs, 8, r) == IOLENS_OK &&
          r->records[0] == N1 && r->records[1] == 0, "a region beyond the size");
    free(r);
    scratch_drop(c.fd, c.path);
}

static void test_hostile(void)
{
    copy c = make();
    kept a;
    fresh(&a, 64, 1);
    iolens_live_layer ls[IOLENS_LIVE_LAYERS + 1];
    for (int i = 0; i <= IOLENS_LIVE_LAYERS; i++)
        ls[i] = layer(1, &a);
    iolens_live_copy_result *r = malloc(sizeof *r);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, IOLENS_LIVE_LAYERS + 1, &seqs, 8, r) ==
          IOLENS_E_INVALID_ARG, "too many layers");
    ls[0].module = 64;
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_INVALID_ARG,
          "a module id past the map");
    ls[0] = layer(1, &a);
    ls[0].state = NULL;
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_INVALID_ARG,
          "no state");
    ls[0] = layer(1, &a);
    ls[0].layout.record_words = 1;
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_INVALID_ARG,
          "records of one word");
    ls[0] = layer(1, &a);
    CHECK(iolens_live_read_copy(c.fd, SIZE, NULL, 1, &seqs, 8, r) == IOLENS_E_INVALID_ARG &&
          iolens_live_read_copy(c.fd, SIZE, ls, 1, NULL, 8, r) == IOLENS_E_INVALID_ARG &&
          iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, NULL) == IOLENS_E_INVALID_ARG,
          "NULL arguments");
    CHECK(iolens_live_read_copy(-1, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_IO, "a closed fd");
    /* map entries that overflow: offsets and lengths near 2^64 */
    set_region(&c, 1, UINT64_MAX - 8, 64 * RS);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_OK &&
          r->records[0] == 0, "a region offset past the file");
    set_region(&c, 1, OFF1, UINT64_MAX);
    CHECK(iolens_live_read_copy(c.fd, UINT64_MAX, ls, 1, &seqs, 8, r) == IOLENS_OK &&
          r->records[0] == 0, "a region length near 2^64: past any size");
    set_region(&c, 1, OFF1, 1000 * RS);
    CHECK(iolens_live_read_copy(c.fd, UINT64_MAX, ls, 1, &seqs, 8, r) == IOLENS_OK && r->grow,
          "more records than kept: grow, nothing read");
    /* a region before the pool: its seq words would be outside the table */
    set_region(&c, 1, 8, N1 * RS);
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_BAD_REGION,
          "a region before the pool");
    /* garbage everywhere but the region's map entry (so that its garbage records
     * and seq words are read): whatever the figures, no crash */
    srand(30);
    unsigned char junk[512];
    for (uint64_t off = 0; off < SIZE; off += sizeof junk) {
        for (size_t j = 0; j < sizeof junk; j++)
            junk[j] = (unsigned char)rand();
        scratch_put(c.fd, off, junk, sizeof junk < SIZE - off ? sizeof junk : SIZE - off);
    }
    set_region(&c, 1, OFF1, N1 * RS);
    fresh(&a, 64, 1);
    ls[0] = layer(1, &a);
    int rc = iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r);
    CHECK(rc == IOLENS_OK && r->records[0] == N1, "garbage records read: %d, %llu records", rc,
          (unsigned long long)r->records[0]);
    /* the copy cut below its head under the reader */
    CHECK(ftruncate(c.fd, 1000) == 0, "truncate");
    CHECK(iolens_live_read_copy(c.fd, SIZE, ls, 1, &seqs, 8, r) == IOLENS_E_TRUNCATED,
          "cut below the head");
    free(r);
    scratch_drop(c.fd, c.path);
}

int main(void)
{
    test_rounds();
    test_hostile();
    return check_result("test_live_read_copy");
}
