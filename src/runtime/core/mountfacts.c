/* The mntfs platform fact: for every mount entry written to the log, whether it
 * is node-local or shared and its block size, so that readers (the diagnosis)
 * know where a file's data lives without a Lustre module.
 *
 * The log's mount table is fixed by the format, so this goes into the job
 * metadata as one token per entry, in the order every reader lists the table:
 * descending mount-point length, equal lengths in table order (log-format spec
 * 4.4; `iolens parse`, darshan-parser and PyDarshan all sort this way).  A token
 * is the kind letter, then the block size if a file on that mount looked it up
 * (mounts.c looks sizes up lazily): "l4K", "s1M", "u512", or just "s". */
#include <stdio.h>
#include <string.h>

#include "core_int.h"

#define PKEY(key, cap, anon, desc) enum { key##_cap = cap };
#include "platform.def"
#undef PKEY
#define MNTFS_CAP ((size_t)mntfs_cap)

/* File systems whose data every node sees, and ones on the node itself.  ext4,
 * xfs and btrfs count as node-local: on a compute node they are local disks. */
static const char *const SHARED[] = {
    "lustre", "gpfs", "nfs", "nfs4", "beegfs", "fuse.dfuse", "daos", "dfuse", "cifs", "smb3",
    "ceph", "fuse.ceph", "fuse.ceph-fuse", "orangefs", "pvfs2", "dvs", "panfs", "wekafs",
    "glusterfs", "fuse.glusterfs", "afs", "9p", "fuse.sshfs", "autofs", "fhgfs",
};
static const char *const LOCAL[] = {
    "tmpfs", "ramfs", "ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "overlay",
    "vfat", "squashfs", "iso9660", "devtmpfs",
};

static int listed(const char *t, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t, list[i]) == 0)
            return 1;
    return 0;
}

char iol_fs_kind(const char *fstype)
{
    if (listed(fstype, SHARED, sizeof SHARED / sizeof *SHARED))
        return 's';
    if (listed(fstype, LOCAL, sizeof LOCAL / sizeof *LOCAL))
        return 'l';
    return 'u';
}

/* 4096 -> "4K", 1048576 -> "1M", 512 -> "512". */
static int size_text(char *out, size_t len, int64_t b)
{
    if (b >= 1048576 && b % 1048576 == 0)
        return snprintf(out, len, "%lldM", (long long)(b / 1048576));
    if (b >= 1024 && b % 1024 == 0)
        return snprintf(out, len, "%lldK", (long long)(b / 1024));
    return snprintf(out, len, "%lld", (long long)b);
}

void iol_mountfacts_note(void)
{
    size_t n = iol_mount_count();
    size_t order[64], k = 0;
    for (size_t i = 0; i < n && k < 64; i++) {      /* stable: longest mount point first */
        const char *p, *t;
        iol_mount_at(i, &p, &t);
        size_t len = strlen(p), j = k++;
        for (; j > 0; j--) {
            const char *q, *u;
            iol_mount_at(order[j - 1], &q, &u);
            if (strlen(q) >= len)
                break;
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    char value[MNTFS_CAP + 1];      /* whole tokens only: readers pair them with mounts */
    size_t used = 0;
    for (size_t i = 0; i < k; i++) {
        const char *p, *t;
        char token[32];
        iol_mount_at(order[i], &p, &t);
        int64_t b = iol_mount_known_block_size(order[i]);
        size_t tl = 1;
        token[0] = iol_fs_kind(t);
        if (b > 0)
            tl += (size_t)size_text(token + 1, sizeof token - 1, b);
        if (used + (i > 0) + tl > MNTFS_CAP)
            break;
        if (i)
            value[used++] = ',';
        memcpy(value + used, token, tl);
        used += tl;
    }
    value[used] = '\0';
    iol_fact_set(IOL_FACT_mntfs, value);
}
