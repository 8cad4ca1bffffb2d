/* Writer round trip: write a log with every encoder (zlib, bzip2, none), read it
 * back, check the container fields, the raw record bytes (layouts of spec 7), and
 * the decoders' view.  Also the writer's misuse errors and file removal.
 * argv[1] is a scratch directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iolens/log.h"
#include "check.h"

static const char *dir = ".";

static uint64_t rd64(const void *p, size_t off)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)p + off, 8);
    return v;
}

static double rdf(const void *p, size_t off)
{
    double v;
    memcpy(&v, (const uint8_t *)p + off, 8);
    return v;
}

static void fill_job(iolens_job *j, iolens_mount *m)
{
    memset(j, 0, sizeof *j);
    j->uid = 501;
    j->start_sec = 1700000000;
    j->start_nsec = 100000000;
    j->end_sec = 1700000003;
    j->end_nsec = 600000000;
    j->nprocs = 2;
    j->jobid = 99;
    strcpy(j->metadata, "lib_ver=iolens-0.1\nh=romio_cb_write=enable");   /* no final \n */
    j->exe = "/usr/bin/app --in /scratch/x";
    m[0].path = "/";
    m[0].fstype = "ext4";
    m[1].path = "/scratch";
    m[1].fstype = "lustre";
    m[2].path = "/home";
    m[2].fstype = "nfs";
    j->mounts = m;
    j->nmounts = 3;
}

/* Two POSIX records with distinct counters. */
static void put_posix(iolens_writer *w, const uint64_t *ids)
{
    static int64_t ints[2 * POSIX_NUM_INDICES];
    static double flts[2 * POSIX_F_NUM_INDICES];
    int64_t rank[2] = { -1, 1 };
    for (size_t k = 0; k < 2 * POSIX_NUM_INDICES; k++)
        ints[k] = (int64_t)k * 3 - 7;
    for (size_t k = 0; k < 2 * POSIX_F_NUM_INDICES; k++)
        flts[k] = (double)k * 0.25;
    iolens_records r = { .module = IOL_MOD_POSIX, .count = 2, .n_int = POSIX_NUM_INDICES,
                         .n_flt = POSIX_F_NUM_INDICES, .id = (uint64_t *)ids, .rank = rank,
                         .ints = ints, .flts = flts };
    CHECK(iolens_writer_put_records(w, &r) == IOLENS_OK, "put POSIX: %s", iolens_writer_error(w));
}

static void put_h5d(iolens_writer *w)
{
    static int64_t ints[H5D_NUM_INDICES];
    static double flts[H5D_F_NUM_INDICES];
    uint64_t id = 55, frid = 66;
    int64_t rank = 0;
    ints[0] = 12;
    flts[0] = 1.5;
    iolens_records r = { .module = IOL_MOD_H5D, .count = 1, .n_int = H5D_NUM_INDICES,
                         .n_flt = H5D_F_NUM_INDICES, .id = &id, .rank = &rank,
                         .file_rec_id = &frid, .ints = ints, .flts = flts };
    CHECK(iolens_writer_put_records(w, &r) == IOLENS_OK, "put H5D");
}

static void put_lustre(iolens_writer *w, uint64_t id)
{
    int64_t rank = -1, nc = 2, ns = 3;
    size_t cs[2] = { 0, 2 }, os[2] = { 0, 3 };
    int64_t comp[2 * LUSTRE_COMP_NUM_INDICES] = { 1048576, 2, 0, 0, 0, 4194304, -1,
                                                  4194304, 1, 0, 0, 4194304, -1, -1 };
    char pool[2][17] = { "fast", "" };
    int64_t ost[3] = { 7, 8, 9 };
    iolens_lustre l = { .count = 1, .id = &id, .rank = &rank, .num_comps = &nc,
                        .num_stripes = &ns, .comp_start = cs, .comp = comp,
                        .pool_name = pool, .ost_start = os, .ost = ost };
    CHECK(iolens_writer_put_lustre(w, &l) == IOLENS_OK, "put LUSTRE");
}

