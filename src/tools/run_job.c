/* One log per `iolens run` (run_job.h).
 *
 * Finding every process's log: the runtime appends the path of each log it
 * writes to the file named by IOLENS_LOG_REPORT, which every process of the tree
 * inherits; a process that dies without writing (SIGKILL, a crash) leaves its
 * safety copy, which goes to this run's own DARSHAN_MMAP_LOGPATH directory, so
 * the copies found there after the run are exactly this run's.  Both are read
 * only after the whole process tree has ended (run.c waits for it as a child
 * subreaper). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolens/log.h"
#include "merge.h"
#include "options.h"
#include "partial_hint.h"
#include "recover.h"
#include "run_job.h"

typedef struct path_list {
    char **path;
    size_t n, cap;
} path_list;

static int list_add(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 16;
        char **np = realloc(l->path, c * sizeof *np);
        if (!np)
            return -1;
        l->path = np;
        l->cap = c;
    }
    if (!(l->path[l->n] = strdup(p)))
        return -1;
    l->n++;
    return 0;
}

static void list_free(path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->path[i]);
    free(l->path);
}

static void quiet_warn(const char *fmt, ...) { (void)fmt; }

/* A new private directory for the safety copies, in the configured one (or
 * /tmp when that cannot hold it, as the runtime falls back). */
static void make_safety_dir(iol_run_job *job)
{
    iol_config cfg;
    memset(&cfg, 0, sizeof cfg);
    iol_config_load(&cfg, getenv, quiet_warn);
    int off = cfg.no_safety || !cfg.mmap_logpath[0];
    const char *bases[2] = {cfg.mmap_logpath, "/tmp"};
    job->safety_dir[0] = '\0';
    for (int i = 0; i < 2 && !off && !job->safety_dir[0]; i++) {
        snprintf(job->safety_dir, sizeof job->safety_dir, "%.4000s/iolens-run-XXXXXX", bases[i]);
        if (!mkdtemp(job->safety_dir))       /* mode 0700, never an existing name */
            job->safety_dir[0] = '\0';
    }
    iol_config_free(&cfg);
    if (job->safety_dir[0] && setenv("DARSHAN_MMAP_LOGPATH", job->safety_dir, 1) != 0) {
        rmdir(job->safety_dir);
        job->safety_dir[0] = '\0';
    }
}

int iol_run_job_prepare(iol_run_job *job)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(job->report, sizeof job->report, "%.4000s/iolens-run-XXXXXX",
             tmp && *tmp == '/' ? tmp : "/tmp");
    int fd = mkstemp(job->report);           /* mode 0600 */
    if (fd < 0) {
        job->report[0] = '\0';
        return -1;
    }
    close(fd);
    if (setenv("IOLENS_LOG_REPORT", job->report, 1) != 0)
        return -1;
    job->safety_dir[0] = '\0';
    if (!job->mpi)
        make_safety_dir(job);                /* without it, killed processes go unmerged */
    return 0;
}

void iol_run_job_discard(iol_run_job *job)
{
    if (job->report[0])
        unlink(job->report);
    if (job->safety_dir[0])
        rmdir(job->safety_dir);
}

static void read_report(const char *report, path_list *logs)
{
    FILE *f = fopen(report, "r");
    char line[8192];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && access(line, R_OK) == 0)
            list_add(logs, line);
    }
    if (f)
        fclose(f);
}

/* Turn the safety copies left in this run's directory into logs.  *alive: the
 * copies whose processes still run (they will write their own logs); returns
 * how many others could not be recovered (recover said why). */
static int recover_left(const char *dir, path_list *logs, int *alive)
{
    *alive = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    path_list copies = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 8 && strcmp(e->d_name + len - 8, ".darshan") == 0) {
            char p[8192];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            list_add(&copies, p);
        }
    }
    closedir(d);
    int left = 0;
    for (size_t i = 0; i < copies.n; i++) {
        char made[8192];
        if (iol_safety_copy_running(copies.path[i]))
            ++*alive;
        else if (iol_recover_one(copies.path[i], NULL, 0, 0, 1, made, sizeof made) != 0)
            left++;
        else if (made[0])
            list_add(logs, made);
    }
    list_free(&copies);
    return left;
}

/* Of the first n logs, the last of process `root` (its name holds "-<root>_"):
 * the program the command became after any exec (a launcher script's `exec
 * python3`); else the first log. */
static const char *root_log(const path_list *logs, size_t n, pid_t root)
{
    char tag[32];
    const char *found = logs->path[0];
    snprintf(tag, sizeof tag, "-%d_", (int)root);
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(logs->path[i], '/');
        if (strstr(base ? base : logs->path[i], tag))
            found = logs->path[i];
    }
    return found;
}

/* The merge of logs->path[0..logs->n-1] as <dir>/<name_from without its last
 * "_N.darshan">_job.darshan, written under a new private partial name, made
 * read-only and linked to its final name as the runtime writes logs (never
 * replaces a file).  0, or -1 with err set. */
static int write_job_log(const path_list *logs, const char *name_from, char *job, size_t len,
                         char *err, size_t errlen)
{
    const char *first = name_from;
    const char *slash = strrchr(first, '/'), *cut = strrchr(first, '_');
    size_t stem = cut && (!slash || cut > slash) ? (size_t)(cut - first) : strlen(first);
    snprintf(job, len, "%.*s_job.darshan", (int)(stem < 4000 ? stem : 4000), first);
    char tmp[8300];
    snprintf(tmp, sizeof tmp, "%s.iolens_partial", job);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0) {
        snprintf(err, errlen, "%.4000s: %s", tmp, strerror(errno));
        return -1;
    }
    close(fd);
    int rc = iol_merge_job((const char *const *)logs->path, logs->n, tmp, err, errlen);
    if (rc == 0 && (chmod(tmp, S_IRUSR) != 0 || link(tmp, job) != 0)) {
        snprintf(err, errlen, "%.4000s: %s", job, strerror(errno));
        rc = -1;
    }
    unlink(tmp);
    return rc ? -1 : 0;
}

