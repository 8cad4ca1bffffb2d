/* The one log of an MPI job, written collectively with MPI-IO (runtime spec 3.1,
 * 3.5, 3.6).  Every process compresses its own names and records; the regions
 * are appended in rank order (offsets from an exclusive scan of the compressed
 * sizes); process 0 writes the job record and, last, the header.  The file is
 * written as <final>.iolens_partial and process 0 links it to its final name
 * (made read-only first), as the non-MPI writer does.
 *
 * Called from iol_core_shutdown (frozen modules, iol_busy set) on every process;
 * all processes take the same path: every decision that could differ is agreed
 * on with an Allreduce first. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/core_int.h"
#include "mpi_int.h"

typedef struct wctx {
    int rank, nprocs;
    MPI_File fh;
    uint64_t end;          /* end of file so far (meaningful on every process) */
    int err;               /* first local error (agreed on at checkpoints) */
} wctx;

/* 1 when every process is fine. */
static int all_ok(wctx *w)
{
    int ok = w->err == 0;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, iol_mpi_comm);
    return ok;
}

/* Append each process's `len` bytes in rank order; returns the region. */
static iolens_region append(wctx *w, const void *buf, size_t len)
{
    /* One Allgather gives both this process's offset and the total. */
    unsigned long long mine = len, before = 0, total = 0, stack[64], *all = stack;
    if (w->nprocs > 64 && !(all = malloc((size_t)w->nprocs * sizeof *all))) {
        all = stack;       /* cannot happen in practice; fall back to two collectives */
        PMPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, iol_mpi_comm);
        if (w->rank == 0)
            before = 0;
        PMPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, iol_mpi_comm);
    } else {
        PMPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, iol_mpi_comm);
        for (int i = 0; i < w->nprocs; i++) {
            if (i < w->rank)
                before += all[i];
            total += all[i];
        }
        if (all != stack)
            free(all);
    }
    iolens_region r = { total ? w->end : 0, total };
    MPI_Status st;
    if (total && PMPI_File_write_at_all(w->fh, (MPI_Offset)(w->end + before), buf, (int)len,
                                        MPI_BYTE, &st) != MPI_SUCCESS)
        w->err = EIO;
    w->end += total;
    return r;
}

/* Compress and append; an empty or failed buffer contributes 0 bytes. */
static iolens_region append_compressed(wctx *w, const void *buf, size_t len)
{
    void *z = NULL;
    size_t zlen = 0;
    if (len && iolens_compress(IOLENS_COMP_ZLIB, buf, len, &z, &zlen) != IOLENS_OK) {
        w->err = ENOMEM;
        zlen = 0;
    }
    iolens_region r = append(w, z, zlen);
    free(z);
    return r;
}

/* Names this process writes: all on rank 0, the non-shared ones elsewhere. */
static void *encode_names(const wctx *w, const iol_shared *s, size_t *len)
{
    size_t n = iol_names_count(), cap = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        iol_name_at(i, &id, &name);
        cap += 9 + strlen(name);
    }
    uint8_t *buf = malloc(cap ? cap : 1), *p = buf;
    if (!buf) {
        *len = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        iol_name_at(i, &id, &name);
        if (w->rank != 0 && iol_shared_mask(s, id))
            continue;
        size_t k = strlen(name) + 1;
        memcpy(p, &id, 8);           /* little-endian hosts only (x86-64, aarch64) */
        memcpy(p + 8, name, k);
        p += 8 + k;
    }
    *len = (size_t)(p - buf);
    return buf;
}

