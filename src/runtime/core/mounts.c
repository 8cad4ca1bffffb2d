/* The exe string and the mount table (runtime spec 2.0.3 and 3.7; log-format spec
 * 4.4), collected once at init.  Block sizes feed POSIX_FILE_ALIGNMENT; each is
 * looked up (statfs) when the first file on its mount needs it, so a job pays
 * only for the file systems it uses and never touches an unused (perhaps
 * unresponsive) network mount. */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core_int.h"

#define MAX_MOUNTS 64
#define EXE_LEN 3015
#define ENTRY_MAX 256

typedef struct mount {
    char path[512];
    char type[64];
    int64_t block_size;               /* 0 until looked up (atomic: lookups race benignly) */
    int lustre;                       /* file-system type "lustre" */
} mount;

static mount mounts[MAX_MOUNTS];      /* mtab order (non-nfs first, then nfs) */
static size_t nmounts;
static int by_len[MAX_MOUNTS];        /* indexes sorted by descending path length */
static char exe[EXE_LEN + 1];
static char tmpfs_points[97];          /* the tmpfs mounts left out of the table (platform fact) */
int iol_lustre_mounted;
int iol_close_extras;

static const char *const SKIP[] = {"tmpfs", "proc", "sysfs", "devpts", "binfmt_misc", "fusectl",
                                   "debugfs", "securityfs", "nfsd", "none", "rpc_pipefs",
                                   "hugetlbfs", "cgroup"};

static int skipped(const char *type)
{
    for (size_t i = 0; i < sizeof SKIP / sizeof *SKIP; i++)
        if (strcmp(type, SKIP[i]) == 0)
            return 1;
    return 0;
}

static int duplicate(const char *dir, const char *type)
{
    for (size_t i = 0; i < nmounts; i++)
        if (strcmp(mounts[i].path, dir) == 0 && strcmp(mounts[i].type, type) == 0)
            return 1;
    return 0;
}

/* tmpfs mounts that can hold an application's files: /dev/shm, /tmp, job
 * directories; not the system's own (/run, /sys, /dev, /proc). */
