/* Every corpus log opens: header, job, names, and every present region
 * decompresses; the streaming iterators give exactly the records and segments of
 * the whole decoders, and a lazy open the same names.  argv[1] is ../shared
 * (passed by CMake); skips when absent. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iolens/log.h"
#include "check.h"

static size_t nlogs, nregions, nnames_total, nstreamed;
static char *first_log;          /* a corpus log for deleted_after_open */

/* Descriptors this process has open: an open log must hold none (a merge holds
 * thousands of logs), and an iterator only while it exists. */
static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* iolens_record_iter against iolens_log_records on module m. */
static void stream_records(const char *path, iolens_log *log, int m)
{
    iolens_records *r;
    iolens_record_iter *it;
    iolens_record x;
    int rc = iolens_log_records(log, m, &r);
    CHECK(rc == IOLENS_OK, "%s: module %d records: %s", path, m, iolens_log_error(log));
    if (rc)
        return;
    rc = iolens_record_iter_open(log, m, &it);
    CHECK(rc == IOLENS_OK, "%s: module %d iterator: %s", path, m, iolens_log_error(log));
    size_t i = 0, bad = 0;
    while (rc == IOLENS_OK && (rc = iolens_record_iter_next(it, &x)) == 1) {
        bad += i >= r->count || x.id != r->id[i] || x.rank != r->rank[i] ||
               memcmp(x.ints, r->ints + i * r->n_int, r->n_int * 8) ||
               memcmp(x.flts, r->flts + i * r->n_flt, r->n_flt * 8) ||
               (r->file_rec_id && x.file_rec_id != r->file_rec_id[i]) ||
               (r->aux && memcmp(x.aux, r->aux + i * r->aux_size, r->aux_size)) ||
               (r->tail_start && x.ntail != r->tail_start[i + 1] - r->tail_start[i]);
        i++;
        rc = IOLENS_OK;
    }
    CHECK(rc == 0 && i == r->count && !bad, "%s: module %d: %zu streamed records (%zu differ), "
          "%zu decoded, end %d", path, m, i, bad, r->count, rc);
    nstreamed += i;
    iolens_record_iter_close(it);
    iolens_records_free(r);
}

/* iolens_dxt_iter against iolens_log_dxt on module m. */
static void stream_dxt(const char *path, iolens_log *log, int m)
{
    iolens_dxt *d;
    iolens_dxt_iter *it;
    iolens_dxt_rec x;
    iolens_dxt_seg seg[5];
    int rc = iolens_log_dxt(log, m, &d);
    CHECK(rc == IOLENS_OK, "%s: module %d DXT: %s", path, m, iolens_log_error(log));
    if (rc)
        return;
    rc = iolens_dxt_iter_open(log, m, &it);
    CHECK(rc == IOLENS_OK, "%s: module %d DXT iterator: %s", path, m, iolens_log_error(log));
    size_t i = 0, s = 0, bad = 0, got;
    while (rc == IOLENS_OK && (rc = iolens_dxt_iter_next(it, &x)) == 1) {
        bad += i >= d->count || x.id != d->id[i] || x.rank != d->rank[i] ||
               x.write_count != d->write_count[i] || strcmp(x.hostname, d->hostname[i]) ||
               x.has_thread_id != (d->thread_id != NULL);
        while ((rc = iolens_dxt_iter_segments(it, seg, 5, &got)) == IOLENS_OK && got)
            for (size_t k = 0; k < got; k++, s++)
                bad += s >= d->nseg || seg[k].offset != d->offset[s] ||
                       seg[k].length != d->length[s] || seg[k].start != d->start[s] ||
                       seg[k].end != d->end[s] ||
                       (d->thread_id && seg[k].thread_id != d->thread_id[s]);
        i++;
    }
    CHECK(rc == 0 && i == d->count && s == d->nseg && !bad,
          "%s: module %d: %zu records, %zu segments streamed (%zu differ), end %d", path, m,
          i, s, bad, rc);
    nstreamed += s;
    iolens_dxt_iter_close(it);
    iolens_dxt_free(d);
}

/* A lazy open has the same names as a full one. */
static void lazy_names(const char *path, iolens_log *full)
{
    iolens_log *log;
    char err[512];
    int rc = iolens_log_open_ex(path, IOLENS_OPEN_LAZY_NAMES, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "%s: lazy open: %s", path, err);
    if (rc)
        return;
    size_t n = iolens_log_name_count(full);
    CHECK(iolens_log_name_count(log) == n, "%s: lazy open has %zu names, not %zu", path,
          iolens_log_name_count(log), n);
    for (size_t i = 0; i < n; i++) {
        uint64_t a, b;
        const char *na, *nb;
        iolens_log_name_at(full, i, &a, &na);
        CHECK(iolens_log_name_at(log, i, &b, &nb) == IOLENS_OK && a == b && !strcmp(na, nb),
              "%s: lazy name %zu differs", path, i);
    }
    iolens_log_close(log);
}

