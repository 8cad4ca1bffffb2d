/* Record decoders (decode_*.c): every stored record version of every module, in
 * both byte orders, with the upgrade rules of log-format spec 8.4 and correct
 * values (no upstream data loss), plus cut and hostile records.  Logs are built in
 * memory (comp NONE) from the spec with tests/c/logbuild.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iolens/log.h"
#include "check.h"
#include "logbuild.h"

/* ---------------------------------------------------------------- payload builder */
typedef struct pb {
    uint8_t d[1 << 16];
    size_t n;
    int be;                   /* write big-endian */
} pb;

static void p64(pb *b, uint64_t v)
{
    if (b->be)
        v = __builtin_bswap64(v);
    memcpy(b->d + b->n, &v, 8);
    b->n += 8;
}
static void pf(pb *b, double x)
{
    uint64_t v;
    memcpy(&v, &x, 8);
    p64(b, v);
}
static void pbytes(pb *b, const void *s, size_t n)
{
    memcpy(b->d + b->n, s, n);
    b->n += n;
}

/* ---------------------------------------------------------------- log builder */
static uint8_t *cur_buf;

static void swap_at(uint8_t *p, size_t width)
{
    if (width == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v = __builtin_bswap64(v);
        memcpy(p, &v, 8);
    } else {
        uint32_t v;
        memcpy(&v, p, 4);
        v = __builtin_bswap32(v);
        memcpy(p, &v, 4);
    }
}

/* Turn a little-endian 3.41 log built by lb_build (comp NONE) into big-endian:
 * header fields and job record (the payloads are built big-endian already). */
static void to_big_endian(lb_log *l)
{
    swap_at(l->buf + 8, 8);
    for (size_t off = 24; off < 1072; off += 8)
        swap_at(l->buf + off, 8);
    for (size_t off = 1072; off < 1328; off += 4)
        swap_at(l->buf + off, 4);
    for (size_t k = 0; k < 7; k++)
        swap_at(l->buf + 1328 + 8 * k, 8);
}

/* A log holding one module region (uncompressed) with payload b at `ver`. */
static iolens_log *open_one(int module, uint32_t ver, const pb *b)
{
    static uint8_t job[4096];
    size_t jl = lb_job(job, 1, "lib_ver=test\n", "app\next4\t/");
    lb_region r = {module, ver, b->d, b->n};
    lb_log l = lb_build("3.41", IOLENS_COMP_NONE, 0, job, jl, NULL, 0, &r, 1);
    if (b->be)
        to_big_endian(&l);
    iolens_log *log = NULL;
    char err[256];
    int rc = iolens_log_open_mem(l.buf, l.len, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "open (module %d v%u be %d): %s", module, ver, b->be, err);
    free(cur_buf);
    cur_buf = l.buf;
    return log;
}

static void base(pb *b, uint64_t id, int64_t rank)
{
    p64(b, id);
    p64(b, (uint64_t)rank);
}

static iolens_records *records(iolens_log *log, int module, int want_rc)
{
    iolens_records *r = NULL;
    if (!log)
        return NULL;
    int rc = iolens_log_records(log, module, &r);
    CHECK(rc == want_rc, "module %d: rc %d want %d (%s)", module, rc, want_rc,
          iolens_log_error(log));
    return r;
}

#define I(r, i, k) ((r)->ints[(i) * (r)->n_int + (k)])
#define F(r, i, k) ((r)->flts[(i) * (r)->n_flt + (k)])

