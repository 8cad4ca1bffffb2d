/* Every corpus log opens: header, job, names, and every present region
 * decompresses.  argv[1] is ../shared (passed by CMake); skips when absent. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "iolens/log.h"
#include "check.h"

static size_t nlogs, nregions, nnames_total;

static void walk_log(const char *path)
{
    char err[512];
    iolens_log *log = NULL;
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
    printf("%zu logs, %zu regions, %zu names\n", nlogs, nregions, nnames_total);
    return check_result("test_corpus");
}
