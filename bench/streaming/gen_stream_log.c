/* Writes very large logs for the streaming-reader benchmarks in bounded memory:
 * the module region is written as a run of compressed streams of 16 MiB of
 * payload each (as an MPI job's per-process streams are), so 100 million DXT
 * segments need no more memory than a thousand.
 *   gen_stream_log -k posix -n N OUT   N POSIX records (v4), N distinct names
 *   gen_stream_log -k dxt -n M OUT     M DXT_POSIX segments over -f files (1000)
 * Options: -s KiB of payload per stream (16384), -v 1|2 DXT_POSIX version (1: no thread ids, what darshan-dxt-parser
 * 3.5.0 reads; 2: with thread ids), -z zlib|bzip2.  Values come from a fixed-seed
 * generator, so two runs write the same log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolens/log.h"
#include "../bench_gen.h"

static size_t CHUNK = (size_t)16 << 20;   /* payload bytes per stream (-s KiB) */
#define POSIX_REC (16 + 8 * POSIX_NUM_INDICES + 8 * POSIX_F_NUM_INDICES)


/* Output file and the region being written. */
typedef struct out {
    FILE *fp;
    int comp;
    uint64_t pos;
    uint8_t *buf;                  /* payload not yet compressed */
    size_t len;
} out;

static int die(const char *what, int rc)
{
    fprintf(stderr, "gen_stream_log: %s: %s\n", what, iolens_strerror(rc));
    return 1;
}

/* Compress buf[0..len) as one stream and append it. */
static int flush_stream(out *o)
{
    if (!o->len)
        return 0;
    void *z;
    size_t zn;
    int rc = iolens_compress(o->comp, o->buf, o->len, &z, &zn);
    if (rc)
        return die("compress", rc);
    int bad = fwrite(z, 1, zn, o->fp) != zn;
    free(z);
    o->pos += zn;
    o->len = 0;
    return bad ? die("write", IOLENS_E_IO) : 0;
}

/* Room for n payload bytes (n <= CHUNK), flushing a full chunk first. */
static uint8_t *room(out *o, size_t n, int *err)
{
    if (o->len + n > CHUNK && flush_stream(o))
        *err = 1;
    uint8_t *p = o->buf + o->len;
    o->len += n;
    return p;
}

static void posix_name(char *name, size_t len, size_t i)
{
    snprintf(name, len, "/scratch/bench/dir%03zu/file-%08zu", i % 997, i);
}

static void dxt_name(char *name, size_t len, size_t i)
{
    snprintf(name, len, "/scratch/bench/trace-%04zu.dat", i);
}

/* Name region: one stream of (u64 id, name, NUL) entries. */
static int write_names(out *o, size_t count, void (*name_of)(char *, size_t, size_t),
                       iolens_region *r)
{
    char name[64];
    int err = 0;
    r->off = o->pos;
    for (size_t i = 0; i < count && !err; i++) {
        name_of(name, sizeof name, i);
        size_t n = strlen(name);
        uint8_t *p = room(o, 8 + n + 1, &err);
        put64(p, iolens_record_id(name, n));
        memcpy(p + 8, name, n + 1);
    }
    if (err || flush_stream(o))
        return 1;
    r->len = o->pos - r->off;
    return 0;
}

static int write_posix(out *o, size_t n)
{
    char name[64];
    int err = 0;
    for (size_t i = 0; i < n && !err; i++) {
        posix_name(name, sizeof name, i);
        uint8_t *r = room(o, POSIX_REC, &err);
        memset(r, 0, POSIX_REC);
        put64(r, iolens_record_id(name, strlen(name)));
        put64(r + 8, (uint64_t)(int64_t)(i % 1024));
        uint8_t *c = r + 16, *f = c + 8 * POSIX_NUM_INDICES;
        put64(c + 8 * POSIX_OPENS, 1 + next() % 4);
        put64(c + 8 * POSIX_READS, next() % 1000);
        put64(c + 8 * POSIX_WRITES, next() % 1000);
        put64(c + 8 * POSIX_SEEKS, next() % 100);
        put64(c + 8 * POSIX_BYTES_READ, next() % (1u << 30));
        put64(c + 8 * POSIX_BYTES_WRITTEN, next() % (1u << 30));
        put64(c + 8 * POSIX_MAX_BYTE_READ, next() % (1u << 30));
        put64(c + 8 * POSIX_MAX_BYTE_WRITTEN, next() % (1u << 30));
        put64(c + 8 * POSIX_MODE, 0644);
        put64(c + 8 * POSIX_ACCESS1_ACCESS, 4096u << (next() % 6));
        put64(c + 8 * POSIX_ACCESS1_COUNT, next() % 500);
        put64(c + 8 * POSIX_FASTEST_RANK, i % 1024);
        put64(c + 8 * POSIX_SLOWEST_RANK, i % 1024);
        double t0 = (double)(next() % 3600000) / 1000.0;
        putf(f + 8 * POSIX_F_OPEN_START_TIMESTAMP, t0);
        putf(f + 8 * POSIX_F_CLOSE_END_TIMESTAMP, t0 + 1.5);
        putf(f + 8 * POSIX_F_READ_TIME, (double)(next() % 1000) / 1000.0);
        putf(f + 8 * POSIX_F_WRITE_TIME, (double)(next() % 1000) / 1000.0);
        putf(f + 8 * POSIX_F_META_TIME, (double)(next() % 1000) / 1000.0);
    }
    return err;
}

