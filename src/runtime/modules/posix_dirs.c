/* Names of directory descriptors the POSIX module has no record for: those
 * glibc opens inside opendir() (its own open is not interposable), those
 * inherited from the parent (`exec 3</data` in a job script), and those of
 * excluded directories (no record, so no fd mapping).  An *at call relative to
 * such a descriptor would otherwise be named after the working directory
 * (upstream's behaviour, runtime spec 2.0.1).
 *
 * The name is read once from /proc/self/fd/N and remembered in a small table
 * keyed by the fd, with the directory's device and inode.  Every use checks them
 * with one fstat, so an entry left behind by a close we cannot see (closedir()
 * closes inside glibc) is never taken for the directory that now has the number;
 * close, dup2, dup3 and close_range forget the fd's entry as well (a directory
 * reached through another mount of the same file system has the same inode but
 * another name).  Nothing here allocates; the table is static (its pages are
 * touched only when used), and each lookup copies the name out under the
 * table's lock, so a slot may be overwritten at any time. */
#include "posix.h"

#include <errno.h>
#include <string.h>

#define DIR_SLOTS 32                       /* power of two: slot = fd & (DIR_SLOTS - 1) */

typedef struct dir_slot {
    int fd_plus1;                          /* 0 = empty */
    uint32_t len;
    dev_t dev;
    ino_t ino;
    char name[IOL_PATH_LEN];
} dir_slot;

static dir_slot slots[DIR_SLOTS];
/* Taken with iol_trylock_top, although it is no module or record lock: it is
 * taken with none of those held (an *at name is made before the open), so its
 * holder's signal handler may wait for a record lock, and a thread that holds
 * one must then not wait for this lock.  Busy so: the slot is left alone and
 * /proc names the fd. */
static iol_lock_t lock;
static uint64_t fallbacks;

/* "/proc/self/fd/<fd>" into link (32 bytes), without stdio. */
static void fd_link(int fd, char *link)
{
    static const char prefix[] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    unsigned v = (unsigned)fd;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    memcpy(link, prefix, sizeof prefix - 1);
    char *p = link + sizeof prefix - 1;
    while (n)
        *p++ = digits[--n];
    *p = '\0';
}

/* The kernel's name of fd, an absolute path, into out; -1 when there is none
 * (no /proc, a deleted directory, a name longer than out). */
static int read_name(int fd, char *out, size_t len)
{
    char link[32];
    fd_link(fd, link);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0 || (size_t)n >= len - 1 || out[0] != '/')
        return -1;
    out[n] = '\0';
    static const char deleted[] = " (deleted)";
    if ((size_t)n >= sizeof deleted - 1 && memcmp(out + n - (sizeof deleted - 1), deleted,
                                                  sizeof deleted - 1) == 0)
        return -1;
    return (int)n;
}

int iol_posix_dir_name(int fd, char *out, size_t len)
{
    struct stat st;
    if (fd < 0 || IOL_REAL(fstat)(fd, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    dir_slot *s = &slots[(unsigned)fd & (DIR_SLOTS - 1)];
    int locked = iol_trylock_top(&lock);   /* 0: a signal handler interrupted us in here,
                                              or busy while we hold a record lock */
    if (locked && s->fd_plus1 == fd + 1 && s->dev == st.st_dev && s->ino == st.st_ino &&
        s->len < len) {
        memcpy(out, s->name, s->len + 1);
        iol_unlock(&lock);
        return 0;
    }
    if (locked)
        iol_unlock(&lock);
    int n = read_name(fd, out, len);
    if (n < 0)
        return -1;
    if (locked && iol_trylock_top(&lock)) {
        s->fd_plus1 = fd + 1;
        s->dev = st.st_dev;
        s->ino = st.st_ino;
        s->len = (uint32_t)n;
        memcpy(s->name, out, (size_t)n + 1);
        __atomic_or_fetch(&iol_close_extras, IOL_CLOSE_DIRS, __ATOMIC_RELAXED);
        iol_unlock(&lock);
    }
    return 0;
}

void iol_posix_dir_forget_slow(int fd)
{
    if (fd < 0)
        return;
    dir_slot *s = &slots[(unsigned)fd & (DIR_SLOTS - 1)];
    if (!iol_trylock_top(&lock))
        return;                            /* the fstat check still catches it */
    if (s->fd_plus1 == fd + 1)
        s->fd_plus1 = 0;
    iol_unlock(&lock);
}

void iol_posix_dir_fallback(void) { __atomic_add_fetch(&fallbacks, 1, __ATOMIC_RELAXED); }

uint64_t iol_posix_dir_fallbacks(void) { return __atomic_load_n(&fallbacks, __ATOMIC_RELAXED); }

/* A fork child: its descriptors are the parent's, so the names stay right; only
 * the count starts again, and a lock another parent thread held is released. */
void iol_posix_dirs_reset(void)
{
    __atomic_store_n(&fallbacks, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lock, 0, __ATOMIC_RELAXED);
}
