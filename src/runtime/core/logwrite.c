/* Writing the one log of this process through the format library's writer
 * (runtime spec 3.1 and 3.7, non-MPI path).  The file is written under a
 * temporary name, made read-only (0400) and then linked to its final name, so a
 * final name never holds a half-written log and an existing file is never
 * replaced.  If the chosen directory fails (missing, unwritable, full), the log
 * goes to the default directory, then to $TMPDIR or /tmp, with one message. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitwrite.h"      /* iol_mpi_mode */
#include "fsize.h"
#include "iolens/log.h"
#include "safety.h"

#ifndef IOLENS_VERSION
#define IOLENS_VERSION "0.0.0"
#endif

/* The format's metadata field holds 1023 characters and a NUL (log-format 4.3):
 * upstream's keys first, then module notes, then the platform facts, of which
 * the least useful are left out when they do not all fit. */
#define METADATA_ROOM 1024
#define TOOLS_ROOM 24
/* and, in a process that recorded one of our extension modules, the iolens_ext line
 * the log writer adds for them (iolens_log_place_extensions; one module's entry) */
#define EXTENSION_ROOM 48

static size_t extension_room(void)
{
    for (int id = IOL_MOD_FIRST_EXTENSION; id < IOL_MAX_MODULES; id++)
        if (iol_mods[id].d && iol_mods[id].state == 1 && iol_mods[id].count)
            return EXTENSION_ROOM;
    return 0;
}

static void fill_metadata(char *md, size_t len)
{
    len = len < METADATA_ROOM ? len : METADATA_ROOM;
    size_t n = (size_t)snprintf(md, len, "lib_ver=iolens-%s\n", IOLENS_VERSION);
    if (iol_cfg.loghints[0] && n < len)
        n += (size_t)snprintf(md + n, len - n, "h=%s\n", iol_cfg.loghints);
    if (iol_fork_parent && n < len)
        n += (size_t)snprintf(md + n, len - n, "fork_parent=%d\n", (int)iol_fork_parent);
    if (iol_cfg.launcher_var && !iol_mpi_mode && n < len)   /* whose rank the records carry */
        n += (size_t)snprintf(md + n, len - n, "rank_from=%s\n", iol_cfg.launcher_var);
    unsigned long failed = iol_failures(IOL_FAIL_MEMORY);
    char v[24];
    if (failed && snprintf(v, sizeof v, "%lu", failed) > 0)
        iol_note("memory_failures", v);    /* why a partial bit may be set (issue #34) */
    if (n < len)
        n += iol_notes_append(md + n, len - n);
    if (n >= len) {                 /* a hints string too long: keep whole lines only */
        char *nl = memrchr(md, '\n', len - 1);
        md[nl ? (size_t)(nl - md) + 1 : 0] = '\0';
        return;
    }
    iol_mountfacts_note();
    /* TOOLS_ROOM characters stay free for the pairs the tools add to a log
     * ("merged=N", "recovered=1") */
    size_t keep = TOOLS_ROOM + extension_room();
    if (n + keep < len)
        iol_platform_append(md + n, len - n - keep);
}

static int64_t job_id(void)
{
    return iol_cfg.jobid >= 0 ? iol_cfg.jobid : iol_job_pid;
}

static void fill_job(iolens_job *job, iolens_mount *mounts, char *exe_mounts, size_t emlen)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    memset(job, 0, sizeof *job);
    job->uid = getuid();
    job->start_sec = iol_start_abs.tv_sec;
    job->start_nsec = iol_start_abs.tv_nsec;
    job->end_sec = now.tv_sec;
    job->end_nsec = now.tv_nsec;
    job->nprocs = iol_nprocs;
    job->jobid = job_id();
    fill_metadata(job->metadata, sizeof job->metadata);
    job->exe = (char *)iol_exe_string();
    job->nmounts = iol_mount_count();
    size_t n = (size_t)snprintf(exe_mounts, emlen, "%s", job->exe);
    for (size_t i = 0; i < job->nmounts; i++) {
        const char *p, *t;
        iol_mount_at(i, &p, &t);
        mounts[i].path = (char *)p;
        mounts[i].fstype = (char *)t;
        if (n < emlen)
            n += (size_t)snprintf(exe_mounts + n, emlen - n, "\n%s\t%s", t, p);
    }
    job->mounts = mounts;
    job->exe_mounts = exe_mounts;
}

/* Payloads are built once (output callbacks compact records in place), then
 * written; a retry in another directory reuses them. */
typedef struct built {
    iolens_job job;
    iolens_mount mounts[64];
    char exe_mounts[4096];
    void *payload[IOL_MAX_MODULES];
    size_t len[IOL_MAX_MODULES];
} built;

static void build(built *b)
{
    fill_job(&b->job, b->mounts, b->exe_mounts, sizeof b->exe_mounts);
    for (int id = 0; id < IOL_MAX_MODULES; id++) {
        iol_module *m = &iol_mods[id];
        b->payload[id] = NULL;
        b->len[id] = 0;
        if (!m->d || m->state != 1 || m->count == 0)
            continue;
        b->len[id] = iol_mod_payload(m, &b->payload[id]);
    }
}