static void note_tmpfs(const struct mntent *e)
{
    static const char *const SYSTEM[] = {"/run", "/sys", "/dev", "/proc"};
    const char *d = e->mnt_dir;
    if (strcmp(e->mnt_type, "tmpfs") != 0 || strchr(d, ',') || strchr(d, ' '))
        return;
    for (size_t i = 0; i < sizeof SYSTEM / sizeof *SYSTEM; i++) {
        size_t n = strlen(SYSTEM[i]);
        if (strncmp(d, SYSTEM[i], n) == 0 && (d[n] == '\0' || d[n] == '/') &&
            strcmp(d, "/dev/shm") != 0)
            return;
    }
    size_t used = strlen(tmpfs_points), n = strlen(d);
    if (hasmntopt(e, "ro"))
        return;                       /* read-only: holds no application output */
    for (const char *p = tmpfs_points; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (strncmp(p, d, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return;                   /* mounted twice (over itself) */
    if (used + n + 2 < sizeof tmpfs_points) {
        if (used)
            tmpfs_points[used++] = ',';
        memcpy(tmpfs_points + used, d, n + 1);
    }
}

static void add_mount(const struct mntent *e)
{
    note_tmpfs(e);
    if (nmounts == MAX_MOUNTS || skipped(e->mnt_type) || duplicate(e->mnt_dir, e->mnt_type))
        return;
    if (strlen(e->mnt_dir) >= sizeof mounts[0].path || strlen(e->mnt_type) >= sizeof mounts[0].type)
        return;
    mount *m = &mounts[nmounts++];
    strcpy(m->path, e->mnt_dir);
    strcpy(m->type, e->mnt_type);
    m->block_size = 0;
    /* by type, not statfs magic: known without touching the mount (the shim of the
     * Lustre test reports both) */
    m->lustre = strcmp(m->type, "lustre") == 0;
    iol_lustre_mounted |= m->lustre;
}

/* Upstream's rule: statfs f_bsize, 1 MiB on Lustre, 4096 when statfs fails. */
static int64_t block_size_of(mount *m)
{
    int64_t b = __atomic_load_n(&m->block_size, __ATOMIC_RELAXED);
    if (b)
        return b;
    struct statfs sf;
    int saved = errno;                    /* called from wrappers: errno is the app's */
    if (statfs(m->path, &sf) != 0)
        b = 4096;
    else
        b = (sf.f_type == 0x0BD00BD0) ? 1048576 : (int64_t)sf.f_bsize;
    errno = saved;
    __atomic_store_n(&m->block_size, b, __ATOMIC_RELAXED);
    return b;
}

static void read_mounts(void)
{
    for (int pass = 0; pass < 2; pass++) {     /* non-nfs entries, then nfs */
        FILE *f = setmntent("/etc/mtab", "r");
        if (!f)
            f = setmntent("/proc/self/mounts", "r");
        if (!f)
            return;
        struct mntent *e;
        while ((e = getmntent(f)))
            if ((strcmp(e->mnt_type, "nfs") == 0) == pass)
                add_mount(e);
        endmntent(f);
    }
}

static void sort_by_length(void)
{
    for (size_t i = 0; i < nmounts; i++)
        by_len[i] = (int)i;
    for (size_t i = 1; i < nmounts; i++) {     /* stable insertion sort */
        int v = by_len[i];
        size_t l = strlen(mounts[v].path), j = i;
        while (j > 0 && strlen(mounts[by_len[j - 1]].path) < l) {
            by_len[j] = by_len[j - 1];
            j--;
        }
        by_len[j] = v;
    }
}

/* /proc/self/cmdline with NULs turned into spaces, the last one included.
 * Newlines inside arguments (`python -c` with a multi-line script) become spaces
 * too: in the log, a newline starts the mount table, so one left in the command
 * line makes every reader reject the log. */
static void read_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0, r;
    if (fd >= 0) {
        while (n < EXE_LEN && (r = read(fd, exe + n, EXE_LEN - n)) > 0)
            n += r;
        close(fd);
    }
    if (n <= 0) {
        extern char *program_invocation_name;
        snprintf(exe, sizeof exe, "%s <unknown args>", program_invocation_name);
        return;
    }
    int truncated = (n == EXE_LEN);
    for (ssize_t i = 0; i < n; i++)
        if (exe[i] == '\0' || exe[i] == '\n')
            exe[i] = ' ';
    exe[n] = '\0';
    if (truncated)
        memcpy(exe + EXE_LEN - 11, "<TRUNCATED>", 11);
}

int iol_mounts_init(void)
{
    nmounts = 0;
    tmpfs_points[0] = '\0';
    iol_lustre_mounted = 0;
    read_cmdline();
    read_mounts();
    /* The close paths call the LUSTRE module only where it can record something. */
    if (iol_lustre_mounted && !((iol_cfg.mod_disabled >> IOL_MOD_LUSTRE) & 1))
        __atomic_or_fetch(&iol_close_extras, IOL_CLOSE_LUSTRE, __ATOMIC_RELAXED);
    else
        __atomic_and_fetch(&iol_close_extras, ~IOL_CLOSE_LUSTRE, __ATOMIC_RELAXED);
    sort_by_length();
    iol_fact_set(IOL_FACT_tmpfs, tmpfs_points);
    return 0;
}

const char *iol_exe_string(void) { return exe; }

/* Only the entries that fit in the job region are written (log-format 4.4);
 * iol_mount_count() counts those. */
size_t iol_mount_count(void)
{
    size_t room = EXE_LEN - strlen(exe), k = 0;
    for (size_t i = 0; i < nmounts; i++) {
        size_t need = 2 + strlen(mounts[i].type) + strlen(mounts[i].path);
        if (need < ENTRY_MAX && need <= room) {
            room -= need;
            k++;
        }
    }
    return k;
}

/* Index in mounts[] of the i-th written entry, or -1. */
static long written_at(size_t i)
{
    size_t room = EXE_LEN - strlen(exe), k = 0;
    for (size_t j = 0; j < nmounts; j++) {
        size_t need = 2 + strlen(mounts[j].type) + strlen(mounts[j].path);
        if (need < ENTRY_MAX && need <= room) {
            room -= need;
            if (k++ == i)
                return (long)j;
        }
    }
    return -1;
}

void iol_mount_at(size_t i, const char **path, const char **type)
{
    long j = written_at(i);
    *path = j < 0 ? "" : mounts[j].path;
    *type = j < 0 ? "" : mounts[j].type;
}

int64_t iol_mount_known_block_size(size_t i)
{
    long j = written_at(i);
    return j < 0 ? 0 : __atomic_load_n(&mounts[j].block_size, __ATOMIC_RELAXED);
}

static mount *mount_of(const char *path)
{
    for (size_t i = 0; i < nmounts; i++) {
        mount *m = &mounts[by_len[i]];
        if (strncmp(path, m->path, strlen(m->path)) == 0)
            return m;
    }
    return NULL;
}

int64_t iol_mount_block_size(const char *path)
{
    mount *m = mount_of(path);
    return m ? block_size_of(m) : -1;
}

int iol_mount_on_lustre(const char *path)
{
    const mount *m = mount_of(path);
    return m && m->lustre;
}
