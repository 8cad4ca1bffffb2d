/* The safety copy (see safety.h for the layout and its contract). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "fsize.h"
#include "iolens/live.h"
#include "iolens/log.h"
#include "safety.h"

#ifndef IOLENS_VERSION
#define IOLENS_VERSION "0.0.0"
#endif

enum { HDR = 1328, JOB_END = 1328 + 4096, OFF_PARTIAL = 24, OFF_NAMES = 32, OFF_MODS = 48,
       OFF_VER = 1072 };

static uint8_t *base;            /* the whole mapping; NULL = no safety copy */
static size_t map_len, names_cap, names_used, pool_off;
static char path[IOL_PATH_LEN + 512];

/* Sidecars: files beside the copy, <copy>.<suffix>, removed with it. */
#define MAX_SIDECARS 4
static char sidecars[MAX_SIDECARS][sizeof path + 32];
static int nsidecars;

static void put64(size_t off, uint64_t v)
{
    __atomic_store_n((uint64_t *)(base + off), v, __ATOMIC_RELEASE);
}

static int64_t job_id(void)
{
    return iol_cfg.jobid >= 0 ? iol_cfg.jobid : iol_job_pid;
}

/* <dir>/<user>_<prog>_id<jobid>-<pid>_mmap-log-<hash>-<rank>.darshan: the pid keeps
 * the processes of one node apart (without MPI every rank is 0).  `salt` moves
 * the hash to another name when this one is taken. */
static void make_path_in(char *out, size_t len, const char *dir, unsigned salt)
{
    extern char *program_invocation_short_name;
    char user[256];
    iol_log_user(&iol_cfg, user, sizeof user);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t h = iol_hash(host, strlen(host)) ^
                 ((uint64_t)iol_t0.tv_sec * 1000000u + (uint64_t)iol_t0.tv_nsec / 1000);
    snprintf(out, len, "%s/%s_%s_id%lld-%d_mmap-log-%llu-%d.darshan", dir,
             user, program_invocation_short_name, (long long)job_id(), (int)getpid(),
             (unsigned long long)((h + salt) % 1000000007u), iol_rank);
}

/* Names tried before giving up on a directory (each one taken: a stale copy, or
 * a file or link planted by someone who guessed the name). */
#define NAME_TRIES 16

/* A private file, new and never reached through a link: mode 0600 (the copy
 * holds the command line, which may carry credentials, and every file name);
 * O_EXCL|O_NOFOLLOW so that a planted file or symbolic link is never opened. */
static int create_private(const char *p)
{
    return open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
}

/* Give the file its size, with every block reserved now (posix_fallocate), on
 * tmpfs too: a page of a shared mapping that the file system cannot supply
 * later is SIGBUS in the application (issue #21: another program filling
 * /dev/shm after start killed it).  A file system that cannot reserve the
 * blocks means no safety copy for this process.  Returns 0 or an errno value. */
static int size_file(int fd, size_t len)
{
    return posix_fallocate(fd, 0, (off_t)len);
}

