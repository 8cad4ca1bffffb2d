/* The DXT_REGION reader (iolens_log_dxt_regions, docs/regions.md "DXT segments"):
 * logs written with one DXT_POSIX record (2 writes, 1 read) and a DXT_REGION region
 * built here byte by byte, read back: the regions of a well-formed region, and a
 * clear error code for every malformed one, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolens/dxt_region.h"
#include "iolens/log.h"
#include "check.h"

static const char *dir = ".";

/* A record: header, table, indices, padding; returns its size. */
static size_t record(uint8_t *p, uint64_t id, uint32_t module, uint32_t nseg, uint32_t ntab,
                     const uint64_t *table, const uint8_t *idx)
{
    iolens_dxt_region_hdr h = {id, 0, module, nseg, ntab, 0};
    size_t size = (size_t)iolens_dxt_region_size(ntab, nseg);
    memset(p, 0, size);
    memcpy(p, &h, sizeof h);
    memcpy(p + 32, table, 8 * (size_t)ntab);
    memcpy(p + 32 + 8 * (size_t)ntab, idx, nseg);
    return size;
}

/* Write the log with `region` (NULL: no DXT_REGION) and read its regions: the
 * return code, and the regions in got[3] when it is IOLENS_OK. */
static int read_back(const uint8_t *region, size_t len, uint64_t got[3])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dxt_regions.darshan", dir);
    unlink(path);
    iolens_writer *w;
    iolens_job job;
    memset(&job, 0, sizeof job);
    job.nprocs = 1;
    job.exe = "/bin/app";
    uint64_t id = 7;
    int64_t rank = 0, wc = 2, rc = 1, off[3] = {0, 10, 20}, ln[3] = {10, 10, 5};
    double st[3] = {0.1, 0.2, 0.3}, en[3] = {0.15, 0.25, 0.35};
    size_t ss[2] = {0, 3};
    iolens_dxt d = {.module = IOL_MOD_DXT_POSIX, .count = 1, .id = &id, .rank = &rank,
                    .write_count = &wc, .read_count = &rc, .seg_start = ss, .nseg = 3,
                    .offset = off, .length = ln, .start = st, .end = en};
    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "open");
    CHECK(iolens_writer_set_job(w, &job) == IOLENS_OK, "job");
    CHECK(iolens_writer_put_dxt(w, &d) == IOLENS_OK, "put DXT");
    if (region)
        CHECK(iolens_writer_put_region(w, IOLENS_DXT_REGION_MODULE, 1, region, len) == IOLENS_OK,
              "put DXT_REGION");
    CHECK(iolens_writer_close(w) == IOLENS_OK, "close");
    iolens_log *log;
    iolens_dxt *dx = NULL;
    uint64_t *reg = NULL;
    if (iolens_log_open(path, &log, NULL, 0) != IOLENS_OK)
        return -1000;
    int r = iolens_log_dxt(log, IOL_MOD_DXT_POSIX, &dx);
    if (r == IOLENS_OK)
        r = iolens_log_dxt_regions(log, dx, &reg);
    if (r == IOLENS_OK)
        memcpy(got, reg, 3 * sizeof *reg);
    else if (r != IOLENS_E_NOT_PRESENT)    /* (a status, not a failure) */
        CHECK(reg == NULL && strlen(iolens_log_error(log)) > 0, "error %d without a message", r);
    free(reg);
    iolens_dxt_free(dx);
    iolens_log_close(log);
    unlink(path);
    return r;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    const uint64_t table[2] = {0xaaa, 0xbbb};
    const uint8_t idx[3] = {0, 2, 255}, past[3] = {0, 3, 1};
    uint8_t buf[1024];
    uint64_t got[3] = {0};
    const uint64_t unknown = IOLENS_DXT_REGION_NOT_KNOWN;

    size_t n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    CHECK(read_back(buf, n, got) == IOLENS_OK && got[0] == 0 && got[1] == 0xbbb &&
              got[2] == unknown, "well formed: %llx %llx %llx", (unsigned long long)got[0],
          (unsigned long long)got[1], (unsigned long long)got[2]);
    CHECK(read_back(NULL, 0, got) == IOLENS_E_NOT_PRESENT, "no DXT_REGION module");
    /* a record naming no DXT record (a rewrite dropped it): ignored */
    n = record(buf, 8, IOL_MOD_DXT_POSIX, 1, 0, table, idx);
    CHECK(read_back(buf, n, got) == IOLENS_OK && got[0] == unknown && got[2] == unknown,
          "orphan record ignored");
    /* the other DXT module's record of the same id: not this module's */
    n = record(buf, 7, IOL_MOD_DXT_MPIIO, 3, 2, table, past);
    CHECK(read_back(buf, n, got) == IOLENS_OK && got[1] == unknown, "MPI-IO record apart");

    n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    n += record(buf + n, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "a DXT record named twice");
    n = record(buf, 7, IOL_MOD_DXT_POSIX, 2, 2, table, idx);
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "segment count differs");
    n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, past);
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "index past the table");
    n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    CHECK(read_back(buf, n - 8, got) == IOLENS_E_BAD_RECORD, "record cut short");
    CHECK(read_back(buf, 20, got) == IOLENS_E_BAD_RECORD, "header cut short");
    n = record(buf, 7, 3, 3, 2, table, idx);
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "not a DXT module");
    n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    buf[24] = 255;                                   /* ntab past the limit */
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "table too large");
    n = record(buf, 7, IOL_MOD_DXT_POSIX, 3, 2, table, idx);
    memset(buf + 20, 0xff, 4);                       /* nseg: 4 Gi segments */
    CHECK(read_back(buf, n, got) == IOLENS_E_BAD_RECORD, "segments past the region");
    return check_result("test_dxt_regions");
}
