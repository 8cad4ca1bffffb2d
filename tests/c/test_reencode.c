/* Layout round trip on the corpus (spec 13.2): decode every module region stored
 * at the version we write, re-encode it with the writer's encoders, and compare
 * the payload bytes (heatmap: the decoded values, since stored heatmaps carry
 * pointer garbage).  Also re-reads job, mounts and names from the new log.
 * argv[1] = ../shared, argv[2] = scratch directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iolens/log.h"
#include "check.h"

static const char *scratch = ".";
static size_t nlogs, nregions;

/* Encode module m of `in` into w; returns 1 if it was comparable. */
static int reencode(iolens_log *in, iolens_writer *w, int m)
{
    const iolens_module_info *mi = iolens_module_info_get(m);
    const iolens_header *h = iolens_log_header(in);
    if (!mi || h->mod_ver[m] != mi->version || mi->kind == IOLENS_KIND_OPAQUE)
        return 0;
    int rc = IOLENS_E_UNKNOWN_MODULE;
    if (mi->kind == IOLENS_KIND_COUNTERS || mi->kind == IOLENS_KIND_MDHIM) {
        iolens_records *r;
        if ((rc = iolens_log_records(in, m, &r)) == IOLENS_OK) {
            rc = iolens_writer_put_records(w, r);
            iolens_records_free(r);
        }
    } else if (mi->kind == IOLENS_KIND_DXT) {
        iolens_dxt *d;
        if ((rc = iolens_log_dxt(in, m, &d)) == IOLENS_OK) {
            rc = iolens_writer_put_dxt(w, d);
            iolens_dxt_free(d);
        }
    } else if (mi->kind == IOLENS_KIND_HEATMAP) {
        iolens_heatmap *hm;
        if ((rc = iolens_log_heatmap(in, &hm)) == IOLENS_OK) {
            rc = iolens_writer_put_heatmap(w, hm);
            iolens_heatmap_free(hm);
        }
    } else if (mi->kind == IOLENS_KIND_LUSTRE) {
        iolens_lustre *l;
        if ((rc = iolens_log_lustre(in, &l)) == IOLENS_OK) {
            rc = iolens_writer_put_lustre(w, l);
            iolens_lustre_free(l);
        }
    }
    CHECK(rc == IOLENS_OK, "module %s: %s / %s", mi->name, iolens_log_error(in), iolens_writer_error(w));
    return rc == IOLENS_OK;
}

static void compare_heatmap(iolens_log *a, iolens_log *b, const char *path)
{
    iolens_heatmap *x, *y;
    if (iolens_log_heatmap(a, &x) || iolens_log_heatmap(b, &y)) {
        CHECK(0, "%s: heatmap decode", path);
        return;
    }
    int same = x->count == y->count && x->bin_start[x->count] == y->bin_start[y->count];
    size_t nb = same ? x->bin_start[x->count] : 0;
    same = same && memcmp(x->id, y->id, x->count * 8) == 0 &&
           memcmp(x->write_bins, y->write_bins, nb * 8) == 0 &&
           memcmp(x->read_bins, y->read_bins, nb * 8) == 0;
    CHECK(same, "%s: heatmap differs after re-encoding", path);
    iolens_heatmap_free(x);
    iolens_heatmap_free(y);
}

/* A log re-encoded on a host of the other byte order (s390x under qemu-user,
 * scripts/cross-test.sh) is written in that host's order, so its payloads differ
 * byte for byte by design: the decoded records must agree instead.  Modules that
 * iolens_log_records refuses alike in both (DXT, LUSTRE) are covered there by
 * `iolens dxt` / `iolens parse` giving the same text as on x86_64. */
static void compare_swapped(iolens_log *a, iolens_log *b, int m, const char *path)
{
    iolens_records *x = NULL, *y = NULL;
    int ra = iolens_log_records(a, m, &x), rb = iolens_log_records(b, m, &y);
    CHECK(ra == rb, "%s: module %d records decode (%d vs %d)", path, m, ra, rb);
    if (ra || rb) {                  /* not a counter module (DXT, LUSTRE), or failed */
        if (!ra)
            iolens_records_free(x);
        if (!rb)
            iolens_records_free(y);
        return;
    }
    int same = x->count == y->count && x->n_int == y->n_int && x->n_flt == y->n_flt &&
               memcmp(x->id, y->id, x->count * 8) == 0 &&
               memcmp(x->rank, y->rank, x->count * 8) == 0 &&
               memcmp(x->ints, y->ints, x->count * x->n_int * 8) == 0 &&
               memcmp(x->flts, y->flts, x->count * x->n_flt * 8) == 0;
    CHECK(same, "%s: module %d records differ after re-encoding", path, m);
    iolens_records_free(x);
    iolens_records_free(y);
}

