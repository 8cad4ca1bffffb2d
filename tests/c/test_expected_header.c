/* Header, job record, mount table and region sizes of every corpus log against
 * upstream darshan-parser's output (../shared/corpus/expected/<log>.parser.txt.xz,
 * read with the xz tool).  The expected lines are re-derived from the library's
 * values and compared as text; nothing from the corpus is stored here.
 * argv[1] = ../shared.  Skips when the corpus or the xz tool is absent. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "iolens/log.h"
#include "check.h"

static const char *shared;
static size_t nlogs, nlines;

/* The lines of the expected file that this library alone determines. */
static int relevant(const char *l)
{
    static const char *const keys[] = { "# darshan log version:", "# exe:", "# uid:", "# jobid:",
                                        "# start_time:", "# end_time:", "# nprocs:", "# run time:",
                                        "# job data:", "# record table:", "# mount entry:" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strncmp(l, keys[i], strlen(keys[i])) == 0)
            return 1;
    return strncmp(l, "# ", 2) == 0 && strstr(l, " module: ") && strstr(l, "(compressed), ver=");
}

/* Our rendering of the same lines, in upstream's order. */
static char *render(iolens_log *log, size_t *len)
{
    char *buf;
    FILE *f = open_memstream(&buf, len);
    const iolens_header *h = iolens_log_header(log);
    const iolens_job *j = iolens_log_job(log);
    fprintf(f, "# darshan log version: %s\n# exe: %s\n# uid: %" PRId64 "\n# jobid: %" PRId64 "\n",
            h->version, j->exe, j->uid, j->jobid);
    fprintf(f, "# start_time: %" PRId64 "\n# end_time: %" PRId64 "\n# nprocs: %" PRId64 "\n",
            j->start_sec, j->end_sec, j->nprocs);
    fprintf(f, "# run time: %.4lf\n", iolens_job_runtime(j, h->minor));
    fprintf(f, "# job data: %" PRIu64 " bytes (compressed)\n", h->job.len);
    fprintf(f, "# record table: %" PRIu64 " bytes (compressed)\n", h->names.len);
    for (int i = 0; i < IOL_MAX_MODULES; i++) {
        const iolens_module_info *mi = iolens_module_info_get(i);
        if (mi && (h->mod[i].len || (h->partial_flag >> i & 1)))
            fprintf(f, "# %s module: %" PRIu64 " bytes (compressed), ver=%u\n", mi->name,
                    h->mod[i].len, h->mod_ver[i]);
    }
    for (size_t i = 0; i < j->nmounts; i++)
        fprintf(f, "# mount entry:\t%s\t%s\n", j->mounts[i].path, j->mounts[i].fstype);
    fclose(f);
    return buf;
}

static int one_log(const char *path, const char *rel)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s/corpus/expected/%.*s.parser.txt.xz", shared,
             (int)(strlen(rel) - strlen(".darshan")), rel);
    struct stat st;
    if (stat(cmd, &st) != 0)
        return 0;
    char *exp = NULL;
    size_t elen = 0;
    FILE *out = open_memstream(&exp, &elen);
    char *q = strdup(cmd);
    snprintf(cmd, sizeof cmd, "xz -dc '%s'", q);
    free(q);
    FILE *in = popen(cmd, "r");
    char *line = NULL;
    size_t cap = 0;
    while (in && getline(&line, &cap, in) > 0)
        if (relevant(line)) {
            fputs(line, out);
            nlines++;
        }
    int xz_status = in ? pclose(in) : -1;
    free(line);
    fclose(out);
    if (xz_status != 0) {
        free(exp);
        return -1;
    }
    char err[512];
    iolens_log *log;
    if (iolens_log_open(path, &log, err, sizeof err) == IOLENS_OK) {
        size_t glen;
        char *got = render(log, &glen);
        CHECK(glen == elen && memcmp(got, exp, elen) == 0, "%s: header lines differ\n--- upstream\n%s--- ours\n%s",
              rel, exp, got);
        free(got);
        iolens_log_close(log);
        nlogs++;
    } else {
        CHECK(0, "%s: %s", rel, err);
    }
    free(exp);
    return 0;
}

static int walk(const char *dir, const char *rel)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    while (d && !rc && (e = readdir(d))) {
        char *p, *r;
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0 ||
            asprintf(&r, "%s%s%s", rel, *rel ? "/" : "", e->d_name) < 0)
            return -1;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rc = walk(p, r);
        else if (strstr(e->d_name, ".darshan"))
            rc = one_log(p, r);
        free(p);
        free(r);
    }
    if (d)
        closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    shared = argc > 1 ? argv[1] : "../shared";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/logs", shared);
    struct stat st;
    if (stat(dir, &st) != 0) {
        printf("SKIP: corpus directory %s is absent\n", dir);
        return CHECK_SKIP;
    }
    if (system("xz --version >/dev/null 2>&1") != 0) {
        printf("SKIP: the xz tool is not installed (needed to read the expected outputs)\n");
        return CHECK_SKIP;
    }
    if (walk(dir, "") < 0)
        CHECK(0, "xz failed on an expected-output file");
    printf("%zu logs, %zu upstream lines compared\n", nlogs, nlines);
    CHECK(nlogs > 0, "no log with an expected output");
    return check_result("test_expected_header");
}
