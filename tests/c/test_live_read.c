/* iolens_live_read_region (include/iolens/live_read.h) on real files made here:
 * the records read once and then only when their seq word changed, the sums'
 * delta, a record caught mid-update kept at its previous reading, records of
 * many batches with gaps, copies without seq words, and hostile copies
 * (truncated, seq words outside their table, overflowing offsets, garbage,
 * a closed fd): a clear error, never a crash (this test also runs under
 * AddressSanitizer: scripts/test.sh, build-asan). */
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

/* A copy: records of WORDS words at REC_OFF (word 2: an int counter -> figure 0,
 * word 3: int -> figure 1, word 4: float -> figure 5, word 5: float end time),
 * seq words (one per 128 bytes of pool, pool at POOL_OFF) at seq_off. */
enum { WORDS = 88, POOL_OFF = 4096, REC_OFF = 4096 + 256 };

static const iolens_live_term terms[] = {{2, 0, 0}, {3, 1, 0}, {4, 5, 1}};
static const uint32_t lasts[] = {5};
static const iolens_live_layout layout = {WORDS, 3, terms, 1, lasts, 0};

typedef struct copy {
    char path[64];
    int fd;
    size_t n;
    uint64_t seq_off;
    iolens_live_seqs seqs;
} copy;

static uint64_t rec_at(size_t i) { return REC_OFF + (uint64_t)i * WORDS * 8; }
static uint64_t seq_at(const copy *c, size_t i)
{
    return c->seq_off + ((rec_at(i) - POOL_OFF) >> 7) * 4;
}

static void set_seq(const copy *c, size_t i, uint32_t s) { scratch_put(c->fd, seq_at(c, i), &s, 4); }

/* Record i with counters a, b, seconds f and end time t, its seq word s. */
static void set_rec(const copy *c, size_t i, int64_t a, int64_t b, double f, double t,
                    uint32_t s)
{
    int64_t w[WORDS] = {(int64_t)i + 100, 0, a, b};
    memcpy(&w[4], &f, 8);
    memcpy(&w[5], &t, 8);
    scratch_put(c->fd, rec_at(i), w, sizeof w);
    set_seq(c, i, s);
}

static copy make(size_t n)
{
    copy c = {.n = n};
    strcpy(c.path, "/tmp/iolens-live-read-XXXXXX");
    c.fd = mkstemp(c.path);
    c.seq_off = rec_at(n) + 64;
    size_t seq_len = ((rec_at(n) - POOL_OFF) >> 7) * 4 + 4;
    c.seqs = (iolens_live_seqs){c.seq_off, seq_len, POOL_OFF, 7};
    CHECK(ftruncate(c.fd, (off_t)(c.seq_off + seq_len)) == 0, "ftruncate");
    for (size_t i = 0; i < n; i++)
        set_rec(&c, i, (int64_t)i, 1, 0.5, 10.0 + (double)i, 2);
    return c;
}

typedef struct kept {
    iolens_live_state st;
    double sums[IOLENS_LIVE_FIGURES];
} kept;

static kept fresh(size_t cap, int words)
{
    kept k = {{cap, malloc(cap * 4), calloc(cap, 8 * IOLENS_LIVE_FIGURES),
               words ? calloc(cap, WORDS * 8) : NULL, NULL}, {0}};
    for (size_t i = 0; i < cap; i++)
        k.st.seq[i] = 1;
    return k;
}

static void release(kept *k)
{
    free(k->st.seq);
    free(k->st.figs);
    free(k->st.words);
}

static int round_of(const copy *c, kept *k, iolens_live_result *r)
{
    int rc = iolens_live_read_region(c->fd, REC_OFF, c->n, &layout, &c->seqs, 8, &k->st, r);
    for (int f = 0; f < IOLENS_LIVE_FIGURES; f++)
        k->sums[f] += r->delta[f];
    return rc;
}

static void test_rounds(void)
{
    copy c = make(10);
    kept k = fresh(10, 1);
    iolens_live_result r;
    CHECK(round_of(&c, &k, &r) == IOLENS_OK, "first round");
    CHECK(r.changed == 10 && r.busy == 0, "first round reads all: %zu %zu", r.changed, r.busy);
    CHECK(k.sums[0] == 45 && k.sums[1] == 10 && k.sums[5] == 5.0, "sums %g %g %g",
          k.sums[0], k.sums[1], k.sums[5]);
    CHECK(r.last == 19.0, "last %g", r.last);
    CHECK(k.st.words[3 * WORDS] == 103, "whole record kept");

    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == 0 && r.delta[0] == 0,
          "an idle round reads nothing: %zu", r.changed);

    set_rec(&c, 4, 1004, 3, 2.5, 50.0, 4);              /* updated: 4 -> +1000, +2, +2 */
    set_rec(&c, 7, 9999, 9, 9.0, 99.0, 5);              /* mid-update: odd */
    CHECK(round_of(&c, &k, &r) == IOLENS_OK, "third round");
    CHECK(r.changed == 1 && r.busy == 1, "one read, one busy: %zu %zu", r.changed, r.busy);
    CHECK(k.sums[0] == 45 + 1000 && k.sums[1] == 12 && k.sums[5] == 7.0, "delta %g %g %g",
          k.sums[0], k.sums[1], k.sums[5]);
    CHECK(k.st.figs[7 * IOLENS_LIVE_FIGURES] == 7, "the busy record keeps its reading");
    CHECK(r.last == 50.0, "last of the records read: %g", r.last);

    set_seq(&c, 7, 6);                                   /* the update ended */
    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == 1 && r.busy == 0, "read after");
    CHECK(k.sums[0] == 45 + 1000 + 9992, "sum %g", k.sums[0]);
    release(&k);
    scratch_drop(c.fd, c.path);
}