/* ---------------------------------------------------------------- counter modules */
static void test_posix(int be)
{
    for (uint32_t ver = 1; ver <= 4; ver++) {
        size_t ni = ver == 1 ? 68 : ver == 4 ? 69 : 64, nf = ver >= 3 ? 17 : 15;
        pb b = {.be = be};
        for (int rec = 0; rec < 2; rec++) {
            base(&b, 1000 + rec, rec);
            for (size_t k = 0; k < ni; k++)   /* record 1 of v1 has FOPENS = 3: dropped */
                p64(&b, ver == 1 && rec == 1 && k == 6 ? 3 : ver == 1 && k == 6 ? 0 : 100 + k);
            for (size_t k = 0; k < nf; k++)
                pf(&b, 0.5 + (double)k);
        }
        pbytes(&b, "trailing", 8);        /* short of a record: end of module */
        iolens_log *log = open_one(1, ver, &b);
        iolens_records *r = records(log, 1, IOLENS_OK);
        if (r) {
            CHECK(r->n_int == 69 && r->n_flt == 17, "POSIX counts %zu %zu", r->n_int, r->n_flt);
            CHECK(r->count == (ver == 1 ? 1u : 2u), "v%u be%d count %zu", ver, be, r->count);
            CHECK(r->dropped == (ver == 1), "v%u dropped %d", ver, r->dropped);
            CHECK(r->stored_version == ver, "stored version");
            CHECK(r->id[0] == 1000 && r->rank[0] == 0, "v%u base record", ver);
            if (ver == 4) {
                CHECK(I(r, 1, 68) == 168 && F(r, 1, 16) == 16.5, "v4 copied");
            } else {
                /* v2/v3 layout index of old counter k; v1 has 4 more before MODE */
                int sh = ver == 1 ? 4 : 0;
                CHECK(I(r, 0, POSIX_OPENS) == 100, "OPENS");
                CHECK(I(r, 0, POSIX_FILENOS) == -1 && I(r, 0, POSIX_DUPS) == -1, "FILENOS/DUPS");
                CHECK(I(r, 0, POSIX_READS) == 101 && I(r, 0, POSIX_MMAPS) == 105, "READS..MMAPS");
                CHECK(I(r, 0, POSIX_FSYNCS) == 106 + sh && I(r, 0, POSIX_FDSYNCS) == 107 + sh,
                      "v%u FSYNCS %" PRId64, ver, I(r, 0, POSIX_FSYNCS));
                CHECK(I(r, 0, POSIX_RENAME_SOURCES) == -1 && I(r, 0, POSIX_RENAME_TARGETS) == -1 &&
                      I(r, 0, POSIX_RENAMED_FROM) == 0, "rename counters");
                CHECK(I(r, 0, POSIX_MODE) == 108 + sh, "v%u MODE %" PRId64, ver, I(r, 0, POSIX_MODE));
                CHECK(I(r, 0, POSIX_SLOWEST_RANK_BYTES) == 163 + sh, "last counter");
                if (ver == 3) {
                    CHECK(F(r, 0, 3) == 3.5 && F(r, 0, 16) == 16.5, "v3 floats kept");
                } else {
                    CHECK(F(r, 0, 2) == 2.5 && F(r, 0, 3) == -1.0 && F(r, 0, 4) == -1.0 &&
                          F(r, 0, 5) == 3.5, "v%u timestamps", ver);
                    /* upstream loses these; we keep them */
                    CHECK(F(r, 0, POSIX_F_VARIANCE_RANK_BYTES) == 14.5 &&
                          F(r, 0, POSIX_F_FASTEST_RANK_TIME) == 11.5, "v%u tail floats", ver);
                }
            }
        }
        iolens_records_free(r);
        iolens_log_close(log);
    }
}

