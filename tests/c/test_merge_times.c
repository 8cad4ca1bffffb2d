/* MDHIM records through `iolens merge` (src/tools/merge_times.c, compiled from the
 * tools' source): each input's timestamps moved by its shift, a 0 ("never") kept,
 * every other counter, rank and server histogram as the input wrote it.  MDHIM is
 * the one counter-like module merge used to copy without decoding, so its times
 * were never moved; no corpus log has it and the Python writer refuses it, so the
 * logs are written here with the library's writer.  Checked on merge_mdhim's own
 * output and on what `iolens merge` makes of the same inputs.
 * argv[1] is a scratch directory, argv[2] the iolens tool (optional). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "iolens/counters.h"
#include "iolens/log.h"
#include "merge_times.h"

static const char *dir = ".";

static void start_log(iolens_writer **w, const char *path, int64_t start_sec, int64_t start_nsec)
{
    iolens_job j;
    memset(&j, 0, sizeof j);
    j.start_sec = start_sec;
    j.start_nsec = start_nsec;
    j.end_sec = start_sec + 10;
    j.nprocs = 1;
    j.jobid = 7;
    CHECK(iolens_writer_open(path, IOLENS_COMP_ZLIB, w) == IOLENS_OK, "open %s", path);
    CHECK(iolens_writer_set_job(*w, &j) == IOLENS_OK, "job");
}

/* A log started start_nsec after second 1000 with one MDHIM record of `servers`
 * servers (histogram 10, 20, ...), rank `rank`. */
static void write_input(const char *path, int64_t start_nsec, int64_t rank, int64_t servers,
                        double put_ts)
{
    iolens_writer *w;
    start_log(&w, path, 1000, start_nsec);
    uint64_t id = 42;
    int64_t ints[MDHIM_NUM_INDICES] = {4, 5, 6, 7, servers}, tail[4] = {10, 20, 30, 40};
    double flts[MDHIM_F_NUM_INDICES] = {put_ts, 0, 0.125, 0.25};   /* never got: 0 */
    size_t ts[2] = {0, (size_t)servers};
    iolens_records r = {.module = IOL_MOD_MDHIM, .count = 1, .n_int = MDHIM_NUM_INDICES,
                        .n_flt = MDHIM_F_NUM_INDICES, .id = &id, .rank = &rank, .ints = ints,
                        .flts = flts, .tail_start = ts, .tail = tail};
    CHECK(iolens_writer_put_records(w, &r) == IOLENS_OK, "put MDHIM");
    CHECK(iolens_writer_close(w) == IOLENS_OK, "close %s", path);
}

/* The merge of the two inputs: the second's times + 0.25 s, the rest as written. */
static void check_merged(const char *out)
{
    char err[256];
    iolens_log *m = NULL;
    iolens_records *r = NULL;
    CHECK(iolens_log_open(out, &m, err, sizeof err) == IOLENS_OK, "%s: %s", out, err);
    CHECK(m && iolens_log_records(m, IOL_MOD_MDHIM, &r) == IOLENS_OK && r, "decode merged");
    if (r && r->count == 2) {
        const double *f0 = r->flts, *f1 = r->flts + r->n_flt;
        CHECK(f0[MDHIM_F_PUT_TIMESTAMP] == 0.5, "first input's time kept: %g", f0[0]);
        CHECK(f1[MDHIM_F_PUT_TIMESTAMP] == 0.75 + 0.25, "second moved: %g", f1[0]);
        CHECK(f0[MDHIM_F_GET_TIMESTAMP] == 0 && f1[MDHIM_F_GET_TIMESTAMP] == 0, "never stays 0");
        CHECK(f1[MDHIM_F_PUT_MAX_DURATION] == 0.125, "a duration is not moved");
        CHECK(r->rank[0] == 0 && r->rank[1] == 3, "stored ranks kept");
        CHECK(r->ints[MDHIM_SERVERS] == 2 && r->ints[r->n_int + MDHIM_SERVERS] == 4, "servers");
        CHECK(r->tail_start[1] == 2 && r->tail_start[2] == 6, "histogram lengths");
        CHECK(r->tail[1] == 20 && r->tail[2] == 10 && r->tail[5] == 40, "histograms kept");
    } else {
        CHECK(0, "merged MDHIM records: %zu, not 2", r ? r->count : 0);
    }
    iolens_records_free(r);
    iolens_log_close(m);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    char in0[4096], in1[4096], out[4096];
    snprintf(in0, sizeof in0, "%s/mdhim_in0.darshan", dir);
    snprintf(in1, sizeof in1, "%s/mdhim_in1.darshan", dir);
    snprintf(out, sizeof out, "%s/mdhim_merged.darshan", dir);
    remove(out);
    write_input(in0, 0, 0, 2, 0.5);
    write_input(in1, 250000000, 3, 4, 0.75);      /* started 0.25 s later */
    iolens_log *logs[2] = {NULL, NULL};
    char err[256];
    CHECK(iolens_log_open(in0, &logs[0], err, sizeof err) == IOLENS_OK, "%s", err);
    CHECK(iolens_log_open(in1, &logs[1], err, sizeof err) == IOLENS_OK, "%s", err);
    if (!logs[0] || !logs[1])
        return check_result("test_merge_times");
    double shift[2] = {0, 0.25};
    size_t bad = 99;
    iolens_writer *w;
    start_log(&w, out, 1000, 0);
    CHECK(merge_mdhim(w, logs, shift, 2, &bad) == IOLENS_OK, "merge_mdhim");
    CHECK(bad == 99, "no input is bad");
    CHECK(iolens_writer_close(w) == IOLENS_OK, "close merged");
    check_merged(out);
    if (argc > 2) {
        char cmd[3 * 4096 + 64];
        snprintf(out, sizeof out, "%s/mdhim_tool.darshan", dir);
        remove(out);
        snprintf(cmd, sizeof cmd, "'%s' merge -o '%s' '%s' '%s'", argv[2], out, in0, in1);
        CHECK(system(cmd) == 0, "%s", cmd);
        check_merged(out);
    }
    iolens_log_close(logs[0]);
    iolens_log_close(logs[1]);
    return check_result("test_merge_times");
}