int iol_log_level;

/* Seconds spent in each step of the last write (DARSHAN_INTERNAL_TIMING). */
static struct {
    double open, job, names, header, mod[IOL_MAX_MODULES];
} timing;

static int write_file(const built *b, const char *path)
{
    iolens_writer *w = NULL;
    double t = iol_wtime();
    int rc = iolens_writer_open(path, IOLENS_COMP_ZLIB, &w);
    timing.open = iol_wtime() - t;
    if (rc)
        return rc;
    iolens_writer_set_level(w, iol_log_level);
    t = iol_wtime();
    rc = iolens_writer_set_job(w, &b->job);
    timing.job = iol_wtime() - t;
    t = iol_wtime();
    for (size_t i = 0; !rc && i < iol_names_count(); i++) {
        uint64_t id;
        const char *name;
        iol_name_at(i, &id, &name);
        rc = iolens_writer_add_name(w, id, name);
    }
    timing.names = iol_wtime() - t;
    for (int id = 0; !rc && id < IOL_MAX_MODULES; id++)
        if (b->len[id]) {
            t = iol_wtime();
            rc = iolens_writer_put_region(w, id, iol_mod_version(&iol_mods[id]), b->payload[id],
                                          b->len[id]);
            timing.mod[id] = iol_wtime() - t;
        }
    if (rc) {
        iolens_writer_abort(w);
        return rc;
    }
    iolens_writer_set_partial(w, iol_partial_get());
    t = iol_wtime();
    rc = iolens_writer_close(w);
    timing.header = iol_wtime() - t;
    return rc;
}

/* The shutdown lines of DARSHAN_INTERNAL_TIMING (runtime spec section 10). */
static void report_timing(double total)
{
    char line[128];
    iol_write_line("#darshan:<op>\t<nprocs>\t<time>");
#define LINE(name, v)                                                              \
    do {                                                                           \
        snprintf(line, sizeof line, "darshan:%s\t%d\t%f", name, iol_nprocs, v);     \
        iol_write_line(line);                                                      \
    } while (0)
    LINE("log_open", timing.open);
    LINE("job_write", timing.job);
    LINE("hash_write", timing.names);
    LINE("header_write", timing.header);
    for (int id = 0; id < IOL_MAX_MODULES; id++)
        if (iol_mods[id].d && iol_mods[id].state == 1) {
            char name[64];
            snprintf(name, sizeof name, "%s_shutdown", iol_mods[id].d->name);
            LINE(name, timing.mod[id]);
        }
    LINE("core_shutdown", total);
#undef LINE
}

/* <user>_<prog>_id<jobid>-<pid>_<M>-<D>-<secs>-<hash> (runtime spec 3.7); `salt`
 * moves the hash to another name when this one is taken. */
static void base_name(char *out, size_t len, unsigned salt)
{
    extern char *program_invocation_short_name;
    char user[256];
    iol_log_user(&iol_cfg, user, sizeof user);
    struct tm tm;
    time_t t = iol_start_abs.tv_sec;
    localtime_r(&t, &tm);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t h = (iolens_record_id(host, strlen(host)) ^
                  ((uint64_t)now.tv_sec * 1000000u + now.tv_nsec / 1000)) + salt;
    snprintf(out, len, "%s_%s_id%lld-%d_%d-%d-%d-%llu", user, program_invocation_short_name,
             (long long)job_id(), (int)iol_self_pid, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec, (unsigned long long)h);
}