static int write_dxt(out *o, size_t m, size_t files, int version)
{
    size_t per = m / files, extra = m % files, seg = version == 2 ? 40 : 32;
    char name[64];
    int err = 0;
    for (size_t i = 0; i < files && !err; i++) {
        dxt_name(name, sizeof name, i);
        size_t ns = per + (i < extra), nw = ns / 2;
        uint8_t *q = room(o, 104, &err);
        memset(q, 0, 104);
        put64(q, iolens_record_id(name, strlen(name)));
        put64(q + 8, i % 64);
        snprintf((char *)q + 24, 64, "nid%05zu", i % 64);
        put64(q + 88, nw);
        put64(q + 96, ns - nw);
        double t = 0.001 * (double)i;
        for (size_t k = 0; k < ns && !err; k++) {
            q = room(o, seg, &err);
            put64(q, (uint64_t)(k < nw ? k : k - nw) * 1048576);
            put64(q + 8, 4096u << (next() % 8));
            putf(q + 16, t);
            t += 1e-5 * (double)(1 + next() % 50);
            putf(q + 24, t);
            if (seg == 40)
                put64(q + 32, 140000000000000ULL + (k % 4));
        }
    }
    return err;
}

int main(int argc, char **argv)
{
    const char *kind = "posix";
    size_t n = 1000000, files = 1000;
    int comp = IOLENS_COMP_ZLIB, version = 1, opt;
    while ((opt = getopt(argc, argv, "k:n:f:s:v:z:")) != -1) {
        if (opt == 'k') kind = optarg;
        else if (opt == 's') CHUNK = (strtoull(optarg, NULL, 10) ?: 1) << 10;
        else if (opt == 'n') n = strtoull(optarg, NULL, 10);
        else if (opt == 'f') files = strtoull(optarg, NULL, 10);
        else if (opt == 'v') version = atoi(optarg) == 2 ? 2 : 1;
        else if (opt == 'z') comp = !strcmp(optarg, "bzip2") ? IOLENS_COMP_BZIP2 : IOLENS_COMP_ZLIB;
        else break;
    }
    int dxt = !strcmp(kind, "dxt");
    if (optind != argc - 1 || (!dxt && strcmp(kind, "posix")) || !files) {
        fprintf(stderr, "usage: %s [-k posix|dxt] [-n count] [-f files] [-s KiB] [-v 1|2] "
                        "[-z zlib|bzip2] OUT\n", argv[0]);
        return 2;
    }
    out o = {fopen(argv[optind], "wb"), comp, 1328, malloc(CHUNK), 0};
    if (!o.fp || !o.buf)
        return die(argv[optind], o.fp ? IOLENS_E_NOMEM : IOLENS_E_IO);
    iolens_header h;
    memset(&h, 0, sizeof h);
    h.comp_type = comp;
    iolens_job job;
    iolens_mount mounts[2] = {{"/scratch", "lustre"}, {"/", "ext4"}};
    memset(&job, 0, sizeof job);
    job.uid = 1000;
    job.start_sec = 1700000000;
    job.end_sec = 1700003600;
    job.nprocs = dxt ? 64 : 1024;
    job.jobid = 4242;
    strcpy(job.metadata, "lib_ver=iolens-bench\n");
    job.exe = "/scratch/bench/app --streaming";
    job.mounts = mounts;
    job.nmounts = 2;
    void *jp;
    size_t jn;
    int rc = iolens_job_encode(&job, &jp, &jn);
    if (rc)
        return die("job", rc);
    fseek(o.fp, 1328, SEEK_SET);
    memcpy(room(&o, jn, &rc), jp, jn);
    free(jp);
    if (flush_stream(&o))
        return 1;
    if (write_names(&o, dxt ? files : n, dxt ? dxt_name : posix_name, &h.names))
        return 1;
    int module = dxt ? IOL_MOD_DXT_POSIX : IOL_MOD_POSIX;
    h.mod[module].off = o.pos;
    if ((dxt ? write_dxt(&o, n, files, version) : write_posix(&o, n)) || flush_stream(&o))
        return 1;
    h.mod[module].len = o.pos - h.mod[module].off;
    h.mod_ver[module] = dxt ? (uint32_t)version : IOL_MOD_POSIX_VERSION;
    uint8_t head[1328];
    if ((rc = iolens_header_encode(&h, head)))
        return die("header", rc);
    fseek(o.fp, 0, SEEK_SET);
    if (fwrite(head, 1, sizeof head, o.fp) != sizeof head || fclose(o.fp) != 0)
        return die("write", IOLENS_E_IO);
    free(o.buf);
    printf("wrote %s (%llu bytes)\n", argv[optind], (unsigned long long)o.pos);
    return 0;
}
