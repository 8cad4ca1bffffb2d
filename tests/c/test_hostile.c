/* Hostile input: every malformed log gives the right status and a message naming
 * the problem, and nothing crashes (run under ASan/UBSan in build-asan). */
#include <stdio.h>
#include <string.h>
#include "iolens/log.h"
#include "check.h"
#include "logbuild.h"

static uint8_t job_raw[4096], names_raw[4096];
static size_t job_rawlen, names_rawlen;

/* A valid zlib log with names and one POSIX region of two fake records. */
static lb_log good_log(void)
{
    return lb_posix_log(job_raw, job_rawlen, names_raw, names_rawlen);
}

/* Opens buf; expects status `want` and `needle` in the message. */
static void expect_open(const void *buf, size_t len, int want, const char *needle, const char *what)
{
    char err[512] = "";
    iolens_log *log = NULL;
    int rc = iolens_log_open_mem(buf, len, &log, err, sizeof err);
    CHECK(rc == want, "%s: got %d (%s), want %d; message: %s", what, rc, iolens_strerror(rc), want, err);
    CHECK(!needle || strstr(err, needle), "%s: message \"%s\" lacks \"%s\"", what, err, needle);
    CHECK((rc == IOLENS_OK) == (log != NULL), "%s: handle/status mismatch", what);
    iolens_log_close(log);
}

static void test_truncation(void)
{
    lb_log l = good_log();
    /* Every prefix is either too short for the header or cuts the last region. */
    for (size_t n = 0; n < l.len; n += (n < 1400 ? 1 : 7)) {
        char err[512] = "";
        iolens_log *log = NULL;
        int rc = iolens_log_open_mem(l.buf, n, &log, err, sizeof err);
        int want = n < 1328 ? IOLENS_E_TRUNCATED : IOLENS_E_BAD_REGION;
        if (n < 16)
            want = IOLENS_E_TRUNCATED;
        CHECK(rc == want, "prefix %zu: got %d want %d (%s)", n, rc, want, err);
        CHECK(err[0] != 0, "prefix %zu: empty message", n);
        iolens_log_close(log);
    }
    expect_open(l.buf, l.len, IOLENS_OK, NULL, "the full log");
    free(l.buf);
}

static void test_header_fields(void)
{
    lb_log l = good_log();
    uint8_t *b = malloc(l.len);

    memcpy(b, l.buf, l.len);
    b[8] ^= 0xff;
    expect_open(b, l.len, IOLENS_E_BAD_MAGIC, "magic", "bad magic");

    memcpy(b, l.buf, l.len);
    memcpy(b, "3.99", 4);
    expect_open(b, l.len, IOLENS_E_BAD_VERSION, "3.99", "bad version");
    memcpy(b, "3.4", 4);
    expect_open(b, l.len, IOLENS_E_BAD_VERSION, "\"3.4\"", "short version");
    memcpy(b, "2.06", 4);
    expect_open(b, l.len, IOLENS_E_BAD_VERSION, "2.06", "version 2");

    memcpy(b, l.buf, l.len);
    b[16] = 7;
    expect_open(b, l.len, IOLENS_E_BAD_COMPRESSION, "compression type 7", "comp type");

    memcpy(b, l.buf, l.len);
    lb_put64(b + 56 + 16 * IOL_MOD_POSIX, 99999);        /* POSIX len */
    char needle[128];
    snprintf(needle, sizeof needle, "POSIX module region [off %zu, len 99999] extends past end of file (size %zu)",
             l.mod_off[IOL_MOD_POSIX], l.len);
    expect_open(b, l.len, IOLENS_E_BAD_REGION, needle, "region past EOF");

    memcpy(b, l.buf, l.len);
    lb_put64(b + 48 + 16 * IOL_MOD_POSIX, UINT64_MAX - 5);   /* offset overflow */
    expect_open(b, l.len, IOLENS_E_BAD_REGION, "POSIX module region", "offset overflow");

    memcpy(b, l.buf, l.len);
    lb_put64(b + 40, l.len);                              /* name len past EOF */
    expect_open(b, l.len, IOLENS_E_BAD_REGION, "name record region", "names past EOF");

    memcpy(b, l.buf, l.len);
    lb_put64(b + 32, 100);                                /* names inside the header */
    expect_open(b, l.len, IOLENS_E_BAD_REGION, "header", "names in header");
    free(b);
    free(l.buf);
}