static void compare(iolens_log *a, iolens_log *b, const int *done, const char *path)
{
    const iolens_job *ja = iolens_log_job(a), *jb = iolens_log_job(b);
    CHECK(ja->uid == jb->uid && ja->end_nsec == jb->end_nsec && ja->nmounts == jb->nmounts &&
          strcmp(ja->exe, jb->exe) == 0 && strcmp(ja->metadata, jb->metadata) == 0,
          "%s: job differs", path);
    CHECK(iolens_log_name_count(a) == iolens_log_name_count(b), "%s: name count", path);
    for (size_t i = 0; i < iolens_log_name_count(a); i++) {
        uint64_t id;
        const char *n;
        iolens_log_name_at(a, i, &id, &n);
        const char *m = iolens_log_name(b, id);
        CHECK(m && strcmp(m, n) == 0, "%s: name of %llu", path, (unsigned long long)id);
    }
    for (int m = 0; m < IOL_MAX_MODULES; m++) {
        if (!done[m])
            continue;
        nregions++;
        if (m == IOL_MOD_HEATMAP) {
            compare_heatmap(a, b, path);
            continue;
        }
        if (iolens_log_header(a)->big_endian != iolens_log_header(b)->big_endian) {
            compare_swapped(a, b, m, path);
            continue;
        }
        const void *pa, *pb;
        size_t la, lb;
        int ok = iolens_log_region(a, m, &pa, &la) == 0 && iolens_log_region(b, m, &pb, &lb) == 0;
        CHECK(ok && la == lb && memcmp(pa, pb, la) == 0, "%s: module %d payload differs (%zu vs %zu bytes)",
              path, m, la, ok ? lb : 0);
    }
}

static void one_log(const char *path)
{
    char err[512], out[4096];
    iolens_log *in, *back;
    if (iolens_log_open(path, &in, err, sizeof err)) {
        CHECK(0, "%s: %s", path, err);
        return;
    }
    if (iolens_log_header(in)->big_endian) {     /* encoders write little-endian */
        iolens_log_close(in);
        return;
    }
    snprintf(out, sizeof out, "%s/reencode-%d.darshan", scratch, (int)getpid());
    iolens_writer *w;
    int done[IOL_MAX_MODULES] = { 0 };
    CHECK(iolens_writer_open(out, IOLENS_COMP_ZLIB, &w) == IOLENS_OK, "writer open");
    iolens_writer_set_job(w, iolens_log_job(in));
    for (size_t i = 0; i < iolens_log_name_count(in); i++) {
        uint64_t id;
        const char *n;
        iolens_log_name_at(in, i, &id, &n);
        iolens_writer_add_name(w, id, n);
    }
    for (int m = 0; m < IOL_MAX_MODULES; m++)
        if (iolens_log_header(in)->mod[m].len)
            done[m] = reencode(in, w, m);
    int rc = iolens_writer_close_err(w, err, sizeof err);
    CHECK(rc == IOLENS_OK, "%s: writer: %s", path, err);
    if (rc == IOLENS_OK && iolens_log_open(out, &back, err, sizeof err) == IOLENS_OK) {
        compare(in, back, done, path);
        iolens_log_close(back);
        nlogs++;
    }
    unlink(out);
    iolens_log_close(in);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *p;
        struct stat st;
        if (e->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            continue;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            walk(p);
        else if (strstr(e->d_name, ".darshan"))
            one_log(p);
        free(p);
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/logs", argc > 1 ? argv[1] : "../shared");
    if (argc > 2)
        scratch = argv[2];
    struct stat st;
    if (stat(dir, &st) != 0) {
        printf("SKIP: corpus directory %s is absent\n", dir);
        return CHECK_SKIP;
    }
    walk(dir);
    printf("%zu logs re-encoded, %zu module regions compared\n", nlogs, nregions);
    CHECK(nlogs > 0 && nregions > 0, "nothing compared");
    return check_result("test_reencode");
}
