/* Unit test of the LUSTRE module's record construction (src/runtime/modules/
 * lustre_lov.c, lustre_record.c): `lustre.lov` values built here from Lustre's
 * public layout structures (plain v1 and v3 with a pool, PFL with instantiated and
 * uninstantiated components, Data-on-MDT, FLR mirrors, overstriping with more OST
 * ids than a 1 KiB record holds) and synthetic layouts are turned into records;
 * the records are then written into a log with the format library's writer and
 * read back with its LUSTRE decoder, so the bytes are what readers expect.
 * Hostile values (every truncation, offsets outside the value) must be refused
 * or give a consistent record, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../c/check.h"
#include "iolens/counters.h"
#include "iolens/log.h"
#include "modules/lustre_layout.h"

/* ------------------------------------------------------------ building values */
typedef struct buf {
    uint8_t b[IOL_LUSTRE_XATTR_MAX];
    size_t n;
} buf;

static void put(buf *o, size_t at, const void *p, size_t len)
{
    memcpy(o->b + at, p, len);
    if (at + len > o->n)
        o->n = at + len;
}
static void put32(buf *o, size_t at, uint32_t v) { put(o, at, &v, 4); }
static void put16(buf *o, size_t at, uint16_t v) { put(o, at, &v, 2); }
static void put64(buf *o, size_t at, uint64_t v) { put(o, at, &v, 8); }

enum { V1 = 0x0BD10BD0, V3 = 0x0BD30BD0, COMP = 0x0BD60BD0, RAID0 = 1, MDT = 0x100,
       OVERSTRIPE = 0x201, INIT = 0x10 };

/* A v1 (pool == NULL) or v3 md at `at`: count objects given (nobj of them). */
static size_t md(buf *o, size_t at, uint32_t pattern, uint32_t size, uint16_t count,
                 const char *pool, const uint32_t *osts, size_t nobj)
{
    size_t hdr = pool ? 48 : 32;
    memset(o->b + at, 0, hdr);
    put32(o, at, pool ? V3 : V1);
    put32(o, at + 4, pattern);
    put64(o, at + 8, 0x200000401ull);           /* an object id: not recorded */
    put32(o, at + 24, size);
    put16(o, at + 28, count);
    put16(o, at + 30, 3);
    if (pool) {
        char p[16] = {0};
        strncpy(p, pool, 15);
        put(o, at + 32, p, 16);
    }
    for (size_t i = 0; i < nobj; i++) {
        uint8_t obj[24] = {0};
        memcpy(obj + 20, &osts[i], 4);
        put(o, at + hdr + 24 * i, obj, 24);
    }
    return hdr + 24 * nobj;
}

typedef struct comp_spec {
    uint32_t id, flags;
    uint64_t start, end;
    uint32_t pattern, size;
    uint16_t count;
    const char *pool;
    const uint32_t *osts;
    size_t nobj;
} comp_spec;

static void composite(buf *o, const comp_spec *c, size_t n)
{
    memset(o, 0, sizeof *o);
    size_t at = 32 + 48 * n;
    for (size_t i = 0; i < n; i++) {
        size_t e = 32 + 48 * i, len = md(o, at, c[i].pattern, c[i].size, c[i].count, c[i].pool,
                                         c[i].osts, c[i].nobj);
        put32(o, e, c[i].id);
        put32(o, e + 4, c[i].flags);
        put64(o, e + 8, c[i].start);
        put64(o, e + 16, c[i].end);
        put32(o, e + 24, (uint32_t)at);
        put32(o, e + 28, (uint32_t)len);
        at += len;
    }
    put32(o, 0, COMP);
    put32(o, 4, (uint32_t)at);
    put16(o, 14, (uint16_t)n);
    put16(o, 16, 1);
}

/* ------------------------------------------------------------ reading records */
typedef struct rec {
    int64_t ncomps, nstripes;
    int64_t c[IOL_LUSTRE_MAX_COMPS][LUSTRE_COMP_NUM_INDICES];
    char pool[IOL_LUSTRE_MAX_COMPS][17];
    int64_t ost[IOL_LUSTRE_MAX_OSTS];
} rec;