static void test_small_modules(int be)
{
    /* MPI-IO v1 and v2: 51 ints, 15 floats -> CLOSE_START and OPEN_END inserted. */
    for (uint32_t ver = 1; ver <= 2; ver++) {
        pb b = {.be = be};
        base(&b, 7, -1);
        for (int k = 0; k < 51; k++) p64(&b, (uint64_t)k);
        for (int k = 0; k < 15; k++) pf(&b, k + 0.25);
        iolens_log *log = open_one(2, ver, &b);
        iolens_records *r = records(log, 2, IOLENS_OK);
        if (r && r->count == 1)
            CHECK(r->rank[0] == -1 && I(r, 0, 50) == 50 && F(r, 0, 3) == -1.0 &&
                  F(r, 0, 4) == -1.0 && F(r, 0, 5) == 3.25 && F(r, 0, 16) == 14.25,
                  "MPI-IO v%u upgrade", ver);
        iolens_records_free(r);
        iolens_log_close(log);
    }
    /* STDIO v1: FDOPENS inserted. */
    pb b = {.be = be};
    base(&b, 8, 0);
    for (int k = 0; k < 13; k++) p64(&b, 10 + k);
    for (int k = 0; k < 15; k++) pf(&b, k);
    iolens_log *log = open_one(9, 1, &b);
    iolens_records *r = records(log, 9, IOLENS_OK);
    if (r && r->count == 1)
        CHECK(I(r, 0, STDIO_OPENS) == 10 && I(r, 0, STDIO_FDOPENS) == -1 &&
              I(r, 0, STDIO_READS) == 11 && I(r, 0, 13) == 22 && F(r, 0, 14) == 14.0,
              "STDIO v1 upgrade");
    iolens_records_free(r);
    iolens_log_close(log);

    /* H5F v1 and v2. */
    for (uint32_t ver = 1; ver <= 2; ver++) {
        pb h = {.be = be};
        base(&h, 9, 0);
        p64(&h, 5);
        for (int k = 0; k < (ver == 1 ? 2 : 4); k++) pf(&h, 1.0 + k);
        log = open_one(3, ver, &h);
        r = records(log, 3, IOLENS_OK);
        if (r && r->count == 1) {
            CHECK(I(r, 0, H5F_OPENS) == 5 && I(r, 0, H5F_FLUSHES) == -1 &&
                  I(r, 0, H5F_USE_MPIIO) == -1 && F(r, 0, H5F_F_META_TIME) == -1.0, "H5F v%u", ver);
            CHECK(F(r, 0, H5F_F_OPEN_START_TIMESTAMP) == 1.0 &&
                  F(r, 0, H5F_F_CLOSE_END_TIMESTAMP) == (ver == 1 ? 2.0 : 4.0),
                  "H5F v%u timestamps", ver);
        }
        iolens_records_free(r);
        iolens_log_close(log);
    }

    /* H5D v1 (no file_rec_id) and v2. */
    for (uint32_t ver = 1; ver <= 2; ver++) {
        pb h = {.be = be};
        base(&h, 10, 1);
        if (ver == 2) p64(&h, 0xABCDEF0123456789ull);
        for (int k = 0; k < 94; k++) p64(&h, k);
        for (int k = 0; k < 17; k++) pf(&h, k);
        log = open_one(4, ver, &h);
        r = records(log, 4, IOLENS_OK);
        if (r && r->count == 1)
            CHECK(r->file_rec_id && r->file_rec_id[0] == (ver == 2 ? 0xABCDEF0123456789ull : 0) &&
                  I(r, 0, 93) == 93 && F(r, 0, 16) == 16.0, "H5D v%u", ver);
        iolens_records_free(r);
        iolens_log_close(log);
    }

    /* PNETCDF_FILE v1 and v2: OPENS = INDEP + COLL, the rest unknown. */
    for (uint32_t ver = 1; ver <= 2; ver++) {
        pb h = {.be = be};
        base(&h, 11, 0);
        p64(&h, 3);
        p64(&h, 4);
        for (int k = 0; k < (ver == 1 ? 2 : 4); k++) pf(&h, 1.0 + k);
        log = open_one(5, ver, &h);
        r = records(log, 5, IOLENS_OK);
        if (r && r->count == 1) {
            CHECK(I(r, 0, PNETCDF_FILE_OPENS) == 7 && I(r, 0, PNETCDF_FILE_CREATES) == -1 &&
                  I(r, 0, PNETCDF_FILE_WAIT_FAILURES) == -1, "PNETCDF_FILE v%u ints", ver);
            CHECK(F(r, 0, PNETCDF_FILE_F_OPEN_START_TIMESTAMP) == 1.0 &&
                  F(r, 0, PNETCDF_FILE_F_CLOSE_END_TIMESTAMP) == (ver == 1 ? 2.0 : 4.0) &&
                  F(r, 0, PNETCDF_FILE_F_WAIT_TIME) == -1.0, "PNETCDF_FILE v%u floats", ver);
        }
        iolens_records_free(r);
        iolens_log_close(log);
    }

    /* BG/Q v1: 8 bytes of padding before the counters. */
    pb q = {.be = be};
    base(&q, 12, 0);
    p64(&q, 0xFFFFFFFFFFFFFFFFull);
    for (int k = 0; k < 11; k++) p64(&q, 20 + k);
    pf(&q, 9.5);
    log = open_one(7, 1, &q);
    r = records(log, 7, IOLENS_OK);
    if (r && r->count == 1)
        CHECK(I(r, 0, BGQ_CSJOBID) == 20 && I(r, 0, BGQ_TORUSENABLED) == 30 && F(r, 0, 0) == 9.5,
              "BG/Q v1");
    iolens_records_free(r);
    iolens_log_close(log);
}