/* Hints "k=v;k=v" (DARSHAN_LOGHINTS) as an MPI_Info. */
static MPI_Info log_hints(void)
{
    MPI_Info info = MPI_INFO_NULL;
    if (!iol_cfg.loghints[0] || PMPI_Info_create(&info) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    char text[sizeof iol_cfg.loghints], *save = NULL;
    snprintf(text, sizeof text, "%s", iol_cfg.loghints);
    for (char *kv = strtok_r(text, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (eq && eq != kv && eq[1]) {
            *eq = 0;
            PMPI_Info_set(info, kv, eq + 1);
        }
    }
    return info;
}

/* Process 0 chooses the directory and base name; everyone opens.  Falls back
 * through iol_log_dirs, like the non-MPI writer. */
static int open_log(wctx *w, char *final_base, size_t len, char *tmp, size_t tlen)
{
    char base[1024];
    static char dirs[IOL_LOG_DIRS_MAX][IOL_PATH_LEN];
    int ndirs = 0;
    if (w->rank == 0) {
        /* The one fallback order of both writers (core/logpath.c). */
        ndirs = iol_log_dirs(&iol_cfg, iol_start_abs.tv_sec, getenv, dirs);
    }
    MPI_Info info = log_hints();
    int attempts = iol_cfg.logfile[0] ? 1 + ndirs : ndirs;
    PMPI_Bcast(&attempts, 1, MPI_INT, 0, iol_mpi_comm);
    int rc = MPI_ERR_OTHER;
    for (int a = 0; a < attempts && rc != MPI_SUCCESS; a++) {
        /* Process 0 creates the file: private (0600; the MPI library would use
         * its own mode, 0644 by default), new, never through a symbolic link,
         * under another name when this one is taken.  "" = none: all skip. */
        if (w->rank == 0) {
            int fd = -1;
            for (unsigned salt = 0; fd < 0 && salt < IOL_LOG_NAME_TRIES; salt++) {
                if (iol_cfg.logfile[0] && a == 0) {
                    if (salt)
                        break;                 /* the exact name asked for, or nothing */
                    snprintf(final_base, len, "%s", iol_cfg.logfile);
                } else {
                    iol_log_base_name(base, sizeof base, salt);
                    snprintf(final_base, len, "%s/%s", dirs[iol_cfg.logfile[0] ? a - 1 : a], base);
                }
                snprintf(tmp, tlen, "%s.iolens_partial", final_base);
                fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          S_IRUSR | S_IWUSR);
                if (fd < 0 && errno != EEXIST)
                    break;
            }
            if (fd >= 0)
                close(fd);
            else
                tmp[0] = '\0';
        }
        PMPI_Bcast(tmp, (int)tlen, MPI_CHAR, 0, iol_mpi_comm);
        rc = tmp[0] ? PMPI_File_open(iol_mpi_comm, tmp, MPI_MODE_WRONLY, info, &w->fh)
                    : MPI_ERR_OTHER;
        int ok = rc == MPI_SUCCESS;
        PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, iol_mpi_comm);
        if (!ok && rc == MPI_SUCCESS)
            PMPI_File_close(&w->fh);
        if (!ok && w->rank == 0 && tmp[0])
            unlink(tmp);                       /* ours: created above */
        rc = ok ? MPI_SUCCESS : MPI_ERR_OTHER;
        if (!ok && a == 0 && w->rank == 0)
            iol_warn("could not create the log %s.iolens_partial; trying another directory",
                     final_base);
    }
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* Process 0: the uncompressed job region as written (our extension modules' key
 * goes into its metadata, iolens_log_place_extensions). */
static void *job_raw;
static size_t job_raw_len;

/* The job record, with start MIN and end MAX over the processes. */
static void write_job(wctx *w, iolens_header *h)
{
    static iolens_job job;
    static iolens_mount mounts[64];
    static char exe_mounts[4096];
    iol_mpi_nodes();
    iol_log_fill_job(&job, mounts, exe_mounts, sizeof exe_mounts);
    long long start[2] = { job.start_sec, job.start_nsec }, end[2] = { job.end_sec, job.end_nsec };
    long long smin[2], emax[2];
    /* (sec, nsec) pairs compared as one value in nanoseconds */
    long long s_ns = start[0] * 1000000000LL + start[1], e_ns = end[0] * 1000000000LL + end[1];
    PMPI_Reduce(&s_ns, &smin[0], 1, MPI_LONG_LONG, MPI_MIN, 0, iol_mpi_comm);
    PMPI_Reduce(&e_ns, &emax[0], 1, MPI_LONG_LONG, MPI_MAX, 0, iol_mpi_comm);
    if (w->rank != 0)
        return;
    job.start_sec = smin[0] / 1000000000LL;
    job.start_nsec = smin[0] % 1000000000LL;
    job.end_sec = emax[0] / 1000000000LL;
    job.end_nsec = emax[0] % 1000000000LL;
    job.nprocs = w->nprocs;
    void *raw = NULL, *z = NULL;
    size_t rlen = 0, zlen = 0;
    MPI_Status st;
    if (iolens_job_encode(&job, &raw, &rlen) != IOLENS_OK ||
        iolens_compress(IOLENS_COMP_ZLIB, raw, rlen, &z, &zlen) != IOLENS_OK ||
        PMPI_File_write_at(w->fh, 1328, z, (int)zlen, MPI_BYTE, &st) != MPI_SUCCESS)
        w->err = EIO;
    w->end = 1328 + zlen;
    h->job.off = 1328;
    h->job.len = zlen;
    job_raw = raw;
    job_raw_len = rlen;
    free(z);
}

/* Module payloads, after the reduction of shared records. */
static void write_modules(wctx *w, const iol_shared *s, iolens_header *h)
{
    /* One Allreduce: which modules have records anywhere, and their versions. */
    unsigned vers[IOL_MAX_MODULES];
    for (int id = 0; id < IOL_MAX_MODULES; id++) {
        iol_module *m = &iol_mods[id];
        vers[id] = (m->d && m->state == 1 && m->count) ? iol_mod_version(m) : 0;
    }
    PMPI_Allreduce(MPI_IN_PLACE, vers, IOL_MAX_MODULES, MPI_UNSIGNED, MPI_MAX, iol_mpi_comm);
    for (int id = 0; id < IOL_MAX_MODULES; id++) {
        iol_module *m = &iol_mods[id];
        int active = m->d && m->state == 1 && m->count;
        if (!vers[id])
            continue;
        if (active)
            iol_mod_round_times(m);      /* the variances then come from rounded times */
        if (!iol_cfg.no_shared_reduction && active && m->d->shared)
            iol_shared_mark(s, m);
        if (!iol_cfg.no_shared_reduction) {
            size_t count = active ? m->count : 0;
            if (iol_shared_reduce(s, id, active ? m->recs : NULL, m->d ? m->d->rec_size : 0,
                                  &count) != 0)
                w->err = ENOMEM;
            if (active)
                m->count = count;
        }
        void *payload = NULL;
        size_t len = 0;
        if (active && m->count)
            len = iol_mod_payload(m, &payload);
        h->mod[id] = append_compressed(w, payload, len);
        h->mod_ver[id] = vers[id];
    }
}

static int has_extensions(const iolens_header *h)
{
    for (int id = IOL_MOD_FIRST_EXTENSION; id < IOL_MAX_MODULES; id++)
        if (h->mod[id].len)
            return 1;
    return 0;
}

/* Process 0, after the collective close: our extension modules out of the header's
 * map (into the job metadata), then the header. */
static int finish_extensions(const char *tmp, iolens_header *h, uint64_t end)
{
    char err[256];
    uint8_t hdr[1328];
    int fd = open(tmp, O_RDWR | O_CLOEXEC);
    if (fd < 0 || !job_raw)
        return fd < 0 ? -1 : (close(fd), -1);
    iolens_ext_out o = { .fd = fd, .comp = IOLENS_COMP_ZLIB, .hdr = h, .job = job_raw,
                         .job_len = job_raw_len, .end = end };
    int rc = iolens_log_place_extensions(&o, err, sizeof err);
    if (!rc && (iolens_header_encode(h, hdr) != IOLENS_OK || pwrite(fd, hdr, 1328, 0) != 1328))
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    return rc;
}

static void finish_name(wctx *w, const char *final_base, const char *tmp, double t0)
{
    if (w->rank != 0)
        return;
    char final[IOL_PATH_LEN + 1200];
    if (iol_cfg.logfile[0] && strcmp(final_base, iol_cfg.logfile) == 0) {
        snprintf(final, sizeof final, "%s", final_base);
    } else {
        int n = (int)(iol_wtime() - t0 + 1);
        snprintf(final, sizeof final, "%s_%d.darshan", final_base, n < 1 ? 1 : n);
    }
    chmod(tmp, S_IRUSR);
    if (link(tmp, final) != 0) {
        iol_warn("could not name the log %s (%s); it is in %s", final, strerror(errno), tmp);
        return;
    }
    unlink(tmp);
    iol_log_report_path(final);
}

/* DARSHAN_INTERNAL_TIMING (runtime spec 10): seconds per step, printed by process 0. */
enum { T_DETECT, T_OPEN, T_JOB, T_NAMES, T_MODULES, T_HEADER, T_CLOSE, T_N };
static const char *const T_NAMES_TXT[T_N] = {"shared_detect", "log_open", "job_write",
                                              "hash_write", "modules_write", "header_write",
                                              "log_close"};
static double tsteps[T_N];

static void report_timing(const wctx *w, double total)
{
    if (!iol_cfg.internal_timing || w->rank != 0)
        return;
    char line[128];
    iol_write_line("#darshan:<op>\t<nprocs>\t<time>");
    for (int i = 0; i < T_N; i++) {
        snprintf(line, sizeof line, "darshan:%s\t%d\t%f", T_NAMES_TXT[i], w->nprocs, tsteps[i]);
        iol_write_line(line);
    }
    snprintf(line, sizeof line, "darshan:core_shutdown\t%d\t%f", w->nprocs, total);
    iol_write_line(line);
}

#define STEP(i, stmt)                          \
    do {                                       \
        double t_ = iol_wtime();               \
        stmt;                                  \
        tsteps[i] = iol_wtime() - t_;          \
    } while (0)

int iol_mpi_log_write(void)
{
    static char final_base[IOL_PATH_LEN + 1100], tmp[IOL_PATH_LEN + 1200];
    wctx w = { 0 };
    PMPI_Comm_rank(iol_mpi_comm, &w.rank);
    PMPI_Comm_size(iol_mpi_comm, &w.nprocs);
    PMPI_Barrier(iol_mpi_comm);
    double t0 = iol_wtime();
    iol_cfg.jobid = iol_mpi_job_id();
    iol_shared s;
    int rc;
    STEP(T_DETECT, rc = iol_shared_detect(&s));
    if (rc != 0)
        return ENOMEM;
    STEP(T_OPEN, rc = open_log(&w, final_base, sizeof final_base, tmp, sizeof tmp));
    if (rc != 0) {
        if (w.rank == 0)
            iol_warn("could not write the log anywhere; no log for this job");
        iol_shared_free(&s);
        return EIO;
    }
    iolens_header h;
    memset(&h, 0, sizeof h);
    STEP(T_JOB, write_job(&w, &h); PMPI_Bcast(&w.end, 1, MPI_UINT64_T, 0, iol_mpi_comm));
    size_t nlen;
    void *names;
    STEP(T_NAMES, names = encode_names(&w, &s, &nlen); h.names = append_compressed(&w, names, nlen));
    free(names);
    double end = iol_wtime();   /* heatmaps: one bin layout for the whole job */
    PMPI_Allreduce(&end, &iol_heatmap_end, 1, MPI_DOUBLE, MPI_MAX, iol_mpi_comm);
    STEP(T_MODULES, write_modules(&w, &s, &h));
    unsigned long long partial = iol_partial_get(), pall = 0;
    PMPI_Reduce(&partial, &pall, 1, MPI_UNSIGNED_LONG_LONG, MPI_BOR, 0, iol_mpi_comm);
    double th = iol_wtime();
    if (w.rank == 0) {
        uint8_t hdr[1328];
        MPI_Status st;
        h.comp_type = IOLENS_COMP_ZLIB;
        h.partial_flag = pall;
        if (!has_extensions(&h) && (iolens_header_encode(&h, hdr) != IOLENS_OK ||
            PMPI_File_write_at(w.fh, 0, hdr, 1328, MPI_BYTE, &st) != MPI_SUCCESS))
            w.err = EIO;
    }
    tsteps[T_HEADER] = iol_wtime() - th;
    int ok = all_ok(&w);
    STEP(T_CLOSE, PMPI_File_close(&w.fh));
    if (ok && w.rank == 0 && has_extensions(&h) && finish_extensions(tmp, &h, w.end) != 0)
        ok = 0;                          /* process 0 alone from here: finish_name's too */
    free(job_raw);
    job_raw = NULL;
    iol_shared_free(&s);
    if (!ok) {
        if (w.rank == 0) {
            unlink(tmp);
            iol_warn("could not write the log %s; no log for this job", tmp);
        }
        return EIO;
    }
    finish_name(&w, final_base, tmp, t0);
    report_timing(&w, iol_wtime() - t0);
    return 0;
}