static iol_lustre_layout layout;
static uint8_t record[32 + 72 * IOL_LUSTRE_MAX_COMPS + 8 * IOL_LUSTRE_MAX_OSTS];

/* Parse v, build the record, and decode it field by field. */
static size_t build(const buf *v, uint64_t id, rec *r)
{
    memset(r, 0, sizeof *r);
    if (iol_lov_parse(v->b, v->n, &layout) != 0)
        return 0;
    size_t len = iol_lustre_record_build(&layout, id, 5, record, sizeof record);
    if (!len)
        return 0;
    CHECK(len == iol_lustre_record_size(&layout), "size %zu", len);
    CHECK(iol_lustre_record_len(record, len) == len, "record_len");
    uint64_t rid;
    int64_t rank;
    memcpy(&rid, record, 8);
    memcpy(&rank, record + 8, 8);
    CHECK(rid == id && rank == 5, "id/rank");
    memcpy(&r->ncomps, record + 16, 8);
    memcpy(&r->nstripes, record + 24, 8);
    CHECK(len == 32 + 72 * (size_t)r->ncomps + 8 * (size_t)r->nstripes, "length");
    for (int64_t i = 0; i < r->ncomps; i++) {
        memcpy(r->c[i], record + 32 + 72 * i, 56);
        memcpy(r->pool[i], record + 32 + 72 * i + 56, 16);
    }
    memcpy(r->ost, record + 32 + 72 * r->ncomps, 8 * (size_t)r->nstripes);
    return len;
}

#define COMPV(r, i, k) ((r)->c[i][LUSTRE_COMP_##k])

static void check_osts(const rec *r, size_t from, const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(r->ost[from + i] == want[i], "ost %zu: %lld want %u", from + i,
              (long long)r->ost[from + i], want[i]);
}

/* ------------------------------------------------------------ cases */
static rec r;
static buf v;

static void test_plain(void)
{
    uint32_t osts[] = {3, 7, 1, 5};
    memset(&v, 0, sizeof v);
    md(&v, 0, RAID0, 1 << 20, 4, NULL, osts, 4);
    CHECK(build(&v, 42, &r) == 32 + 72 + 32, "plain v1 record");
    CHECK(r.ncomps == 1 && r.nstripes == 4, "counts %lld %lld", (long long)r.ncomps,
          (long long)r.nstripes);
    CHECK(COMPV(&r, 0, STRIPE_SIZE) == 1 << 20 && COMPV(&r, 0, STRIPE_COUNT) == 4, "size/count");
    CHECK(COMPV(&r, 0, STRIPE_PATTERN) == 0 && COMPV(&r, 0, FLAGS) == 0, "pattern/flags");
    CHECK(COMPV(&r, 0, EXT_START) == 0 && COMPV(&r, 0, EXT_END) == -1, "extent");
    CHECK(COMPV(&r, 0, MIRROR_ID) == 0 && r.pool[0][0] == '\0', "mirror/pool");
    check_osts(&r, 0, osts, 4);

    memset(&v, 0, sizeof v);
    md(&v, 0, RAID0, 4 << 20, 2, "flash", osts, 2);
    CHECK(build(&v, 42, &r) && strcmp(r.pool[0], "flash") == 0, "v3 pool '%s'", r.pool[0]);
    CHECK(COMPV(&r, 0, STRIPE_SIZE) == 4 << 20 && r.nstripes == 2, "v3 stripes");
    check_osts(&r, 0, osts, 2);

    /* A released (HSM) file: the count stays, the objects are gone: ids -1. */
    memset(&v, 0, sizeof v);
    md(&v, 0, RAID0 | 0x80000000u, 1 << 20, 2, NULL, NULL, 0);
    CHECK(build(&v, 1, &r) && r.nstripes == 2 && r.ost[0] == -1 && r.ost[1] == -1,
          "released");
}