static void test_region_errors(void)
{
    lb_log l = good_log();
    uint8_t *b = malloc(l.len);
    char err[512];
    iolens_log *log;
    const void *p;
    size_t n;

    /* Corrupt the middle of the POSIX stream. */
    memcpy(b, l.buf, l.len);
    size_t off = l.mod_off[IOL_MOD_POSIX];
    for (size_t i = off + 4; i < l.len - 4; i += 3)
        b[i] ^= 0x5a;
    CHECK(iolens_log_open_mem(b, l.len, &log, err, sizeof err) == IOLENS_OK, "corrupt POSIX: %s", err);
    int rc = iolens_log_region(log, IOL_MOD_POSIX, &p, &n);
    CHECK(rc == IOLENS_E_DECOMPRESS, "corrupt POSIX region gives %d", rc);
    CHECK(strstr(iolens_log_error(log), "POSIX module region"), "message: %s", iolens_log_error(log));
    rc = iolens_log_region(log, IOL_MOD_POSIX, &p, &n);
    CHECK(rc == IOLENS_E_DECOMPRESS, "second call gives cached error %d", rc);
    CHECK(iolens_log_region(log, IOL_MOD_MPIIO, &p, &n) == IOLENS_E_NOT_PRESENT, "absent MPI-IO");
    CHECK(strstr(iolens_log_error(log), "MPI-IO"), "absent message: %s", iolens_log_error(log));
    CHECK(iolens_log_region(log, 64, &p, &n) == IOLENS_E_INVALID_ARG, "module 64");
    iolens_log_close(log);

    /* Version 0 and a version newer than we know. */
    memcpy(b, l.buf, l.len);
    lb_put32(b + 1072 + 4 * IOL_MOD_POSIX, 9);
    CHECK(iolens_log_open_mem(b, l.len, &log, err, sizeof err) == IOLENS_OK, "POSIX v9 opens");
    rc = iolens_log_region(log, IOL_MOD_POSIX, &p, &n);
    CHECK(rc == IOLENS_E_BAD_MODULE_VERSION, "POSIX v9 gives %d", rc);
    CHECK(strstr(iolens_log_error(log), "POSIX") && strstr(iolens_log_error(log), "9"),
          "message: %s", iolens_log_error(log));
    iolens_log_close(log);
    lb_put32(b + 1072 + 4 * IOL_MOD_POSIX, 0);
    CHECK(iolens_log_open_mem(b, l.len, &log, err, sizeof err) == IOLENS_OK, "POSIX v0 opens");
    CHECK(iolens_log_region(log, IOL_MOD_POSIX, &p, &n) == IOLENS_E_BAD_MODULE_VERSION, "POSIX v0");
    iolens_log_close(log);
    free(b);
    free(l.buf);
}

