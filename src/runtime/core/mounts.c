/* The exe string and the mount table (runtime spec 2.0.3 and 3.7; log-format spec
 * 4.4), collected once at init.  Block sizes feed POSIX_FILE_ALIGNMENT. */
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
    int64_t block_size;
    int lustre;                       /* statfs magic LL_SUPER_MAGIC */
} mount;

static mount mounts[MAX_MOUNTS];      /* mtab order (non-nfs first, then nfs) */
static size_t nmounts;
static int by_len[MAX_MOUNTS];        /* indexes sorted by descending path length */
static char exe[EXE_LEN + 1];
int iol_lustre_mounted;

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

static void add_mount(const struct mntent *e)
{
    if (nmounts == MAX_MOUNTS || skipped(e->mnt_type) || duplicate(e->mnt_dir, e->mnt_type))
        return;
    if (strlen(e->mnt_dir) >= sizeof mounts[0].path || strlen(e->mnt_type) >= sizeof mounts[0].type)
        return;
    mount *m = &mounts[nmounts++];
    strcpy(m->path, e->mnt_dir);
    strcpy(m->type, e->mnt_type);
    struct statfs sf;
    m->lustre = 0;
    if (statfs(m->path, &sf) != 0)
        m->block_size = 4096;
    else {
        m->lustre = sf.f_type == 0x0BD00BD0;
        m->block_size = m->lustre ? 1048576 : (int64_t)sf.f_bsize;
    }
    iol_lustre_mounted |= m->lustre;
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
    iol_lustre_mounted = 0;
    read_cmdline();
    read_mounts();
    sort_by_length();
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

void iol_mount_at(size_t i, const char **path, const char **type)
{
    size_t room = EXE_LEN - strlen(exe), k = 0;
    for (size_t j = 0; j < nmounts; j++) {
        size_t need = 2 + strlen(mounts[j].type) + strlen(mounts[j].path);
        if (need < ENTRY_MAX && need <= room) {
            room -= need;
            if (k++ == i) {
                *path = mounts[j].path;
                *type = mounts[j].type;
                return;
            }
        }
    }
    *path = *type = "";
}

static const mount *mount_of(const char *path)
{
    for (size_t i = 0; i < nmounts; i++) {
        const mount *m = &mounts[by_len[i]];
        if (strncmp(path, m->path, strlen(m->path)) == 0)
            return m;
    }
    return NULL;
}

int64_t iol_mount_block_size(const char *path)
{
    const mount *m = mount_of(path);
    return m ? m->block_size : -1;
}

int iol_mount_on_lustre(const char *path)
{
    const mount *m = mount_of(path);
    return m && m->lustre;
}