static void test_pfl(void)
{
    uint32_t a[] = {2}, b[] = {4, 5, 6, 7};
    comp_spec c[] = {
        {1, INIT, 0, 1 << 20, RAID0, 1 << 20, 1, NULL, a, 1},
        {2, INIT, 1 << 20, 1ull << 30, RAID0, 1 << 20, 4, NULL, b, 4},
        {3, 0, 1ull << 30, ~0ull, RAID0, 4 << 20, 0xFFFF, NULL, NULL, 0},
    };
    composite(&v, c, 3);
    CHECK(build(&v, 9, &r), "pfl record");
    CHECK(r.ncomps == 2 && r.nstripes == 5, "pfl: the uninstantiated component is left out");
    CHECK(COMPV(&r, 0, EXT_END) == 1 << 20 && COMPV(&r, 1, EXT_START) == 1 << 20 &&
          COMPV(&r, 1, EXT_END) == 1 << 30, "pfl extents");
    CHECK(COMPV(&r, 0, FLAGS) == INIT && COMPV(&r, 1, STRIPE_COUNT) == 4, "pfl flags/count");
    check_osts(&r, 0, a, 1);
    check_osts(&r, 1, b, 4);

    /* The file grew: the last component is instantiated on 8 OSTs. */
    uint32_t w[] = {8, 9, 10, 11, 12, 13, 14, 15};
    c[2].flags = INIT;
    c[2].count = 8;
    c[2].osts = w;
    c[2].nobj = 8;
    composite(&v, c, 3);
    CHECK(build(&v, 9, &r) && r.ncomps == 3 && r.nstripes == 13, "grown pfl");
    CHECK(COMPV(&r, 2, EXT_END) == -1 && COMPV(&r, 2, STRIPE_SIZE) == 4 << 20, "grown pfl tail");
    check_osts(&r, 5, w, 8);
}

static void test_dom(void)
{
    uint32_t b[] = {1, 3};
    comp_spec c[] = {
        {1, INIT, 0, 64 << 10, MDT, 64 << 10, 0, NULL, NULL, 0},
        {2, INIT, 64 << 10, ~0ull, RAID0, 1 << 20, 2, NULL, b, 2},
    };
    composite(&v, c, 2);
    CHECK(build(&v, 3, &r) && r.ncomps == 2 && r.nstripes == 2, "dom record");
    CHECK(COMPV(&r, 0, STRIPE_PATTERN) == 2 && COMPV(&r, 0, STRIPE_COUNT) == 0 &&
          COMPV(&r, 0, STRIPE_SIZE) == 64 << 10, "dom component");
    CHECK(COMPV(&r, 1, STRIPE_PATTERN) == 0, "ost component");
    check_osts(&r, 0, b, 2);
}

static void test_mirrors(void)
{
    uint32_t a[] = {0}, m2[] = {4, 6};
    comp_spec c[] = {
        {0x10001, INIT | 0x2, 0, 1 << 20, RAID0, 1 << 20, 1, NULL, a, 1},
        {0x10002, 0, 1 << 20, ~0ull, RAID0, 1 << 20, 2, NULL, NULL, 0},
        {0x20003, INIT | 0x1, 0, ~0ull, RAID0, 2 << 20, 2, "ssd", m2, 2},
    };
    composite(&v, c, 3);
    CHECK(build(&v, 3, &r) && r.ncomps == 2 && r.nstripes == 3, "mirror record");
    CHECK(COMPV(&r, 0, MIRROR_ID) == 1 && COMPV(&r, 1, MIRROR_ID) == 2, "mirror ids");
    CHECK(COMPV(&r, 0, FLAGS) == (INIT | 0x2) && COMPV(&r, 1, FLAGS) == (INIT | 0x1),
          "prefrd / stale flags");
    CHECK(strcmp(r.pool[1], "ssd") == 0, "mirror pool");
    check_osts(&r, 1, m2, 2);
}