static void test_dfs_daos_null(int be)
{
    static const uint8_t uu[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    pb b = {.be = be};
    base(&b, 13, 0);
    for (int k = 0; k < 52; k++) p64(&b, k);
    for (int k = 0; k < 15; k++) pf(&b, k);
    pbytes(&b, uu, 32);
    iolens_log *log = open_one(16, 1, &b);
    iolens_records *r = records(log, 16, IOLENS_OK);
    if (r && r->count == 1)
        CHECK(r->aux_size == 32 && !memcmp(r->aux, uu, 32) && I(r, 0, 51) == 51, "DFS uuids as stored");
    iolens_records_free(r);
    iolens_log_close(log);

    pb d = {.be = be};
    base(&d, 14, 2);
    for (int k = 0; k < 64; k++) p64(&d, k);
    for (int k = 0; k < 15; k++) pf(&d, k);
    pbytes(&d, uu, 32);
    p64(&d, 0x1122334455667788ull);
    p64(&d, 42);
    log = open_one(17, 1, &d);
    r = records(log, 17, IOLENS_OK);
    if (r && r->count == 1) {
        uint64_t hi, lo;
        memcpy(&hi, r->aux + 32, 8);
        memcpy(&lo, r->aux + 40, 8);
        CHECK(r->aux_size == 48 && !memcmp(r->aux, uu, 32) && hi == 0x1122334455667788ull &&
              lo == 42 && I(r, 0, 63) == 63, "DAOS aux");
    }
    iolens_records_free(r);
    iolens_log_close(log);

    pb n = {.be = be};
    base(&n, 15, 0);
    p64(&n, 1);
    p64(&n, 2);
    pf(&n, 0.5);
    pf(&n, 0.25);
    log = open_one(0, 1, &n);
    r = records(log, 0, IOLENS_OK);
    if (r)
        CHECK(r->count == 1 && I(r, 0, 1) == 2 && F(r, 0, 1) == 0.25, "NULL record");
    iolens_records_free(r);
    iolens_log_close(log);
}

static void mdhim_record(pb *b, uint64_t id, int64_t servers, int nvalues)
{
    base(b, id, 0);
    p64(b, 1);
    p64(b, 2);
    p64(b, 3);
    p64(b, 4);
    p64(b, (uint64_t)servers);
    for (int k = 0; k < 4; k++) pf(b, k);
    for (int k = 0; k < nvalues; k++) p64(b, 500 + k);
}

static void test_mdhim(int be)
{
    pb b = {.be = be};
    mdhim_record(&b, 1, 3, 3);
    mdhim_record(&b, 2, 0, 1);
    iolens_log *log = open_one(12, 1, &b);
    iolens_records *r = records(log, 12, IOLENS_OK);
    if (r && r->count == 2) {
        CHECK(r->tail_start[0] == 0 && r->tail_start[1] == 3 && r->tail_start[2] == 4,
              "MDHIM tail offsets");
        CHECK(r->tail[0] == 500 && r->tail[2] == 502 && r->tail[3] == 500, "MDHIM histogram");
        CHECK(I(r, 1, MDHIM_SERVERS) == 0 && F(r, 0, 3) == 3.0, "MDHIM counters");
    }
    iolens_records_free(r);
    iolens_log_close(log);

    pb c = {.be = be};
    mdhim_record(&c, 1, 1, 1);
    mdhim_record(&c, 2, (int64_t)1 << 62, 2);     /* cut / hostile histogram */
    log = open_one(12, 1, &c);
    r = records(log, 12, IOLENS_E_BAD_RECORD);
    CHECK(!r, "no records on error");
    if (log)
        CHECK(strstr(iolens_log_error(log), "MDHIM record 1") != NULL, "error names the record: %s",
              iolens_log_error(log));
    iolens_log_close(log);
}

static void test_misuse(void)
{
    pb b = {0};
    base(&b, 1, 0);
    p64(&b, 0);
    iolens_log *log = open_one(1, 5, &b);      /* POSIX version from the future */
    iolens_records *r = NULL;
    if (log) {
        int rc = iolens_log_records(log, 1, &r);
        CHECK(rc == IOLENS_E_BAD_MODULE_VERSION && !r, "future version: rc %d", rc);
        rc = iolens_log_records(log, 2, &r);
        CHECK(rc == IOLENS_E_NOT_PRESENT && !r, "absent module: rc %d", rc);
        rc = iolens_log_records(log, 10, &r);
        CHECK(rc == IOLENS_E_INVALID_ARG && !r, "DXT through records: rc %d", rc);
        rc = iolens_log_records(log, 40, &r);
        CHECK(rc == IOLENS_E_UNKNOWN_MODULE && !r, "unknown id: rc %d", rc);
        rc = iolens_log_records(log, 64, &r);
        CHECK(rc == IOLENS_E_INVALID_ARG && !r, "id out of range: rc %d", rc);
        iolens_dxt *d = NULL;
        rc = iolens_log_dxt(log, 1, &d);
        CHECK(rc == IOLENS_E_INVALID_ARG && !d, "POSIX through dxt: rc %d", rc);
    }
    iolens_log_close(log);
    CHECK(iolens_log_records(NULL, 1, &r) == IOLENS_E_INVALID_ARG, "NULL log");
    iolens_records_free(NULL);
    iolens_dxt_free(NULL);
    iolens_heatmap_free(NULL);
    iolens_lustre_free(NULL);
}

/* ---------------------------------------------------------------- DXT */
static void dxt_record(pb *b, uint64_t id, int64_t wc, int64_t rc, int nseg, int seg40)
{
    char host[64] = "nid00042";
    base(b, id, 3);
    p64(b, 0);
    pbytes(b, host, 64);
    p64(b, (uint64_t)wc);
    p64(b, (uint64_t)rc);
    for (int k = 0; k < nseg; k++) {
        p64(b, 4096 * (uint64_t)k);
        p64(b, 100 + k);
        pf(b, k);
        pf(b, k + 0.5);
        if (seg40)
            p64(b, 0x7f0000000000ull + (uint64_t)k % 2);
    }
}

static void test_dxt(int be)
{
    /* module, version, 40-byte segments, offsets valid */
    static const struct { int mod; uint32_t ver; int seg40, offsets; } v[] = {
        {10, 1, 0, 1}, {10, 2, 1, 1}, {11, 1, 0, 0}, {11, 2, 0, 1}, {11, 3, 1, 1}};
    for (size_t t = 0; t < sizeof v / sizeof v[0]; t++) {
        pb b = {.be = be};
        dxt_record(&b, 21, 2, 1, 3, v[t].seg40);
        dxt_record(&b, 22, 0, 0, 0, v[t].seg40);
        pbytes(&b, "short", 5);
        iolens_log *log = open_one(v[t].mod, v[t].ver, &b);
        iolens_dxt *d = NULL;
        int rc = log ? iolens_log_dxt(log, v[t].mod, &d) : -1;
        CHECK(rc == IOLENS_OK, "dxt %d v%u: %d", v[t].mod, v[t].ver, rc);
        if (d) {
            CHECK(d->count == 2 && d->nseg == 3 && d->seg_start[1] == 3 && d->seg_start[2] == 3,
                  "dxt %d v%u counts", v[t].mod, v[t].ver);
            CHECK(!strcmp(d->hostname[0], "nid00042") && d->rank[0] == 3 && d->id[1] == 22,
                  "dxt header fields");
            CHECK(d->write_count[0] == 2 && d->read_count[0] == 1, "dxt counts");
            CHECK(d->offset[2] == (v[t].offsets ? 8192 : -1) && d->length[2] == 102 &&
                  d->start[2] == 2.0 && d->end[2] == 2.5, "dxt %d v%u segment", v[t].mod, v[t].ver);
            CHECK(!d->thread_id == !v[t].seg40, "thread ids present iff stored");
            if (d->thread_id)
                CHECK(d->thread_id[1] == 0x7f0000000001ull, "thread id swapped");
        }
        iolens_dxt_free(d);
        iolens_log_close(log);
    }
    /* hostile counts: no allocation, BAD_RECORD naming the record */
    static const int64_t bad[][2] = {{(int64_t)1 << 62, 0}, {0, (int64_t)1 << 62},
                                     {INT64_MAX, INT64_MAX}, {-5, 1}, {2, 0}};
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        pb b = {.be = be};
        dxt_record(&b, 21, 1, 0, 1, 0);
        dxt_record(&b, 22, bad[t][0], bad[t][1], 1, 0);
        iolens_log *log = open_one(10, 1, &b);
        iolens_dxt *d = NULL;
        int rc = log ? iolens_log_dxt(log, 10, &d) : -1;
        CHECK(rc == IOLENS_E_BAD_RECORD && !d, "hostile dxt %zu: rc %d", t, rc);
        if (log)
            CHECK(strstr(iolens_log_error(log), "DXT_POSIX record 1") != NULL, "message: %s",
                  iolens_log_error(log));
        iolens_log_close(log);
    }
}

