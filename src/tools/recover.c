/* `iolens recover`: turn safety copies left by processes that did not finish
 * (SIGKILL, crash, wall-time kill) into normal zlib logs.
 *
 * A safety copy is an uncompressed 3.41 log whose job end time is 0
 * (docs/recovery.md).  The recovered log takes the file's last modification, or
 * the last timestamp recorded if that is later, as the end time, drops the standard streams nobody read or wrote (as the runtime
 * does at exit), adds `recovered=1` to the job metadata, and goes to the same
 * directory a log of the process would have gone to (or --logdir).  DXT traces
 * and LUSTRE records come from the store files beside the copy (recover_dxt.c,
 * recover_lustre.c).  The safety copy and its store files are deleted once the
 * log is written, unless --keep. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "iolens/counters.h"
#include "iolens/log.h"
#include "recover.h"
#include "safe_output.h"
#include "tools.h"
#include "options.h"

static void nowarn(const char *fmt, ...) { (void)fmt; }

static void usage(FILE *out)
{
    fprintf(out,
            "usage: iolens recover [--logdir DIR] [--keep] [--force] SAFETY_COPY...\n"
            "Rewrite safety copies (*_mmap-log-*.darshan, left by processes that were\n"
            "killed) as normal logs, then delete them.\n"
            "  --logdir DIR  write the logs here (default: the configured log directory)\n"
            "  --keep        keep the safety copies\n"
            "  --force       also recover copies whose process still seems to run\n");
}

int iol_is_safety_copy(iolens_log *log)
{
    const iolens_header *h = iolens_log_header(log);
    const iolens_job *j = iolens_log_job(log);
    return h && j && h->comp_type == IOLENS_COMP_NONE && j->end_sec == 0;
}

/* The pid in "..._id<jobid>-<pid>_mmap-log-..." or -1. */
static long name_pid(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *m = strstr(b, "_mmap-log-");
    if (!m)
        return -1;
    const char *p = m;
    while (p > b && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return (p < m && p > b && p[-1] == '-') ? strtol(p, NULL, 10) : -1;
}

/* Alive, and not a zombie (a killed job's processes can stay unreaped for a
 * while, e.g. in a container whose init does not reap). */
static int running(long pid)
{
    if (pid <= 0 || kill((pid_t)pid, 0) != 0)
        return 0;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');    /* "pid (comm) S ..." */
    return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

int iol_safety_copy_running(const char *path)
{
    return running(name_pid(path));
}

/* The standard streams the runtime would have dropped at exit. */
static int idle_std_stream(const uint8_t *rec)
{
    uint64_t id;
    int64_t rd, wr;
    memcpy(&id, rec, 8);
    memcpy(&rd, rec + 16 + 8 * STDIO_READS, 8);
    memcpy(&wr, rec + 16 + 8 * STDIO_WRITES, 8);
    return iolens_stdio_idle_std_stream(id, rd, wr);
}

static int put_stdio(iolens_writer *w, uint32_t ver, const uint8_t *p, size_t len)
{
    const iolens_module_info *mi = iolens_module_info_get(IOL_MOD_STDIO);
    size_t rs = 16 + 8 * (mi->n_int + mi->n_flt);
    uint8_t *out = malloc(len ? len : 1);
    if (!out)
        return IOLENS_E_NOMEM;
    size_t k = 0;
    for (size_t off = 0; off + rs <= len; off += rs)
        if (!idle_std_stream(p + off)) {
            memcpy(out + k, p + off, rs);
            k += rs;
        }
    int rc = k ? iolens_writer_put_region(w, IOL_MOD_STDIO, ver, out, k) : 0;
    free(out);
    return rc;
}

int iol_write_recovered(iolens_log *log, const char *out, const iolens_job *job,
                        const iol_extra_regions *extra, char *err, size_t errlen)
{
    const iolens_header *h = iolens_log_header(log);
    iolens_writer *w = NULL;
    int rc = iolens_writer_open(out, IOLENS_COMP_ZLIB, &w);
    if (rc) {
        snprintf(err, errlen, "%s: %s", out, iolens_strerror(rc));
        return rc;
    }
    rc = iolens_writer_set_job(w, job);
    for (size_t i = 0; !rc && i < iolens_log_name_count(log); i++) {
        uint64_t id;
        const char *name;
        if (iolens_log_name_at(log, i, &id, &name) == 0)
            rc = iolens_writer_add_name(w, id, name);
    }
    for (int m = 0; !rc && m < IOL_MAX_MODULES; m++) {
        const void *p;
        size_t len;
        if (!h->mod[m].len && extra && extra->len[m]) {
            rc = iolens_writer_put_region(w, m, (uint32_t)extra->version[m], extra->data[m],
                                          extra->len[m]);
            continue;
        }
        if (!h->mod[m].len || iolens_log_region(log, m, &p, &len) != 0 || !len)
            continue;
        rc = m == IOL_MOD_STDIO ? put_stdio(w, h->mod_ver[m], p, len)
                                : iolens_writer_put_region(w, m, h->mod_ver[m], p, len);
    }
    if (rc) {
        snprintf(err, errlen, "%s: %s", out, iolens_writer_error(w));
        iolens_writer_abort(w);
        return rc;
    }
    iolens_writer_set_partial(w, h->partial_flag);
    return iolens_writer_close_err(w, err, errlen);
}

/* <prefix>_<M>-<D>-<secs>-<hash>_recovered.darshan in `dir`, where prefix is the
 * copy's "<user>_<prog>_id<jobid>-<pid>". */
static void out_name(const char *in, const iolens_job *job, const char *dir, char *out, size_t len)
{
    const char *b = strrchr(in, '/');
    b = b ? b + 1 : in;
    const char *m = strstr(b, "_mmap-log-");
    int plen = m ? (int)(m - b) : (int)strcspn(b, ".");
    struct tm tm;
    time_t t = (time_t)job->start_sec;
    localtime_r(&t, &tm);
    unsigned long long hash = iolens_record_id(b, strlen(b)) % 1000000007ull;
    snprintf(out, len, "%s/%.*s_%d-%d-%d-%llu_recovered.darshan", dir, plen, b, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec, hash);
}

static int log_dir_for(const iolens_job *job, const char *given, char *dir, size_t len)
{
    if (given) {
        snprintf(dir, len, "%s", given);
        return 0;
    }
    static iol_config cfg;
    static int loaded;
    if (!loaded) {
        iol_config_load(&cfg, getenv, nowarn);
        loaded = 1;
    }
    int configured = 0;
    if (iol_log_dir(&cfg, (time_t)job->start_sec, dir, len, getenv, &configured) == 0) {
        if (!configured)
            iol_mkdirs(dir, 0700);
        return 0;
    }
    snprintf(dir, len, ".");
    return 0;
}

/* The latest *_END_TIMESTAMP of the copy's counter records, seconds since start. */
static double latest_time(iolens_log *log)
{
    double last = 0;
    for (int m = 0; m < IOL_MAX_MODULES; m++) {
        const iolens_module_info *mi = iolens_module_info_get(m);
        iolens_records *r = NULL;
        if (!mi || mi->kind != IOLENS_KIND_COUNTERS || !iolens_log_header(log)->mod[m].len ||
            iolens_log_records(log, m, &r) != IOLENS_OK)
            continue;
        for (size_t k = 0; k < r->n_flt; k++) {
            const char *name = mi->flt_names[k];
            size_t n = strlen(name);
            if (n < 14 || strcmp(name + n - 14, "_END_TIMESTAMP") != 0)
                continue;
            for (size_t i = 0; i < r->count; i++)
                if (r->flts[i * r->n_flt + k] > last)
                    last = r->flts[i * r->n_flt + k];
        }
        iolens_records_free(r);
    }
    return last;
}

/* End the job no earlier than `last` seconds after its start. */
static void extend_end(iolens_job *job, double last)
{
    long long ns, end;
    if (!(last > 0) || last > 1e9)
        return;
    /* the copy's times are the copy's word: a hostile one must not overflow */
    if (__builtin_mul_overflow((long long)job->start_sec, 1000000000LL, &ns) ||
        __builtin_add_overflow(ns, (long long)job->start_nsec, &ns) ||
        __builtin_add_overflow(ns, (long long)(last * 1e9) + 1, &ns) ||
        __builtin_mul_overflow((long long)job->end_sec, 1000000000LL, &end) ||
        __builtin_add_overflow(end, (long long)job->end_nsec, &end))
        return;
    if (ns > end) {
        job->end_sec = ns / 1000000000LL;
        job->end_nsec = ns % 1000000000LL;
    }
}

int iol_recover_one(const char *in, const char *logdir, int keep, int force, int quiet,
                    char *made, size_t madelen)
{
    if (made && madelen)
        made[0] = '\0';
    long pid = name_pid(in);
    if (!force && running(pid)) {
        fprintf(stderr, "iolens recover: %s: process %ld is still running (use --force)\n", in, pid);
        return 1;
    }
    char err[512] = "";
    iolens_log *log = NULL;
    /* Copies are named where anyone can plant a name (/dev/shm), and the epilog
     * of docs/recovery.md runs this as root: the copy itself is never a link, and
     * the library reads only a regular file (not a FIFO, not /dev/zero). */
    int rc = iolens_log_open_ex(in, IOLENS_OPEN_NOFOLLOW, &log, err, sizeof err);
    if (rc) {
        fprintf(stderr, "iolens recover: %s: %s\n", in, err[0] ? err : iolens_strerror(rc));
        return 1;
    }
    if (!iol_is_safety_copy(log)) {
        const iolens_header *h = iolens_log_header(log);
        int written = h && h->comp_type == IOLENS_COMP_NONE && name_pid(in) > 0;
        iolens_log_close(log);
        if (written) {      /* marked by the runtime after its log was written */
            if (!quiet)
                printf("iolens: skipped %s: its process wrote its log\n", in);
            if (!keep) {
                iol_recover_dxt_remove(in);    /* first: it checks the copy's owner */
                unlink(in);
            }
            return 0;
        }
        fprintf(stderr, "iolens recover: %s: not a safety copy (already a finished log)\n", in);
        return 1;
    }
    iol_extra_regions dxt = {0};   /* the DXT traces and LUSTRE records: store files */
    for (int m = IOL_MOD_DXT_POSIX; m <= IOL_MOD_DXT_MPIIO; m++) {
        char note[600];
        if (iol_recover_dxt(in, m, &dxt, note, sizeof note) && note[0])
            fprintf(stderr, "iolens recover: %s\n", note);
    }
    char note[600];
    if (iol_recover_lustre(in, &dxt.data[IOL_MOD_LUSTRE], &dxt.len[IOL_MOD_LUSTRE], note,
                           sizeof note) && note[0])
        fprintf(stderr, "iolens recover: %s\n", note);
    dxt.version[IOL_MOD_LUSTRE] = IOL_MOD_LUSTRE_VERSION;
    iolens_job job = *iolens_log_job(log);
    struct stat st;
    if (lstat(in, &st) == 0 && S_ISREG(st.st_mode)) {
        job.end_sec = st.st_mtim.tv_sec;
        job.end_nsec = st.st_mtim.tv_nsec;
    }
    if (job.end_sec < job.start_sec) {
        job.end_sec = job.start_sec;
        job.end_nsec = job.start_nsec;
    }
    /* A mapped file's mtime is set when a clean page is first written, so it can
     * lag the last operation: the job ends no earlier than its last timestamp. */
    double last = latest_time(log);
    for (int m = IOL_MOD_DXT_POSIX; m <= IOL_MOD_DXT_MPIIO; m++) {
        size_t seg = dxt.version[m] > (m == IOL_MOD_DXT_MPIIO ? 2 : 1) ? 40 : 32;
        double t = iol_dxt_region_last_end(dxt.data[m], dxt.len[m], seg);
        if (t > last)
            last = t;
    }
    extend_end(&job, last);
    size_t n = strlen(job.metadata);
    snprintf(job.metadata + n, sizeof job.metadata - n, "recovered=1\n");
    char dir[4096], out[8192];
    log_dir_for(&job, logdir, dir, sizeof dir);
    out_name(in, &job, dir, out, sizeof out);
    /* Written privately and linked to its name when complete, as the runtime
     * writes logs: a log directory may be shared, so no file there is replaced
     * and no name planted there is followed (safe_output.h). */
    iol_output o;
    const char *inputs[] = {in};
    rc = iol_output_begin(&o, out, inputs, 1, IOL_OUT_LOG | IOL_OUT_NO_REPLACE, err, sizeof err);
    if (!rc)
        rc = iol_write_recovered(log, o.path, &job, &dxt, err, sizeof err);
    for (int m = 0; m < IOL_MAX_MODULES; m++)
        free(dxt.data[m]);
    iolens_log_close(log);
    if (!rc)
        rc = iol_output_commit(&o, err, sizeof err);
    iol_output_discard(&o);
    if (rc) {
        fprintf(stderr, "iolens recover: %s: %s\n", in, err);
        return 1;
    }
    if (!quiet)
        printf("iolens: recovered %s -> %s\n", in, out);
    if (made && madelen)
        snprintf(made, madelen, "%s", out);
    if (!keep) {
        iol_recover_dxt_remove(in);            /* first: it checks the copy's owner */
        unlink(in);
    }
    return 0;
}

int iol_cmd_recover(int argc, char **argv)
{
    static const struct option opts[] = {
        {"logdir", required_argument, 0, 'd'}, {"keep", no_argument, 0, 'k'},
        {"force", no_argument, 0, 'f'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *logdir = NULL;
    int keep = 0, force = 0, c;
    optind = 1;
    opterr = 0;         /* its errors are said as every verb says them (cli.h) */
    while ((c = getopt_long(argc, argv, ":d:kfh", opts, NULL)) != -1) {
        if (c == 'd')
            logdir = optarg;
        else if (c == 'k')
            keep = 1;
        else if (c == 'f')
            force = 1;
        else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            iol_cli_getopt_error("recover", c, argv);
            usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        iol_cli_usage_error("recover", "no safety copy given");
        usage(stderr);
        return 2;
    }
    int failed = 0;
    for (int i = optind; i < argc; i++)
        failed |= iol_recover_one(argv[i], logdir, keep, force, 0, NULL, 0);
    return failed;
}