static void put_mdhim(iolens_writer *w)
{
    uint64_t id = 5828525108966349513ULL;
    int64_t rank = 0, ints[MDHIM_NUM_INDICES] = { 4, 5, 6, 7, 3 }, tail[3] = { 10, 20, 30 };
    double flts[MDHIM_F_NUM_INDICES] = { 0.5, 0.75, 0.1, 0.2 };
    size_t ts[2] = { 0, 3 };
    iolens_records r = { .module = IOL_MOD_MDHIM, .count = 1, .n_int = MDHIM_NUM_INDICES,
                         .n_flt = MDHIM_F_NUM_INDICES, .id = &id, .rank = &rank, .ints = ints,
                         .flts = flts, .tail_start = ts, .tail = tail };
    CHECK(iolens_writer_put_records(w, &r) == IOLENS_OK, "put MDHIM");
}

static void put_dxt(iolens_writer *w, uint64_t id)
{
    int64_t rank = 1, wc = 2, rc = 1, off[3] = { 0, 4096, 0 }, len[3] = { 4096, 4096, 100 };
    double st[3] = { 0.1, 0.2, 0.3 }, en[3] = { 0.15, 0.25, 0.35 };
    char host[1][65] = { "node17" };
    size_t ss[2] = { 0, 3 };
    iolens_dxt d = { .module = IOL_MOD_DXT_POSIX, .count = 1, .id = &id, .rank = &rank,
                     .hostname = host, .write_count = &wc, .read_count = &rc, .seg_start = ss,
                     .nseg = 3, .offset = off, .length = len, .start = st, .end = en };
    CHECK(iolens_writer_put_dxt(w, &d) == IOLENS_OK, "put DXT");
}

static void put_heatmap(iolens_writer *w)
{
    uint64_t id = 16592106915301738621ULL;
    int64_t rank = 0, nb = 2, wb[2] = { 100, 0 }, rb[2] = { 0, 50 };
    double width = 0.1;
    size_t bs[2] = { 0, 2 };
    iolens_heatmap h = { .count = 1, .id = &id, .rank = &rank, .bin_width = &width, .nbins = &nb,
                         .bin_start = bs, .write_bins = wb, .read_bins = rb };
    CHECK(iolens_writer_put_heatmap(w, &h) == IOLENS_OK, "put HEATMAP");
}

/* DAOS: aux = pool uuid, container uuid (bytes), oid_hi, oid_lo (host u64). */
static uint8_t daos_aux[48];

static void put_daos(iolens_writer *w)
{
    static int64_t ints[DAOS_NUM_INDICES];
    static double flts[DAOS_F_NUM_INDICES];
    uint64_t id = 4321, hi = 0x1122334455667788ULL, lo = 42;
    int64_t rank = 3;
    for (int k = 0; k < 32; k++)
        daos_aux[k] = (uint8_t)(0xa0 + k);
    memcpy(daos_aux + 32, &hi, 8);
    memcpy(daos_aux + 40, &lo, 8);
    ints[DAOS_NUM_INDICES - 1] = 77;
    flts[0] = 2.5;
    iolens_records r = { .module = IOL_MOD_DAOS, .count = 1, .n_int = DAOS_NUM_INDICES,
                         .n_flt = DAOS_F_NUM_INDICES, .id = &id, .rank = &rank, .ints = ints,
                         .flts = flts, .aux_size = 48, .aux = daos_aux };
    CHECK(iolens_writer_put_records(w, &r) == IOLENS_OK, "put DAOS");
}

