/* Generates large logs for the analysis-speed benchmarks, with the library writer:
 *   <outdir>/big_posix.darshan  N POSIX records (default 1,000,000), unique names
 *   <outdir>/big_dxt.darshan    M DXT_POSIX segments (default 10,000,000)
 * usage: gen_big_log [-n N] [-m M] [-z zlib|bzip2|none] OUTDIR
 * Values are deterministic (a fixed-seed generator) so runs are comparable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolens/log.h"
#include "bench_gen.h"

#define POSIX_REC (16 + 8 * POSIX_NUM_INDICES + 8 * POSIX_F_NUM_INDICES)

static int start(iolens_writer **w, const char *path, int comp, int64_t nprocs)
{
    iolens_job job;
    iolens_mount m[2] = { { "/", "ext4" }, { "/scratch", "lustre" } };
    memset(&job, 0, sizeof job);
    job.uid = 1000;
    job.start_sec = 1700000000;
    job.end_sec = 1700003600;
    job.nprocs = nprocs;
    job.jobid = 4242;
    strcpy(job.metadata, "lib_ver=iolens-bench\n");
    job.exe = "/scratch/bench/app --big";
    job.mounts = m;
    job.nmounts = 2;
    int rc = iolens_writer_open(path, comp, w);
    if (!rc)
        rc = iolens_writer_set_job(*w, &job);
    return rc;
}

static int finish(iolens_writer *w, const char *path, int rc)
{
    char err[512] = "";
    if (rc)
        snprintf(err, sizeof err, "%s", iolens_writer_error(w));
    int crc = iolens_writer_close_err(w, rc ? NULL : err, sizeof err);
    rc = rc ? rc : crc;
    if (rc)
        fprintf(stderr, "gen_big_log: %s: %s (%s)\n", path, iolens_strerror(rc), err);
    else
        printf("wrote %s\n", path);
    return rc;
}

static int gen_posix(const char *path, size_t n, int comp)
{
    iolens_writer *w;
    int rc = start(&w, path, comp, 512);
    if (rc) {
        fprintf(stderr, "gen_big_log: cannot start %s: %s\n", path, iolens_strerror(rc));
        return rc;
    }
    uint8_t *payload = malloc(n * POSIX_REC);
    if (!payload)
        return finish(w, path, IOLENS_E_NOMEM);
    char name[64];
    for (size_t i = 0; i < n && !rc; i++) {
        int len = snprintf(name, sizeof name, "/scratch/bench/dir%03zu/file-%08zu", i % 997, i);
        uint64_t id = iolens_record_id(name, (size_t)len);
        rc = iolens_writer_add_name(w, id, name);
        uint8_t *r = payload + i * POSIX_REC;
        memset(r, 0, POSIX_REC);
        put64(r, id);
        put64(r + 8, (uint64_t)(int64_t)(i % 512));
        uint8_t *c = r + 16;
        put64(c + 8 * POSIX_OPENS, 1 + next() % 4);
        put64(c + 8 * POSIX_READS, next() % 1000);
        put64(c + 8 * POSIX_WRITES, next() % 1000);
        put64(c + 8 * POSIX_BYTES_READ, next() % (1u << 30));
        put64(c + 8 * POSIX_BYTES_WRITTEN, next() % (1u << 30));
        put64(c + 8 * POSIX_MODE, 0644);
        uint8_t *f = c + 8 * POSIX_NUM_INDICES;
        double t0 = (double)(next() % 3600000) / 1000.0;
        putf(f + 8 * POSIX_F_OPEN_START_TIMESTAMP, t0);
        putf(f + 8 * POSIX_F_CLOSE_END_TIMESTAMP, t0 + 1.5);
        putf(f + 8 * POSIX_F_READ_TIME, (double)(next() % 1000) / 1000.0);
        putf(f + 8 * POSIX_F_WRITE_TIME, (double)(next() % 1000) / 1000.0);
    }
    if (!rc)
        rc = iolens_writer_put_region(w, IOL_MOD_POSIX, 4, payload, n * POSIX_REC);
    free(payload);
    return finish(w, path, rc);
}

/* DXT_POSIX v1: `m` segments over 1000 files (records), 32-byte segments. */
static int gen_dxt(const char *path, size_t m, int comp)
{
    size_t files = m < 1000 ? (m ? m : 1) : 1000, per = m / files, extra = m % files;
    iolens_writer *w;
    int rc = start(&w, path, comp, 64);
    if (rc) {
        fprintf(stderr, "gen_big_log: cannot start %s: %s\n", path, iolens_strerror(rc));
        return rc;
    }
    uint8_t *payload = malloc(files * 104 + m * 32);
    if (!payload)
        return finish(w, path, IOLENS_E_NOMEM);
    uint8_t *q = payload;
    char name[64];
    for (size_t i = 0; i < files && !rc; i++) {
        int len = snprintf(name, sizeof name, "/scratch/bench/trace-%04zu.dat", i);
        uint64_t id = iolens_record_id(name, (size_t)len);
        rc = iolens_writer_add_name(w, id, name);
        size_t ns = per + (i < extra), nw = ns / 2;
        memset(q, 0, 104);
        put64(q, id);
        put64(q + 8, i % 64);
        snprintf((char *)q + 24, 64, "nid%05zu", i % 64);
        put64(q + 88, nw);
        put64(q + 96, ns - nw);
        q += 104;
        double t = 0.001 * (double)i;
        for (size_t k = 0; k < ns; k++, q += 32) {
            uint64_t sz = 4096u << (next() % 8);
            put64(q, (uint64_t)k * 1048576);
            put64(q + 8, sz);
            putf(q + 16, t);
            t += 1e-5 * (double)(1 + next() % 50);
            putf(q + 24, t);
        }
    }
    if (!rc)
        rc = iolens_writer_put_region(w, IOL_MOD_DXT_POSIX, 1, payload, (size_t)(q - payload));
    free(payload);
    return finish(w, path, rc);
}

int main(int argc, char **argv)
{
    size_t n = 1000000, m = 10000000;
    int comp = IOLENS_COMP_ZLIB, opt;
    while ((opt = getopt(argc, argv, "n:m:z:")) != -1) {
        if (opt == 'n')
            n = strtoull(optarg, NULL, 10);
        else if (opt == 'm')
            m = strtoull(optarg, NULL, 10);
        else if (opt == 'z')
            comp = !strcmp(optarg, "bzip2") ? IOLENS_COMP_BZIP2
                 : !strcmp(optarg, "none") ? IOLENS_COMP_NONE : IOLENS_COMP_ZLIB;
        else
            break;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: %s [-n posix_records] [-m dxt_segments] [-z zlib|bzip2|none] OUTDIR\n",
                argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/big_posix.darshan", argv[optind]);
    int rc = gen_posix(path, n, comp);
    snprintf(path, sizeof path, "%s/big_dxt.darshan", argv[optind]);
    if (!rc)
        rc = gen_dxt(path, m, comp);
    return rc ? 1 : 0;
}