/* ---------------------------------------------------------------- HEATMAP */
static void heatmap_record(pb *b, uint64_t id, double width, int nbins, int64_t first)
{
    base(b, id, 0);
    pf(b, width);
    p64(b, (uint64_t)nbins);
    p64(b, 0xdeadbeef);
    p64(b, 0xfeedface);
    for (int k = 0; k < nbins; k++) p64(b, (uint64_t)(first + k));          /* write */
    for (int k = 0; k < nbins; k++) p64(b, (uint64_t)(first + 100 + k));    /* read */
}

static void test_heatmap(int be)
{
    pb b = {.be = be};
    heatmap_record(&b, 31, 0.5, 3, 10);
    heatmap_record(&b, 32, 0.5, 4, 20);   /* one more: last bins dropped */
    heatmap_record(&b, 33, 0.5, 2, 30);   /* one fewer: zero bin appended */
    heatmap_record(&b, 34, 1.0, 5, 40);   /* other width: kept as is */
    iolens_log *log = open_one(15, 1, &b);
    iolens_heatmap *h = NULL;
    int rc = log ? iolens_log_heatmap(log, &h) : -1;
    CHECK(rc == IOLENS_OK, "heatmap rc %d", rc);
    if (h && h->count == 4) {
        CHECK(h->nbins[0] == 3 && h->nbins[1] == 3 && h->nbins[2] == 3 && h->nbins[3] == 5,
              "heatmap bin counts");
        size_t s1 = h->bin_start[1], s2 = h->bin_start[2];
        CHECK(h->write_bins[s1 + 2] == 22 && h->read_bins[s1 + 2] == 122, "one more: kept bins");
        CHECK(h->write_bins[s2] == 30 && h->read_bins[s2] == 130 && h->read_bins[s2 + 1] == 131 &&
              h->write_bins[s2 + 2] == 0 && h->read_bins[s2 + 2] == 0, "one fewer: zero appended");
        CHECK(h->bin_start[4] == 14 && h->bin_width[3] == 1.0 && h->id[3] == 34, "heatmap tail");
    }
    iolens_heatmap_free(h);
    iolens_log_close(log);

    pb c = {.be = be};
    heatmap_record(&c, 31, 0.5, 1, 10);
    base(&c, 35, 0);
    pf(&c, 0.5);
    p64(&c, (uint64_t)1 << 61);
    p64(&c, 0);
    p64(&c, 0);
    log = open_one(15, 1, &c);
    h = NULL;
    rc = log ? iolens_log_heatmap(log, &h) : -1;
    CHECK(rc == IOLENS_E_BAD_RECORD && !h, "hostile heatmap rc %d", rc);
    iolens_log_close(log);
}