static int create_in(const char *dir, int *err)
{
    int fd = -1;
    for (unsigned salt = 0; fd < 0 && salt < NAME_TRIES; salt++) {
        make_path_in(path, sizeof path, dir, salt);
        fd = create_private(path);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    if ((*err = size_file(fd, map_len)) != 0) {
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

uint8_t *iol_safety_open(uint64_t modmem, uint64_t namemem)
{
    base = NULL;
    if (iol_cfg.no_safety || !iol_cfg.mmap_logpath[0])
        return NULL;
    long pg = sysconf(_SC_PAGESIZE);
    names_cap = namemem + 4096;
    names_used = 0;
    pool_off = ((JOB_END + names_cap) + (size_t)pg - 1) / (size_t)pg * (size_t)pg;
    map_len = pool_off + ((modmem + (size_t)pg - 1) / (size_t)pg * (size_t)pg) +
              (size_t)pg;        /* the last page ends with the live trailer */
    if (!iol_fsize_fits(map_len)) {
        iol_note("no_safety_copy", "RLIMIT_FSIZE");   /* said in the log, not on stderr */
        return NULL;
    }
    int err = 0, fd = create_in(iol_cfg.mmap_logpath, &err);
    if (fd < 0 && strcmp(iol_cfg.mmap_logpath, "/dev/shm") == 0)
        fd = create_in("/tmp", &err);       /* the default, where /dev/shm is missing */
    void *p = fd >= 0 ? IOL_REAL(mmap)(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
    if (fd >= 0) {
        err = errno;
        close(fd);
    }
    if (p == MAP_FAILED) {
        if (fd >= 0)
            unlink(path);
        iol_warn("no safety copy (%s: %s); a crash will lose this process's log", path, strerror(err));
        return NULL;
    }
    base = p;
    iolens_header h;
    memset(&h, 0, sizeof h);
    h.comp_type = IOLENS_COMP_NONE;
    h.names.off = JOB_END;
    iolens_header_encode(&h, base);
    put64(OFF_NAMES, JOB_END);     /* the encoder writes offsets of present regions only */
    return base + pool_off;
}

void iol_safety_seqs(uint64_t off, unsigned shift, uint64_t len)
{
    if (!base)
        return;
    iolens_live_trailer t;
    memset(&t, 0, sizeof t);
    memcpy(t.magic, IOLENS_LIVE_MAGIC, sizeof t.magic);
    t.pool_off = pool_off;
    t.seq_off = pool_off + off;
    t.seq_len = len;
    t.seq_shift = shift;
    t.pid = (uint32_t)getpid();
    memcpy(base + map_len - sizeof t, &t, sizeof t);
}

int iol_safety_owns(const void *p)
{
    return base && p == base + pool_off;
}

void iol_safety_job(void)
{
    if (!base)
        return;
    iolens_job job;
    iolens_mount mounts[64];
    memset(&job, 0, sizeof job);
    job.uid = getuid();
    job.start_sec = iol_start_abs.tv_sec;
    job.start_nsec = iol_start_abs.tv_nsec;
    job.nprocs = iol_nprocs;
    job.jobid = job_id();
    int n = snprintf(job.metadata, sizeof job.metadata, "lib_ver=iolens-%s\n", IOLENS_VERSION);
    if (iol_fork_parent)
        n += snprintf(job.metadata + n, sizeof job.metadata - (size_t)n, "fork_parent=%d\n",
                      (int)iol_fork_parent);
    /* the platform facts known at start, so a recovered log has them too; the
     * 24 bytes kept free (as in logwrite.c) are for "recovered=1", "merged=N" */
    iol_platform_append(job.metadata + n, 1024 - 24 - (size_t)n);
    job.exe = (char *)iol_exe_string();
    job.nmounts = iol_mount_count() < 64 ? iol_mount_count() : 64;
    for (size_t i = 0; i < job.nmounts; i++) {
        const char *mp, *t;
        iol_mount_at(i, &mp, &t);
        mounts[i].path = (char *)mp;
        mounts[i].fstype = (char *)t;
    }
    job.mounts = mounts;
    void *enc = NULL;
    size_t len = 0;
    if (iolens_job_encode(&job, &enc, &len) == 0 && len <= JOB_END - HDR)
        memcpy(base + HDR, enc, len);
    free(enc);
}

/* MPI: the job id is known only after MPI_Init (agreed on by every process).
 * Rewrite the job record and rename the copy so that it carries the job's id,
 * not this process's pid. */
void iol_safety_rejob(void)
{
    if (!base)
        return;
    char dir[sizeof path], fresh[sizeof path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    iol_safety_job();
    /* Never onto an existing name (RENAME_NOREPLACE): a file there is not ours. */
    int moved_copy = 0;
    for (unsigned salt = 0; !moved_copy && salt < NAME_TRIES; salt++) {
        make_path_in(fresh, sizeof fresh, dir, salt);
        if (strcmp(fresh, path) == 0)
            return;
        if (renameat2(AT_FDCWD, path, AT_FDCWD, fresh, RENAME_NOREPLACE) == 0)
            moved_copy = 1;
        else if (errno != EEXIST)
            return;
    }
    if (!moved_copy)
        return;
    for (int i = 0; i < nsidecars; i++) {     /* <copy>.<suffix> follow the copy */
        char moved[sizeof sidecars[0]];
        snprintf(moved, sizeof moved, "%s%s", fresh, sidecars[i] + strlen(path));
        if (renameat2(AT_FDCWD, sidecars[i], AT_FDCWD, moved, RENAME_NOREPLACE) == 0)
            memcpy(sidecars[i], moved, sizeof moved);
    }
    memcpy(path, fresh, sizeof path);
}

void iol_safety_module(int modid, uint32_t version, const void *recs)
{
    if (!base || modid < 0 || modid >= IOL_MAX_MODULES)
        return;
    put64(OFF_MODS + 16 * (size_t)modid, (uint64_t)((const uint8_t *)recs - base));
    __atomic_store_n((uint32_t *)(base + OFF_VER + 4 * (size_t)modid), version, __ATOMIC_RELEASE);
}

void iol_safety_region_len(int modid, uint64_t len)
{
    if (base)
        put64(OFF_MODS + 16 * (size_t)modid + 8, len);
}

void iol_safety_name(uint64_t id, const char *name, size_t len)
{
    if (!base || names_used + 8 + len + 1 > names_cap)
        return;
    uint8_t *p = base + JOB_END + names_used;
    memcpy(p, &id, 8);
    memcpy(p + 8, name, len);
    p[8 + len] = '\0';
    names_used += 8 + len + 1;
    put64(OFF_NAMES + 8, names_used);   /* published after the bytes it covers */
}

void iol_safety_partial(uint64_t bits)
{
    if (base)
        __atomic_or_fetch((uint64_t *)(base + OFF_PARTIAL), bits, __ATOMIC_RELAXED);
}


void *iol_safety_sidecar(const char *suffix, size_t len)
{
    if (!base || nsidecars == MAX_SIDECARS)
        return NULL;
    if (!iol_fsize_fits(len)) {          /* then the module keeps it in memory */
        iol_note("no_safety_sidecar", "RLIMIT_FSIZE");
        return NULL;
    }
    char *sp = sidecars[nsidecars];
    snprintf(sp, sizeof sidecars[0], "%s.%s", path, suffix);
    /* Our own I/O, from inside a wrapper (a module's first use): not recorded. */
    iol_busy++;
    int fd = create_private(sp);   /* a name taken by someone else: no sidecar */
    void *p = MAP_FAILED;
    if (fd >= 0) {
        if (size_file(fd, len) == 0)
            p = IOL_REAL(mmap)(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            unlink(sp);
    }
    iol_busy--;
    if (p == MAP_FAILED)
        return NULL;
    nsidecars++;
    return p;
}

void iol_safety_discard(void)
{
    if (!base)
        return;
    unlink(path);
    for (int i = 0; i < nsidecars; i++)
        unlink(sidecars[i]);
    munmap(base, map_len);
    base = NULL;
    nsidecars = 0;
}

void iol_safety_forget(void)
{
    if (base)
        munmap(base, map_len);
    base = NULL;
    nsidecars = 0;               /* the parent's; their mappings go with their modules */
}

/* The mapping itself is left in place: the process is about to exit or exec
 * (which unmap it for free), and munmap of a file mapping costs a TLB shootdown
 * and page-cache teardown (~0.5 ms measured).  Records no longer point into it
 * (iol_records_detach ran first). */
void iol_safety_remove(void)
{
    if (!base)
        return;
    /* Marked first, with the job's end time (offsets of the 3.41 job record):
     * a copy left by a death between here and the unlink is then a finished
     * log's twin, which `iolens recover` skips instead of making a second log. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    put64(HDR + 32, (uint64_t)now.tv_nsec);
    put64(HDR + 24, (uint64_t)(now.tv_sec > 0 ? now.tv_sec : 1));
    unlink(path);
    for (int i = 0; i < nsidecars; i++)
        unlink(sidecars[i]);
    nsidecars = 0;
    base = NULL;
}

const char *iol_safety_path(void)
{
    return base ? path : NULL;
}