/* 2,000 OST ids (overstriping): far more than upstream's 1 KiB per record. */
static void test_wide(void)
{
    static uint32_t osts[2000];
    for (size_t i = 0; i < 2000; i++)
        osts[i] = (uint32_t)(i % 400);
    memset(&v, 0, sizeof v);
    md(&v, 0, OVERSTRIPE, 1 << 20, 2000, NULL, osts, 2000);
    CHECK(build(&v, 8, &r) == 32 + 72 + 8 * 2000, "wide record");
    CHECK(COMPV(&r, 0, STRIPE_PATTERN) == 4 && r.nstripes == 2000, "overstriped");
    check_osts(&r, 0, osts, 2000);
}

/* The synthetic source: layouts made without any xattr. */
static void test_synthetic(void)
{
    iol_lustre_layout *l = &layout;
    memset(l, 0, sizeof *l);
    l->composite = 1;
    int64_t o1[] = {11, 12}, o2[] = {20};
    iol_lustre_comp c = {.stripe_size = 1 << 16, .stripe_count = 2, .pattern = 0,
                         .flags = INIT, .ext_start = 0, .ext_end = 1 << 22, .complete = 1};
    CHECK(iol_lustre_add_comp(l, &c, o1) == 0, "add 1");
    c.flags = 0;                               /* not instantiated */
    c.stripe_count = 1;
    CHECK(iol_lustre_add_comp(l, &c, o2) == 0, "add 2");
    c.flags = INIT;
    c.complete = 0;                            /* a getter failed */
    CHECK(iol_lustre_add_comp(l, &c, o2) == 0, "add 3");
    c.complete = 1;
    strcpy(c.pool, "p");
    CHECK(iol_lustre_add_comp(l, &c, o2) == 0, "add 4");
    size_t len = iol_lustre_record_build(l, 77, 0, record, sizeof record);
    int64_t head[2];
    memcpy(head, record + 16, 16);
    CHECK(len == 32 + 2 * 72 + 3 * 8 && head[0] == 2 && head[1] == 3, "synthetic: 2 of 4 kept");
    int64_t ost[3];
    memcpy(ost, record + 32 + 2 * 72, 24);
    CHECK(ost[0] == 11 && ost[1] == 12 && ost[2] == 20, "synthetic osts");
    CHECK(iol_lustre_record_build(l, 77, 0, record, len - 8) == 0, "too small a buffer");
    l->ncomps = 0;
    CHECK(iol_lustre_record_size(l) == 0, "no component, no record");
}

/* Every prefix of valid values, and corrupted offsets: refused or consistent. */
static void test_hostile(void)
{
    uint32_t a[] = {1, 2, 3};
    comp_spec c[] = {
        {1, INIT, 0, 1 << 20, RAID0, 1 << 20, 3, "pool", a, 3},
        {2, INIT, 1 << 20, ~0ull, MDT, 1 << 20, 0, NULL, NULL, 0},
    };
    composite(&v, c, 2);
    buf full = v;
    for (size_t n = 0; n < full.n; n++) {
        v = full;
        v.n = n;
        if (iol_lov_parse(v.b, n, &layout) == 0) {
            size_t len = iol_lustre_record_build(&layout, 1, 0, record, sizeof record);
            CHECK(len == 0 || iol_lustre_record_len(record, len) == len, "prefix %zu", n);
        }
    }
    v = full;
    put32(&v, 32 + 24, 0xFFFFFF00u);           /* blob offset far outside */
    CHECK(iol_lov_parse(v.b, v.n, &layout) == 0 && iol_lustre_record_size(&layout) ==
          32 + 72, "a component outside the value is left out");
    v = full;
    put16(&v, 14, 60000);                     /* entry count beyond the value */
    CHECK(iol_lov_parse(v.b, v.n, &layout) != 0, "entry count");
    v = full;
    put32(&v, 4, (uint32_t)v.n + 1);          /* declared size beyond the value */
    CHECK(iol_lov_parse(v.b, v.n, &layout) != 0, "declared size");
    memset(&v, 0, sizeof v);
    md(&v, 0, RAID0, 1 << 20, 65000, NULL, NULL, 0);   /* absurd count, no objects */
    CHECK(iol_lov_parse(v.b, v.n, &layout) != 0 || iol_lustre_record_size(&layout) == 0,
          "absurd stripe count");
    put32(&v, 0, 0x12345678);
    CHECK(iol_lov_parse(v.b, v.n, &layout) != 0, "bad magic");
    unsigned seed = 1;
    for (int k = 0; k < 20000; k++) {          /* random bytes over a valid value */
        v = full;
        for (int j = 0; j < 4; j++)
            v.b[rand_r(&seed) % v.n] = (uint8_t)rand_r(&seed);
        if (iol_lov_parse(v.b, v.n, &layout) == 0) {
            size_t len = iol_lustre_record_build(&layout, 1, 0, record, sizeof record);
            CHECK(len == 0 || iol_lustre_record_len(record, len) == len, "random %d", k);
        }
    }
}