/* Does the log hold any module data?  A log without (a shell, or the fork child
 * of one that only set up a redirection before its exec) adds nothing but a
 * process to the count; unreadable logs count as holding data, so that the
 * merge reports them. */
static int has_records(const char *path)
{
    iolens_log *log = NULL;
    char err[256];
    if (iolens_log_open(path, &log, err, sizeof err) != 0)
        return 1;
    int any = 0;
    for (int m = 0; m < IOL_MAX_MODULES && !any; m++)
        any = iolens_log_header(log)->mod[m].len > 0;
    iolens_log_close(log);
    return any;
}

/* Move the logs without data to the end of the list; returns how many have data
 * (all of them when none has: then every log counts). */
static size_t with_records_first(path_list *logs)
{
    size_t keep = 0;
    for (size_t i = 0; i < logs->n; i++)
        if (has_records(logs->path[i])) {
            char *p = logs->path[i];
            memmove(logs->path + keep + 1, logs->path + keep, (i - keep) * sizeof *logs->path);
            logs->path[keep++] = p;
        }
    return keep ? keep : logs->n;
}

static void say_none(const char *logpath, int mpi)
{
    fprintf(stderr, "iolens: no log was written%s%s (%s)\n", logpath ? " to " : "",
            logpath ? logpath : "",
            mpi ? "did every rank call MPI_Init and reach MPI_Finalize?  The safety copies "
                  "of ranks that were killed are in DARSHAN_MMAP_LOGPATH (default /dev/shm) "
                  "on each node: docs/recovery.md"
                : "is DARSHAN_DISABLE set, or the program statically linked?");
}

/* One line per partial module of the log at path (what `iolens parse` adds after
 * its notice): the user learns it now, not when reading the log later. */
static void say_partial(const char *path)
{
    iolens_log *log = NULL;
    char err[256];
    if (iolens_log_open(path, &log, err, sizeof err) != 0)
        return;
    uint64_t partial = iolens_log_header(log)->partial_flag;
    for (int m = 0; m < IOL_MOD_COUNT_KNOWN && m < 64; m++) {
        const iolens_module_info *mi = iolens_module_info_get(m);
        if ((partial >> m & 1) && mi)
            iol_partial_hint(stderr, "run", path, log, mi);
    }
    iolens_log_close(log);
}

void iol_run_job_finish(iol_run_job *job, pid_t root, const char *logpath)
{
    path_list logs = {0};
    read_report(job->report, &logs);
    int alive = 0, left = job->safety_dir[0] ? recover_left(job->safety_dir, &logs, &alive) : 0;
    if (alive)
        fprintf(stderr, "iolens run: %d process%s started by the program %s still running "
                        "after the wait (IOLENS_RUN_WAIT seconds, default 10); %s its own log "
                        "when it ends, outside the job log\n", alive, alive == 1 ? "" : "es",
                alive == 1 ? "is" : "are", alive == 1 ? "it writes" : "each writes");
    if (left)
        fprintf(stderr, "iolens run: %d safety cop%s could not be recovered; left in %s\n",
                left, left == 1 ? "y" : "ies", job->safety_dir);
    iol_run_job_discard(job);
    char path[8192], err[4600] = "";
    size_t all = logs.n, empty = all - with_records_first(&logs);
    int job_log_made = 1;            /* the logs without data may go */
    logs.n -= empty;                 /* the job: the processes that recorded anything */
    if (logs.n == 0) {
        say_none(logpath, job->mpi);
    } else if (logs.n == 1) {
        fprintf(stderr, "iolens: log written to %s\n", logs.path[0]);
    } else if (write_job_log(&logs, root_log(&logs, all, root), path, sizeof path, err,
                             sizeof err) != 0) {
        fprintf(stderr, "iolens run: could not merge the logs of the program's %zu processes "
                        "(%s); each is kept:\n", logs.n, err);
        for (size_t i = 0; i < logs.n; i++)
            fprintf(stderr, "iolens: log written to %s\n", logs.path[i]);
        job_log_made = 0;
    } else {
        fprintf(stderr, "iolens: log written to %s\n", path);
        fprintf(stderr, "iolens: one log of the program's %zu processes", logs.n);
        if (empty)
            fprintf(stderr, " (%zu more recorded nothing)", empty);
        fprintf(stderr, "%s\n", job->keep_process_logs ? "; each process's log is kept:" : "");
        for (size_t i = 0; i < logs.n; i++)
            if (job->keep_process_logs)
                fprintf(stderr, "iolens: process log %s\n", logs.path[i]);
            else
                unlink(logs.path[i]);
    }
    for (size_t i = logs.n; i < all; i++)      /* the logs without data */
        if (job->keep_process_logs || !job_log_made)
            fprintf(stderr, "iolens: process log %s (nothing recorded)\n", logs.path[i]);
        else
            unlink(logs.path[i]);
    /* Last, what the log misses and the setting that avoids it. */
    for (size_t i = 0; i < logs.n && (logs.n == 1 || !job_log_made); i++)
        say_partial(logs.path[i]);
    if (logs.n > 1 && job_log_made)
        say_partial(path);
    logs.n = all;
    list_free(&logs);
}