/* Hand-built regions: garbage after a stream, a stream cut short, names without NUL. */
static void test_stream_rules(void)
{
    uint8_t payload[3000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7);
    void *z;
    size_t zl;
    iolens_compress(IOLENS_COMP_ZLIB, payload, sizeof payload, &z, &zl);
    uint8_t region[8192];
    memcpy(region, z, zl);
    memcpy(region + zl, z, zl);                      /* two streams */
    void *zj, *zn;
    size_t lj, ln;
    iolens_compress(IOLENS_COMP_ZLIB, job_raw, job_rawlen, &zj, &lj);
    iolens_compress(IOLENS_COMP_ZLIB, names_raw, names_rawlen, &zn, &ln);
    char err[512];
    iolens_log *log;
    const void *p;
    size_t n;

    struct { size_t len; int rc; size_t want; const char *what; } cases[] = {
        { 2 * zl, IOLENS_OK, 2 * sizeof payload, "two streams" },
        { zl + zl / 2, IOLENS_OK, 0, "second stream cut short" },
        { zl + 5, IOLENS_E_DECOMPRESS, 0, "garbage after a stream" },
    };
    memcpy(region + zl + zl, "JUNK!", 5);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t reg[8192];
        memcpy(reg, region, sizeof reg);
        if (c == 2)
            memcpy(reg + zl, "JUNK!", 5);
        lb_region r = { IOL_MOD_POSIX, 4, reg, cases[c].len };
        lb_log l = lb_build("3.41", 0, 0, zj, lj, zn, ln, &r, 1);
        CHECK(iolens_log_open_mem(l.buf, l.len, &log, err, sizeof err) == IOLENS_OK, "%s: %s",
              cases[c].what, err);
        int rc = iolens_log_region(log, IOL_MOD_POSIX, &p, &n);
        CHECK(rc == cases[c].rc, "%s: rc %d (%s)", cases[c].what, rc, iolens_log_error(log));
        if (c == 0)
            CHECK(n == cases[c].want && memcmp(p, payload, sizeof payload) == 0 &&
                  memcmp((const uint8_t *)p + sizeof payload, payload, sizeof payload) == 0,
                  "two streams: %zu bytes", n);
        if (c == 1)
            CHECK(rc == IOLENS_OK && n > sizeof payload && n < 2 * sizeof payload &&
                  memcmp((const uint8_t *)p + sizeof payload, payload, n - sizeof payload) == 0,
                  "short stream gives a prefix: %zu bytes", n);
        iolens_log_close(log);
        free(l.buf);
    }

    /* Name region (comp NONE) whose last record lacks its NUL. */
    uint8_t names[64];
    size_t nl = lb_name(names, 0, 1, "/a");
    lb_put64(names + nl, 2);
    memcpy(names + nl + 8, "/bcd", 4);
    nl += 12;
    lb_log l = lb_build("3.41", IOLENS_COMP_NONE, 0, job_raw, job_rawlen, names, nl, NULL, 0);
    expect_open(l.buf, l.len, IOLENS_E_BAD_NAMES, "NUL", "name without NUL");
    free(l.buf);

    /* Job region too short for a job record. */
    l = lb_build("3.41", IOLENS_COMP_NONE, 0, job_raw, 1000, NULL, 0, NULL, 0);
    expect_open(l.buf, l.len, IOLENS_E_BAD_JOB, "job", "short job");
    free(l.buf);

    /* Job region that is not zlib. */
    l = lb_build("3.41", IOLENS_COMP_ZLIB, 0, job_raw, job_rawlen, NULL, 0, NULL, 0);
    expect_open(l.buf, l.len, IOLENS_E_DECOMPRESS, "job region", "raw job in a zlib log");
    free(l.buf);

    /* Mount entry with a single token. */
    uint8_t jb[4096];
    size_t jl = lb_job(jb, 1, "lib_ver=3.4.1\n", "/bin/app\nlustre /scratch\nnfs");
    l = lb_build("3.41", IOLENS_COMP_NONE, 0, jb, jl, NULL, 0, NULL, 0);
    expect_open(l.buf, l.len, IOLENS_E_BAD_JOB, "mount table", "bad mount entry");
    free(l.buf);
    free(z);
    free(zj);
    free(zn);
}

/* Old 3.10 header: renumbering of slots, versions and partial bits (spec 8.2),
 * the old job record, and a bzip2/none mix of regions. */
static void test_old_header(void)
{
    uint8_t jb[4096], names[256];
    size_t jl = lb_job(jb, 0, "lib_ver=3.1.0\n", "/bin/old arg\next4\t/\nlustre\t/scratch");
    size_t nl = lb_name(names, 0, 77, "/scratch/f");
    uint8_t lus[64] = { 1 }, dxt[200] = { 2 };
    lb_region r[2] = { { 6, 1, lus, sizeof lus }, { 8, 1, dxt, sizeof dxt } };
    /* partial bit 7 = STDIO in 3.10 numbering */
    lb_log l = lb_build("3.10", IOLENS_COMP_NONE, 1u << 7, jb, jl, names, nl, r, 2);
    char err[512];
    iolens_log *log;
    int rc = iolens_log_open_mem(l.buf, l.len, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "3.10 log: %s", err);
    if (rc == IOLENS_OK) {
        const iolens_header *h = iolens_log_header(log);
        const iolens_job *j = iolens_log_job(log);
        CHECK(h->header_size == 360 && h->minor == 10, "old header size");
        CHECK(h->mod[IOL_MOD_LUSTRE].len == sizeof lus && h->mod_ver[IOL_MOD_LUSTRE] == 1,
              "LUSTRE moved from slot 6 to 8");
        CHECK(h->mod[IOL_MOD_DXT_POSIX].len == sizeof dxt, "DXT_POSIX moved from 8 to 10");
        CHECK(h->mod[6].len == 0 && h->mod[4].len == 0, "inserted slots empty");
        CHECK(h->partial_flag == (1u << IOL_MOD_STDIO), "partial bit renumbered: %llx",
              (unsigned long long)h->partial_flag);
        CHECK(j->end_sec == 1700000010 && j->start_nsec == 0 && j->nprocs == 4 && j->jobid == 4242,
              "old job record");
        CHECK(iolens_job_runtime(j, h->minor) == 11.0, "old run time is end-start+1");
        CHECK(strcmp(j->exe, "/bin/old arg") == 0, "exe \"%s\"", j->exe);
        CHECK(j->nmounts == 2 && strcmp(j->mounts[0].path, "/scratch") == 0 &&
              strcmp(j->mounts[0].fstype, "lustre") == 0 && strcmp(j->mounts[1].path, "/") == 0,
              "mounts sorted by length");
        CHECK(iolens_log_name(log, 77) && strcmp(iolens_log_name(log, 77), "/scratch/f") == 0, "name");
        const void *p;
        size_t n;
        CHECK(iolens_log_region(log, IOL_MOD_LUSTRE, &p, &n) == IOLENS_OK && n == sizeof lus &&
              ((const uint8_t *)p)[0] == 1, "LUSTRE payload");
        iolens_log_close(log);
    }
    free(l.buf);

    /* 3.00: names carry an explicit length and no NUL. */
    uint8_t n300[64];
    lb_put64(n300, 5);
    lb_put32(n300 + 8, 3);
    memcpy(n300 + 12, "/ab", 3);
    lb_put64(n300 + 15, 6);
    lb_put32(n300 + 23, 0);
    l = lb_build("3.00", IOLENS_COMP_NONE, 0, jb, jl, n300, 27, NULL, 0);
    rc = iolens_log_open_mem(l.buf, l.len, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "3.00 log: %s", err);
    if (rc == IOLENS_OK) {
        CHECK(iolens_log_name_count(log) == 2, "3.00 names: %zu", iolens_log_name_count(log));
        CHECK(iolens_log_name(log, 5) && strcmp(iolens_log_name(log, 5), "/ab") == 0, "3.00 name");
        CHECK(iolens_log_name(log, 6) && iolens_log_name(log, 6)[0] == 0, "3.00 empty name");
        iolens_log_close(log);
    }
    free(l.buf);
    lb_put32(n300 + 8, 200);                         /* length past the region */
    l = lb_build("3.00", IOLENS_COMP_NONE, 0, jb, jl, n300, 27, NULL, 0);
    expect_open(l.buf, l.len, IOLENS_E_BAD_NAMES, "length", "3.00 name length");
    free(l.buf);
}