/* The decoders give back what the encoders were given. */
static void check_decoded(iolens_log *log)
{
    iolens_records *r;
    int rc = iolens_log_records(log, IOL_MOD_DAOS, &r);
    CHECK(rc == IOLENS_OK, "decode DAOS: %s", iolens_log_error(log));
    if (rc == IOLENS_OK) {
        CHECK(r->count == 1 && r->aux_size == 48 && memcmp(r->aux, daos_aux, 48) == 0 &&
              r->ints[DAOS_NUM_INDICES - 1] == 77 && r->flts[0] == 2.5 && r->rank[0] == 3,
              "DAOS round trip");
        iolens_records_free(r);
    }
    rc = iolens_log_records(log, IOL_MOD_MDHIM, &r);
    CHECK(rc == IOLENS_OK && r->count == 1 && r->tail_start[1] - r->tail_start[0] == 3 &&
          r->tail[2] == 30, "MDHIM round trip");
    if (rc == IOLENS_OK)
        iolens_records_free(r);
    iolens_lustre *l;
    rc = iolens_log_lustre(log, &l);
    CHECK(rc == IOLENS_OK && l->count == 1 && l->comp_start[1] == 2 && l->ost_start[1] == 3 &&
          strcmp(l->pool_name[0], "fast") == 0 && l->ost[2] == 9, "LUSTRE round trip");
    if (rc == IOLENS_OK)
        iolens_lustre_free(l);
    iolens_dxt *d;
    rc = iolens_log_dxt(log, IOL_MOD_DXT_POSIX, &d);
    CHECK(rc == IOLENS_OK && d->count == 1 && d->nseg == 3 && d->length[2] == 100 &&
          d->end[1] == 0.25 && strcmp(d->hostname[0], "node17") == 0, "DXT round trip");
    if (rc == IOLENS_OK)
        iolens_dxt_free(d);
}

static void check_raw(iolens_log *log, const uint64_t *ids)
{
    const void *p;
    size_t n;
    CHECK(iolens_log_region(log, IOL_MOD_POSIX, &p, &n) == IOLENS_OK && n == 2 * 704,
          "POSIX region %zu bytes", n);
    if (n == 2 * 704) {
        CHECK(rd64(p, 0) == ids[0] && (int64_t)rd64(p, 8) == -1, "POSIX base record");
        CHECK((int64_t)rd64(p, 16) == -7 && rdf(p, 16 + 8 * POSIX_NUM_INDICES + 8) == 0.25,
              "POSIX counters at their offsets");
        CHECK(rd64(p, 704) == ids[1] && (int64_t)rd64(p, 712) == 1, "second record");
    }
    CHECK(iolens_log_region(log, IOL_MOD_H5D, &p, &n) == IOLENS_OK && n == 912 &&
          rd64(p, 16) == 66 && rd64(p, 24) == 12, "H5D with file_rec_id");
    CHECK(iolens_log_region(log, IOL_MOD_LUSTRE, &p, &n) == IOLENS_OK && n == 32 + 144 + 24 &&
          rd64(p, 16) == 2 && rd64(p, 24) == 3 && memcmp((const uint8_t *)p + 32 + 56, "fast", 5) == 0 &&
          rd64(p, 32 + 144 + 16) == 9, "LUSTRE layout");
    CHECK(iolens_log_region(log, IOL_MOD_DXT_POSIX, &p, &n) == IOLENS_OK && n == 104 + 3 * 32 &&
          rd64(p, 16) == 0 && strcmp((const char *)p + 24, "node17") == 0 && rd64(p, 88) == 2 &&
          rd64(p, 104 + 32 + 8) == 4096, "DXT_POSIX v1 layout");
    CHECK(iolens_log_region(log, IOL_MOD_MDHIM, &p, &n) == IOLENS_OK && n == 96 + 16 &&
          rd64(p, 88) == 10 && rd64(p, 104) == 30, "MDHIM with histogram");
    CHECK(iolens_log_region(log, IOL_MOD_HEATMAP, &p, &n) == IOLENS_OK && n == 48 + 32 &&
          rd64(p, 32) == 0 && rd64(p, 40) == 0 && rd64(p, 48) == 100 && rd64(p, 72) == 50,
          "HEATMAP layout with zero pointer slots");
    CHECK(iolens_log_region(log, IOL_MOD_DAOS, &p, &n) == IOLENS_OK && n == 696 &&
          memcmp((const uint8_t *)p + 648, daos_aux, 32) == 0 &&
          rd64(p, 680) == 0x1122334455667788ULL && rd64(p, 688) == 42, "DAOS layout");
    const iolens_header *h = iolens_log_header(log);
    CHECK(h->mod_ver[IOL_MOD_DXT_POSIX] == 1 && h->mod_ver[IOL_MOD_POSIX] == 4 &&
          h->mod_ver[IOL_MOD_LUSTRE] == 2 && h->mod_ver[IOL_MOD_MPIIO] == 0, "versions");
}

/* level: the zlib level (iolens_writer_set_level; 0 = the default): every level
 * reads back the same. */