/* 1,000 records of 704 bytes (3 batches), changed in runs and with gaps. */
static void test_batches(void)
{
    copy c = make(1000);
    kept k = fresh(1000, 0);
    iolens_live_result r;
    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == 1000, "all read");
    CHECK(k.sums[0] == 999.0 * 1000 / 2, "sum of 1000: %g", k.sums[0]);
    size_t n = 0;
    for (size_t i = 0; i < 1000; i += (i % 3) + 1, n++)     /* gaps of 0 to 2 */
        set_rec(&c, i, (int64_t)i + 1, 1, 0.5, 1.0, 4);
    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == n, "%zu of %zu", r.changed, n);
    CHECK(k.sums[0] == 999.0 * 1000 / 2 + (double)n, "sum after: %g", k.sums[0]);
    release(&k);
    scratch_drop(c.fd, c.path);
}

static void test_no_seq_words(void)
{
    copy c = make(5);
    c.seqs.len = 0;
    kept k = fresh(5, 0);
    iolens_live_result r;
    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == 5, "old copy: all");
    CHECK(round_of(&c, &k, &r) == IOLENS_OK && r.changed == 5 && r.delta[0] == 0,
          "old copy: all again, sums unchanged");
    release(&k);
    scratch_drop(c.fd, c.path);
}

static void test_hostile(void)
{
    copy c = make(10);
    kept k = fresh(10, 0);
    iolens_live_result r;
    iolens_live_seqs s = c.seqs;
    /* a region past the end of the file */
    CHECK(iolens_live_read_region(c.fd, rec_at(9), 10, &layout, &(iolens_live_seqs){0}, 8,
                                  &k.st, &r) == IOLENS_E_TRUNCATED, "region past the end");
    /* the seq table past the end of the file */
    s.off += 1 << 20;
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &s, 8, &k.st, &r) ==
          IOLENS_E_TRUNCATED, "table past the end");
    /* a record's seq word outside the table */
    s = c.seqs;
    s.len = 8;
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &s, 8, &k.st, &r) ==
          IOLENS_E_BAD_REGION, "seq word outside its table");
    s = c.seqs;
    s.pool_off = REC_OFF + 8;
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &s, 8, &k.st, &r) ==
          IOLENS_E_BAD_REGION, "region before the pool");
    s = c.seqs;
    s.off = UINT64_MAX - 2;
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &s, 8, &k.st, &r) ==
          IOLENS_E_BAD_REGION, "table offset overflows");
    CHECK(iolens_live_read_region(c.fd, UINT64_MAX - 100, 10, &layout, &c.seqs, 8, &k.st,
                                  &r) == IOLENS_E_BAD_REGION, "region offset overflows");
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 11, &layout, &c.seqs, 8, &k.st, &r) ==
          IOLENS_E_INVALID_ARG, "more records than kept");
    iolens_live_term bad[] = {{WORDS, 0, 0}};
    iolens_live_layout badl = {WORDS, 1, bad, 0, NULL, 0};
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &badl, &c.seqs, 8, &k.st, &r) ==
          IOLENS_E_INVALID_ARG, "a term outside the record");
    bad[0] = (iolens_live_term){2, IOLENS_LIVE_FIGURES, 0};
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &badl, &c.seqs, 8, &k.st, &r) ==
          IOLENS_E_INVALID_ARG, "a figure out of range");
    CHECK(iolens_live_read_region(-1, REC_OFF, 10, &layout, &c.seqs, 8, &k.st, &r) ==
          IOLENS_E_IO, "a closed fd");
    /* garbage: random bytes everywhere; whatever the figures, no crash */
    srand(30);
    unsigned char junk[4096];
    for (uint64_t off = 0; off < c.seq_off + c.seqs.len; off += sizeof junk) {
        for (size_t j = 0; j < sizeof junk; j++)
            junk[j] = (unsigned char)rand();
        scratch_put(c.fd, off, junk, sizeof junk);
    }
    int rc = iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &c.seqs, 8, &k.st, &r);
    CHECK(rc == IOLENS_OK && r.changed + r.busy <= 10, "garbage: %d", rc);
    /* the file cut inside the region after a first round */
    CHECK(ftruncate(c.fd, (off_t)rec_at(5)) == 0, "truncate");
    CHECK(iolens_live_read_region(c.fd, REC_OFF, 10, &layout, &(iolens_live_seqs){0}, 8,
                                  &k.st, &r) == IOLENS_E_TRUNCATED, "cut under the reader");
    release(&k);
    scratch_drop(c.fd, c.path);
}

int main(void)
{
    test_rounds();
    test_batches();
    test_no_seq_words();
    test_hostile();
    return check_result("test_live_read");
}