/* Name dedup (5.2): first wins, an empty name is replaced by a later one; the
 * iteration order is first occurrence. */
static void test_names(void)
{
    uint8_t names[512];
    size_t n = 0;
    n = lb_name(names, n, 30, "");
    n = lb_name(names, n, 10, "/first");
    n = lb_name(names, n, 30, "/late");
    n = lb_name(names, n, 10, "/second");
    n = lb_name(names, n, 20, "");
    n = lb_name(names, n, 30, "/later");
    lb_log l = lb_build("3.41", IOLENS_COMP_NONE, 0, job_raw, job_rawlen, names, n, NULL, 0);
    char err[512];
    iolens_log *log;
    int rc = iolens_log_open_mem(l.buf, l.len, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "names log: %s", err);
    if (rc == IOLENS_OK) {
        CHECK(iolens_log_name_count(log) == 3, "3 distinct ids");
        CHECK(strcmp(iolens_log_name(log, 10), "/first") == 0, "first wins");
        CHECK(strcmp(iolens_log_name(log, 30), "/late") == 0, "empty replaced");
        CHECK(strcmp(iolens_log_name(log, 20), "") == 0, "empty kept when alone");
        CHECK(iolens_log_name(log, 40) == NULL, "missing id");
        uint64_t ids[3];
        for (size_t i = 0; i < 3; i++)
            iolens_log_name_at(log, i, &ids[i], NULL);
        CHECK(ids[0] == 30 && ids[1] == 10 && ids[2] == 20, "first-occurrence order");
        CHECK(iolens_log_name_at(log, 3, NULL, NULL) == IOLENS_E_INVALID_ARG, "index past end");
        iolens_log_close(log);
    }
    free(l.buf);
}

int main(void)
{
    job_rawlen = lb_job(job_raw, 1, "lib_ver=3.4.1\n", "/bin/app -x\next4\t/\nlustre\t/scratch");
    names_rawlen = lb_name(names_raw, 0, 1234, "/scratch/file");
    test_truncation();
    test_header_fields();
    test_region_errors();
    test_stream_rules();
    test_old_header();
    test_names();
    expect_open(NULL, 0, IOLENS_E_TRUNCATED, "too short", "empty buffer");
    char err[256];
    iolens_log *log;
    /* The message names the problem and leaves the path to the caller (log.h). */
    CHECK(iolens_log_open("/nonexistent/x.darshan", &log, err, sizeof err) == IOLENS_E_IO &&
          !strcmp(err, "cannot open: No such file or directory"), "missing file: %s", err);
    return check_result("test_hostile");
}