static void roundtrip(int comp, int level)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/writer-%d-%d.darshan", dir, comp, level);
    iolens_writer *w;
    int rc = iolens_writer_open(path, comp, &w);
    CHECK(rc == IOLENS_OK, "writer open %d", rc);
    if (rc)
        return;
    iolens_writer_set_level(w, level);
    iolens_job job;
    iolens_mount m[3];
    fill_job(&job, m);
    uint64_t ids[2] = { iolens_record_id("/scratch/x", 10), iolens_record_id("/home/y", 7) };
    CHECK(iolens_writer_set_job(w, &job) == IOLENS_OK, "set_job: %s", iolens_writer_error(w));
    CHECK(iolens_writer_add_name(w, ids[0], "/scratch/x") == IOLENS_OK, "add name");
    CHECK(iolens_writer_add_name(w, ids[1], "/home/y") == IOLENS_OK, "add name");
    put_posix(w, ids);
    put_h5d(w);
    put_lustre(w, ids[0]);
    put_dxt(w, ids[0]);
    put_mdhim(w);
    put_heatmap(w);
    put_daos(w);
    iolens_writer_set_partial(w, 1u << IOL_MOD_STDIO);
    char werr[256];
    CHECK(iolens_writer_close_err(w, werr, sizeof werr) == IOLENS_OK, "close: %s", werr);

    char err[512];
    iolens_log *log;
    rc = iolens_log_open(path, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "reopen (comp %d): %s", comp, err);
    if (rc)
        return;
    const iolens_header *h = iolens_log_header(log);
    const iolens_job *j = iolens_log_job(log);
    CHECK(strcmp(h->version, "3.41") == 0 && h->comp_type == comp &&
          h->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__), "header");
    CHECK(h->partial_flag == (1u << IOL_MOD_STDIO), "partial flag");
    CHECK(j->uid == 501 && j->nprocs == 2 && j->jobid == 99 && j->end_nsec == 600000000, "job");
    CHECK(strcmp(j->metadata, "lib_ver=iolens-0.1\nh=romio_cb_write=enable\n") == 0,
          "metadata ends with a newline: \"%s\"", j->metadata);
    CHECK(strcmp(j->exe, "/usr/bin/app --in /scratch/x") == 0, "exe \"%s\"", j->exe);
    CHECK(j->nmounts == 3 && strcmp(j->mounts[0].path, "/scratch") == 0 &&
          strcmp(j->mounts[1].path, "/home") == 0 && strcmp(j->mounts[2].path, "/") == 0,
          "mount table");
    double rt = iolens_job_runtime(j, h->minor);
    CHECK(rt > 3.4999 && rt < 3.5001, "run time %f", rt);
    CHECK(iolens_log_name_count(log) == 2 && strcmp(iolens_log_name(log, ids[1]), "/home/y") == 0,
          "names");
    check_raw(log, ids);
    check_decoded(log);
    iolens_log_close(log);
    unlink(path);
}

/* Misuse: out-of-order regions and names after regions fail, and the partial file
 * is removed at close. */
static void misuse(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/writer-bad.darshan", dir);
    iolens_writer *w;
    iolens_job job;
    iolens_mount m[3];
    fill_job(&job, m);
    uint8_t rec[704] = { 0 };
    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "open");
    CHECK(iolens_writer_put_region(w, IOL_MOD_POSIX, 4, rec, sizeof rec) == IOLENS_E_INVALID_ARG,
          "region before job");
    char err[256];
    CHECK(iolens_writer_close_err(w, err, sizeof err) == IOLENS_E_INVALID_ARG && strstr(err, "job"),
          "close reports the first error: %s", err);
    CHECK(access(path, F_OK) != 0, "failed log removed");

    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "open");
    iolens_writer_set_job(w, &job);
    CHECK(iolens_writer_put_region(w, IOL_MOD_STDIO, 2, rec, 248) == IOLENS_OK, "STDIO");
    CHECK(iolens_writer_put_region(w, IOL_MOD_POSIX, 4, rec, 704) == IOLENS_E_INVALID_ARG,
          "descending id refused");
    CHECK(iolens_writer_add_name(w, 1, "/x") == IOLENS_E_INVALID_ARG, "sticky error");
    CHECK(strstr(iolens_writer_error(w), "ascend"), "message: %s", iolens_writer_error(w));
    CHECK(iolens_writer_close(w) == IOLENS_E_INVALID_ARG, "close fails");
    CHECK(access(path, F_OK) != 0, "failed log removed");

    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "open");
    iolens_writer_abort(w);
    CHECK(access(path, F_OK) != 0, "aborted log removed");
    CHECK(iolens_writer_open(path, 9, &w) == IOLENS_E_BAD_COMPRESSION, "bad comp type");
    CHECK(iolens_writer_open("/nonexistent-dir/x.darshan", 0, &w) == IOLENS_E_IO, "bad path");

    /* Metadata without room for the final newline is refused. */
    memset(job.metadata, 'a', 1023);
    job.metadata[1023] = 0;
    void *out;
    size_t len;
    CHECK(iolens_job_encode(&job, &out, &len) == IOLENS_E_INVALID_ARG, "metadata too long");
}