/* Write into `final` via a temporary file; returns 0 or an errno-style code. */
static int write_as(const built *b, const char *final)
{
    char tmp[IOL_PATH_LEN + 32];
    snprintf(tmp, sizeof tmp, "%s.iolens_partial", final);
    /* Created here, private (0600) and new (no file or link of that name is
     * followed or reused); the writer then opens this very file. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0)
        return errno ? errno : EIO;
    close(fd);
    errno = 0;
    if (write_file(b, tmp) != 0) {
        int e = errno ? errno : EIO;
        unlink(tmp);
        return e;
    }
    chmod(tmp, S_IRUSR);
    int rc = link(tmp, final) == 0 ? 0 : errno;
    unlink(tmp);
    return rc;
}

/* In `dir`, under the first name not taken (a stale partial file, or a file or
 * link someone planted at a name they guessed, is neither used nor followed). */
static int write_in_dir(const built *b, const char *dir, double t_start, char *final, size_t len)
{
    int rc = EEXIST;
    for (unsigned salt = 0; rc == EEXIST && salt < IOL_LOG_NAME_TRIES; salt++) {
        char base[1024];
        base_name(base, sizeof base, salt);
        int n = (int)(iol_wtime() - t_start + 1);
        snprintf(final, len, "%.4095s/%.1023s_%d.darshan", dir, base, n < 1 ? 1 : n);
        rc = write_as(b, final);
    }
    return rc;
}

/* A report file must be this user's: the file itself when it exists (a regular
 * file, lstat: a link is not followed), and the directory it is in (this user's
 * or root's, as /tmp is).  Another user's file or directory never gets our log
 * paths (issue #34): they could read them, or plant a FIFO or device there. */
static int owned_by_me_or_root(const struct stat *st)
{
    return st->st_uid == geteuid() || st->st_uid == 0;
}

static int report_file_ok(const char *file)
{
    char dir[IOL_PATH_LEN];
    const char *slash = strrchr(file, '/');
    size_t n = !slash ? 0 : slash == file ? 1 : (size_t)(slash - file);
    snprintf(dir, sizeof dir, "%.*s", (int)n, n ? file : ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !owned_by_me_or_root(&st))
        return 0;
    if (lstat(file, &st) != 0)
        return errno == ENOENT;              /* made below, private */
    return S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

static void report_path(const char *path)
{
    if (!iol_cfg.report_path[0] || !report_file_ok(iol_cfg.report_path))
        return;
    /* Shared by the processes of a job (appended to), so it may exist; private
     * when we create it, never written through a symbolic link, and checked
     * again once open (the name may have been replaced in between). */
    int fd = open(iol_cfg.report_path,
                  O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  S_IRUSR | S_IWUSR);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
        char line[IOL_PATH_LEN + 2];
        int n = snprintf(line, sizeof line, "%s\n", path);
        if (n > 0 && (size_t)n < sizeof line) {     /* a whole line or none */
            ssize_t w = write(fd, line, (size_t)n);
            (void)w;
        }
    }
    close(fd);
}

/* Set by the MPI runtime (src/runtime/mpi): the collective writer replaces this one. */
int (*iol_log_write_mpi)(void);
/* Set by the MPI_Finalize wrapper while every process is in it: the only time a
 * collective may start.  A process that leaves without MPI_Finalize (returns
 * from main, calls exit or _exit) must not start one: the others are not
 * there, and the job would hang (issue #21). */
int iol_mpi_finalizing;

/* For the MPI writer: the job record and the log base name exactly as here. */
void iol_log_fill_job(iolens_job *job, iolens_mount *mounts, char *exe_mounts, size_t len)
{
    fill_job(job, mounts, exe_mounts, len);
}

void iol_log_base_name(char *out, size_t len, unsigned salt)
{
    base_name(out, len, salt);
}

void iol_log_report_path(const char *path)
{
    report_path(path);
}

static int log_write(void)
{
    if (iol_log_write_mpi) {
        if (!iol_mpi_finalizing)
            return EAGAIN;           /* the safety copy stays for `iolens recover` */
        int mrc = iol_log_write_mpi();
        if (mrc == 0)
            iol_safety_remove();     /* kept when the job's log was not written */
        return mrc;
    }
    static built b;                  /* static: large, and shutdown runs once */
    double t0 = iol_wtime();
    build(&b);
    char final[IOL_PATH_LEN + 1200], first[IOL_PATH_LEN];
    static char dirs[IOL_LOG_DIRS_MAX][IOL_PATH_LEN];
    int rc = ENOENT, first_rc = 0;
    first[0] = '\0';
    if (iol_cfg.logfile[0]) {
        snprintf(final, sizeof final, "%s", iol_cfg.logfile);
        rc = first_rc = write_as(&b, final);
        if (rc)                      /* named in the warning only when it failed */
            snprintf(first, sizeof first, "%s", iol_cfg.logfile);
    }
    /* The one fallback order of both writers (logpath.c). */
    int ndirs = rc ? iol_log_dirs(&iol_cfg, iol_start_abs.tv_sec, getenv, dirs) : 0;
    for (int i = 0; rc && i < ndirs; i++) {
        rc = write_in_dir(&b, dirs[i], t0, final, sizeof final);
        if (rc && !first[0]) {
            memcpy(first, dirs[i], strlen(dirs[i]) + 1);   /* both IOL_PATH_LEN */
            first_rc = rc;
        }
    }
    if (rc)
        iol_warn("could not write the log anywhere (%s); no log for this process", strerror(rc));
    else if (first[0])
        iol_warn("could not write the log to %s (%s); wrote %s instead", first, strerror(first_rc),
                 final);
    if (rc == 0) {
        report_path(final);
        iol_safety_remove();         /* kept when no log could be written */
    }
    if (iol_cfg.internal_timing)
        report_timing(iol_wtime() - t0);
    return rc;
}

/* Under RLIMIT_FSIZE a log too large for the limit fails with EFBIG (next
 * directory, or the safety copy stays) instead of killing the program with
 * SIGXFSZ (fsize.h); the report line likewise. */
int iol_log_write(void)
{
    iol_fsize_guard_t g;
    iol_fsize_guard(&g);
    int rc = log_write();
    iol_fsize_unguard(&g);
    return rc;
}