static void walk_log(const char *path)
{
    char err[512];
    iolens_log *log = NULL;
    int fds = open_fds();
    int rc = iolens_log_open(path, &log, err, sizeof err);
    CHECK(rc == IOLENS_OK, "%s: open failed: %s (%s)", path, iolens_strerror(rc), err);
    if (rc)
        return;
    nlogs++;
    const iolens_header *h = iolens_log_header(log);
    const iolens_job *j = iolens_log_job(log);
    CHECK(h->major == 3, "%s: major %d", path, h->major);
    CHECK(h->header_size == (h->minor >= 41 ? 1328u : 360u), "%s: header size %zu", path, h->header_size);
    CHECK(j->nprocs >= 1, "%s: nprocs %lld", path, (long long)j->nprocs);
    CHECK(j->end_sec >= j->start_sec, "%s: end before start", path);
    for (size_t i = 1; i < j->nmounts; i++)
        CHECK(strlen(j->mounts[i - 1].path) >= strlen(j->mounts[i].path),
              "%s: mount %zu out of order", path, i);
    size_t n = iolens_log_name_count(log);
    nnames_total += n;
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        CHECK(iolens_log_name_at(log, i, &id, &name) == IOLENS_OK, "%s: name_at %zu", path, i);
        CHECK(iolens_log_name(log, id) == name, "%s: lookup of name %zu differs", path, i);
    }
    for (int m = 0; m < IOL_MAX_MODULES; m++) {
        const void *p;
        size_t len;
        rc = iolens_log_region(log, m, &p, &len);
        if (h->mod[m].len == 0) {
            CHECK(rc == IOLENS_E_NOT_PRESENT, "%s: absent module %d gives %d", path, m, rc);
            continue;
        }
        CHECK(rc == IOLENS_OK, "%s: module %d region: %s", path, m, iolens_log_error(log));
        if (rc == IOLENS_OK) {
            nregions++;
            CHECK(len > 0, "%s: module %d decompresses to nothing", path, m);
        }
        const iolens_module_info *mi = iolens_module_info_get(m);
        if (rc == IOLENS_OK && mi && (mi->kind == IOLENS_KIND_COUNTERS ||
                                      mi->kind == IOLENS_KIND_MDHIM))
            stream_records(path, log, m);
        else if (rc == IOLENS_OK && mi && mi->kind == IOLENS_KIND_DXT)
            stream_dxt(path, log, m);
    }
    lazy_names(path, log);
    int any = 0;
    for (int m = 0; m < IOL_MAX_MODULES; m++)
        any |= h->mod[m].len > 0;
    if (!first_log && any)
        first_log = strdup(path);
    CHECK(open_fds() == fds, "%s: an open log holds %d descriptors", path, open_fds() - fds);
    iolens_log_close(log);
}

/* A log deleted after it was opened: the next read that needs the file fails with
 * IOLENS_E_IO and says why (the log holds no descriptor to read it through). */
static void deleted_after_open(void)
{
    CHECK(first_log != NULL, "no corpus log with a module region");
    char tmp[] = "/tmp/iolens-test-corpus-XXXXXX";
    int fd = mkstemp(tmp);
    FILE *in = first_log ? fopen(first_log, "rb") : NULL;
    if (fd < 0 || !in) {
        if (in)
            fclose(in);
        if (fd >= 0)
            close(fd);
        return;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK(write(fd, buf, n) == (ssize_t)n, "copy of %s", first_log);
    fclose(in);
    close(fd);
    iolens_log *log;
    char err[256];
    int rc = iolens_log_open(tmp, &log, err, sizeof err);
    unlink(tmp);
    CHECK(rc == IOLENS_OK, "%s: %s", tmp, err);
    if (rc)
        return;
    const iolens_header *h = iolens_log_header(log);
    for (int m = 0; m < IOL_MAX_MODULES; m++)
        if (h->mod[m].len) {
            const void *p;
            size_t len;
            rc = iolens_log_region(log, m, &p, &len);
            CHECK(rc == IOLENS_E_IO && strstr(iolens_log_error(log), "moved or deleted"),
                  "region of a deleted log: %d %s", rc, iolens_log_error(log));
            break;
        }
    iolens_log_close(log);
}

static void walk_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            continue;
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            walk_dir(p);
        else if (strstr(e->d_name, ".darshan"))
            walk_log(p);
        free(p);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/logs", argc > 1 ? argv[1] : "../shared");
    struct stat st;
    if (stat(dir, &st) != 0) {
        printf("SKIP: corpus directory %s is absent\n", dir);
        return CHECK_SKIP;
    }
    walk_dir(dir);
    CHECK(nlogs > 0, "no corpus log found under %s", dir);
    CHECK(nstreamed > 0, "no record was streamed");
    deleted_after_open();
    free(first_log);
    printf("%zu logs, %zu regions, %zu names, %zu records and segments streamed\n", nlogs,
           nregions, nnames_total, nstreamed);
    return check_result("test_corpus");
}