/* An exe longer than the string space is cut and marked, as the runtime does. */
static void long_exe(void)
{
    iolens_job job;
    iolens_mount m[3];
    fill_job(&job, m);
    char exe[5000];
    memset(exe, 'x', sizeof exe - 1);
    exe[sizeof exe - 1] = 0;
    job.exe = exe;
    void *out;
    size_t len;
    CHECK(iolens_job_encode(&job, &out, &len) == IOLENS_OK && len == 4096, "long exe: %zu", len);
    if (len == 4096)
        CHECK(memcmp((char *)out + 4095 - 11, "<TRUNCATED>", 11) == 0 && ((char *)out)[4095] == 0,
              "truncation mark");
    free(out);
}

/* DXT records with thread ids: 40-byte segments at the versions that have them
 * (DXT_POSIX 2, DXT_MPIIO 3, log-format 7.10), read back with the same ids. */
static void dxt_thread_ids(int module, uint32_t version)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/writer_threads_%d.darshan", dir, module);
    iolens_writer *w;
    iolens_job job;
    iolens_mount m[3];
    fill_job(&job, m);
    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "open");
    CHECK(iolens_writer_set_job(w, &job) == IOLENS_OK, "job");
    uint64_t id = 7, tid[3] = {140000000000001ULL, 140000000000002ULL, UINT64_MAX};
    int64_t rank = 0, wc = 2, rc = 1, off[3] = {0, 10, 20}, len[3] = {10, 10, 5};
    double st[3] = {0.1, 0.2, 0.3}, en[3] = {0.15, 0.25, 0.35};
    size_t ss[2] = {0, 3};
    iolens_dxt d = {.module = module, .count = 1, .id = &id, .rank = &rank,
                    .write_count = &wc, .read_count = &rc, .seg_start = ss, .nseg = 3,
                    .offset = off, .length = len, .start = st, .end = en, .thread_id = tid};
    CHECK(iolens_writer_put_dxt(w, &d) == IOLENS_OK, "put DXT with thread ids");
    CHECK(iolens_writer_close(w) == IOLENS_OK, "close");
    iolens_log *log;
    iolens_dxt *got = NULL;
    CHECK(iolens_log_open(path, &log, NULL, 0) == IOLENS_OK, "reopen");
    CHECK(iolens_log_header(log)->mod_ver[module] == version, "version %u, want %u",
          iolens_log_header(log)->mod_ver[module], version);
    CHECK(iolens_log_dxt(log, module, &got) == IOLENS_OK && got->thread_id && got->nseg == 3,
          "DXT with thread ids decoded");
    for (size_t k = 0; got && got->thread_id && k < 3; k++)
        CHECK(got->thread_id[k] == tid[k] && got->offset[k] == off[k], "segment %zu", k);
    iolens_dxt_free(got);
    iolens_log_close(log);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    roundtrip(IOLENS_COMP_ZLIB, 0);
    roundtrip(IOLENS_COMP_ZLIB, 1);      /* the runtime's exit-time write */
    roundtrip(IOLENS_COMP_BZIP2, 0);
    roundtrip(IOLENS_COMP_NONE, 0);
    misuse();
    long_exe();
    dxt_thread_ids(IOL_MOD_DXT_POSIX, 2);
    dxt_thread_ids(IOL_MOD_DXT_MPIIO, 3);
    return check_result("test_writer");
}