/* ---------------------------------------------------------------- LUSTRE */
static void lustre_comp(pb *b, int64_t size, int64_t count, int64_t start, int64_t end,
                        const char *pool)
{
    char p[16] = {0};
    strncpy(p, pool, 15);
    p64(b, (uint64_t)size);
    p64(b, (uint64_t)count);
    p64(b, 0);
    p64(b, 0);
    p64(b, (uint64_t)start);
    p64(b, (uint64_t)end);
    p64(b, (uint64_t)-1);
    pbytes(b, p, 16);
}

static void test_lustre(int be)
{
    pb b = {.be = be};
    base(&b, 41, 0);          /* v2: two components, an unused slot, 3 OSTs */
    p64(&b, 3);
    p64(&b, 3);
    lustre_comp(&b, 1 << 20, 2, 0, 1 << 22, "fast");
    lustre_comp(&b, 1 << 21, 1, 1 << 22, -1, "");
    lustre_comp(&b, -1, 0, -1, -1, "");
    p64(&b, 7);
    p64(&b, 9);
    p64(&b, 3);
    base(&b, 42, -1);         /* num_comps 0: nothing more is stored */
    p64(&b, 0);
    p64(&b, 5);
    iolens_log *log = open_one(8, 2, &b);
    iolens_lustre *l = NULL;
    int rc = log ? iolens_log_lustre(log, &l) : -1;
    CHECK(rc == IOLENS_OK, "lustre v2 rc %d", rc);
    if (l && l->count == 2) {
        CHECK(l->num_comps[0] == 2 && l->num_stripes[0] == 3 && l->comp_start[1] == 2,
              "lustre truncation");
        CHECK(l->comp[LUSTRE_COMP_NUM_INDICES + LUSTRE_COMP_EXT_START] == 1 << 22 &&
              l->comp[LUSTRE_COMP_EXT_END] == 1 << 22, "lustre extents");
        CHECK(!strcmp(l->pool_name[0], "fast") && !strcmp(l->pool_name[1], ""), "pool names");
        CHECK(l->ost[0] == 7 && l->ost[2] == 3 && l->ost_start[1] == 3, "OST ids");
        CHECK(l->num_comps[1] == 0 && l->num_stripes[1] == 0 && l->rank[1] == -1 &&
              l->comp_start[2] == 2 && l->ost_start[2] == 3, "record without components");
    }
    iolens_lustre_free(l);
    iolens_log_close(log);

    pb v1 = {.be = be};
    base(&v1, 43, 0);
    p64(&v1, 56);             /* OSTS, MDTS, STRIPE_OFFSET, STRIPE_SIZE, STRIPE_WIDTH */
    p64(&v1, 4);
    p64(&v1, 12);
    p64(&v1, 1 << 20);
    p64(&v1, 2);
    p64(&v1, 12);
    p64(&v1, 13);
    base(&v1, 44, 0);
    for (int k = 0; k < 5; k++) p64(&v1, k == 3 ? 1 << 20 : k == 4 ? 1 : 0);
    p64(&v1, 99);
    log = open_one(8, 1, &v1);
    l = NULL;
    rc = log ? iolens_log_lustre(log, &l) : -1;
    CHECK(rc == IOLENS_OK, "lustre v1 rc %d", rc);
    if (l && l->count == 2) {
        const int64_t *c = l->comp;
        CHECK(l->num_comps[0] == 1 && l->num_stripes[0] == 2 && c[LUSTRE_COMP_STRIPE_SIZE] == 1 << 20 &&
              c[LUSTRE_COMP_STRIPE_COUNT] == 2 && c[LUSTRE_COMP_EXT_START] == 0 &&
              c[LUSTRE_COMP_EXT_END] == -1 && c[LUSTRE_COMP_STRIPE_PATTERN] == -1, "v1 component");
        CHECK(l->ost[0] == 12 && l->ost[1] == 13 && l->ost[2] == 99 && l->id[1] == 44, "v1 OSTs");
    }
    iolens_lustre_free(l);
    iolens_log_close(log);

    /* hostile: huge component count; components owning more OSTs than stored */
    for (int t = 0; t < 2; t++) {
        pb h = {.be = be};
        base(&h, 45, 0);
        p64(&h, t == 0 ? (uint64_t)1 << 60 : 1);
        p64(&h, 1);
        lustre_comp(&h, 1 << 20, t == 0 ? 1 : 4, 0, -1, "");
        p64(&h, 1);
        log = open_one(8, 2, &h);
        l = NULL;
        rc = log ? iolens_log_lustre(log, &l) : -1;
        CHECK(rc == IOLENS_E_BAD_RECORD && !l, "hostile lustre %d: rc %d", t, rc);
        if (log)
            CHECK(strstr(iolens_log_error(log), "LUSTRE record 0") != NULL, "message: %s",
                  iolens_log_error(log));
        iolens_log_close(log);
    }
}

int main(void)
{
    for (int be = 0; be <= 1; be++) {
        test_posix(be);
        test_small_modules(be);
        test_dfs_daos_null(be);
        test_mdhim(be);
        test_dxt(be);
        test_heatmap(be);
        test_lustre(be);
    }
    test_misuse();
    free(cur_buf);
    return check_result("test_decode");
}