/* Records of the cases above in one log, read back by the format library. */
static void test_readers(void)
{
    char path[] = "/tmp/iolens-lustre-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    close(fd);
    unlink(path);
    static uint8_t payload[1 << 17];
    size_t len = 0;
    uint32_t a[] = {2}, b[] = {4, 5, 6, 7};
    comp_spec c[] = {
        {1, INIT, 0, 1 << 20, RAID0, 1 << 20, 1, NULL, a, 1},
        {2, INIT, 1 << 20, ~0ull, RAID0, 1 << 20, 4, "hdd", b, 4},
    };
    composite(&v, c, 2);
    iol_lov_parse(v.b, v.n, &layout);
    len += iol_lustre_record_build(&layout, 1001, 0, payload + len, sizeof payload - len);
    memset(&v, 0, sizeof v);
    md(&v, 0, RAID0, 1 << 16, 2, NULL, b, 2);
    iol_lov_parse(v.b, v.n, &layout);
    len += iol_lustre_record_build(&layout, 1002, 0, payload + len, sizeof payload - len);
    iolens_writer *w;
    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "writer");
    iolens_job job = {0};
    job.nprocs = 1;
    job.exe = "lustre-test";
    iolens_writer_set_job(w, &job);
    iolens_writer_add_name(w, 1001, "/lustre/a");
    iolens_writer_add_name(w, 1002, "/lustre/b");
    CHECK(iolens_writer_put_region(w, IOL_MOD_LUSTRE, IOL_MOD_LUSTRE_VERSION, payload, len) ==
          IOLENS_OK, "put region");
    CHECK(iolens_writer_close(w) == IOLENS_OK, "close writer");
    iolens_log *log;
    char err[256];
    CHECK(iolens_log_open(path, &log, err, sizeof err) == IOLENS_OK, "open: %s", err);
    iolens_lustre *l = NULL;
    CHECK(iolens_log_lustre(log, &l) == IOLENS_OK && l && l->count == 2, "decode");
    if (l && l->count == 2) {
        CHECK(l->id[0] == 1001 && l->num_comps[0] == 2 && l->num_stripes[0] == 5, "rec 0");
        CHECK(strcmp(l->pool_name[1], "hdd") == 0, "pool of comp 1 '%s'", l->pool_name[1]);
        CHECK(l->comp[LUSTRE_COMP_NUM_INDICES + LUSTRE_COMP_EXT_START] == 1 << 20, "ext");
        CHECK(l->ost[0] == 2 && l->ost[4] == 7, "osts of rec 0");
        CHECK(l->id[1] == 1002 && l->num_comps[1] == 1 && l->ost[l->ost_start[1] + 1] == 5,
              "rec 1");
    }
    iolens_lustre_free(l);
    iolens_log_close(log);
    unlink(path);
}

int main(void)
{
    test_plain();
    test_pfl();
    test_dom();
    test_mirrors();
    test_wide();
    test_synthetic();
    test_hostile();
    test_readers();
    return check_result("test_lustre_record");
}
