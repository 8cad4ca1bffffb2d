/* Test shim, preloaded with the runtime (tests/runtime/test_runtime_lustre.py):
 * makes the directory $IOLENS_TEST_LUSTRE_DIR look like a Lustre mount to the
 * process, without Lustre.
 *
 *  - getmntent: the mount table gains one entry, that directory, type "lustre";
 *  - statfs/fstatfs of anything in it report the Lustre magic;
 *  - fgetxattr(fd, "lustre.lov") of a file in it returns the bytes of
 *    $IOLENS_TEST_LUSTRE_LAYOUTS/<file name>.lov; from the second query of the
 *    same file on, <file name>.lov.2 when that exists (a layout that changed, as
 *    a PFL file's does when it grows); with neither, default.lov there.  None
 *    of them: ENODATA, as for a file without a layout.
 *
 * Everything else goes to the real functions. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LL_SUPER_MAGIC 0x0BD00BD0

static const char *dir(void)
{
    const char *d = getenv("IOLENS_TEST_LUSTRE_DIR");
    return d && d[0] ? d : NULL;
}

static int inside(const char *path)
{
    const char *d = dir();
    size_t n = d ? strlen(d) : 0;
    return d && strncmp(path, d, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int fd_path(int fd, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, len - 1);
    if (n < 0)
        return -1;
    out[n] = '\0';
    return 0;
}

static int fd_inside(int fd)
{
    char p[4096];
    return fd_path(fd, p, sizeof p) == 0 && inside(p);
}

/* ------------------------------------------------------------ the mount table */
static FILE *listed;                  /* the stream that has had the extra entry */

FILE *setmntent(const char *file, const char *mode)
{
    FILE *(*real)(const char *, const char *) = dlsym(RTLD_NEXT, "setmntent");
    listed = NULL;
    return real(file, mode);
}

struct mntent *getmntent(FILE *fp)
{
    struct mntent *(*real)(FILE *) = dlsym(RTLD_NEXT, "getmntent");
    struct mntent *e = real(fp);
    if (e || !dir() || listed == fp)
        return e;
    static struct mntent fake;
    static char fsname[] = "10.0.0.1@tcp:/testfs", type[] = "lustre", opts[] = "rw";
    static char path[4096];
    snprintf(path, sizeof path, "%s", dir());
    fake = (struct mntent){fsname, path, type, opts, 0, 0};
    listed = fp;
    return &fake;
}

/* ------------------------------------------------------------ statfs */
#define STATFS_SHIM(name, type, arg_t, test)                           \
    int name(arg_t a, type *st)                                          \
    {                                                                    \
        int (*real)(arg_t, type *) = dlsym(RTLD_NEXT, #name);            \
        int rc = real(a, st);                                            \
        if (rc == 0 && (test))                                           \
            st->f_type = LL_SUPER_MAGIC;                                 \
        return rc;                                                       \
    }
STATFS_SHIM(statfs, struct statfs, const char *, inside(a))
STATFS_SHIM(statfs64, struct statfs64, const char *, inside(a))
STATFS_SHIM(fstatfs, struct statfs, int, fd_inside(a))
STATFS_SHIM(fstatfs64, struct statfs64, int, fd_inside(a))

/* ------------------------------------------------------------ the layout */
#include "layout_query_count.h"

/* A blob file's descriptor (first query number `which`, then the fallbacks). */
static int open_blob(const char *layouts, const char *base, int which)
{
    char blob[4600];
    int fd = -1;
    if (which == 2) {
        snprintf(blob, sizeof blob, "%s/%s.lov.2", layouts, base);
        fd = open(blob, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        snprintf(blob, sizeof blob, "%s/%s.lov", layouts, base);
        fd = open(blob, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        snprintf(blob, sizeof blob, "%s/default.lov", layouts);
        fd = open(blob, O_RDONLY | O_CLOEXEC);
    }
    return fd;
}

/* Called by the runtime's threads at once (the threaded test): one at a time. */
static pthread_mutex_t layout_lock = PTHREAD_MUTEX_INITIALIZER;

static ssize_t layout_locked(int fd, void *value, size_t size)
{
    char p[4096];
    const char *layouts = getenv("IOLENS_TEST_LUSTRE_LAYOUTS");
    if (!layouts || fd_path(fd, p, sizeof p) != 0) {
        errno = ENODATA;
        return -1;
    }
    const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
    int fd2 = open_blob(layouts, base, query_number(base));
    if (fd2 < 0) {
        errno = ENODATA;
        return -1;
    }
    static char data[65536];
    ssize_t n = read(fd2, data, sizeof data);
    close(fd2);
    if (n < 0) {
        errno = EIO;
        return -1;
    }
    if (size == 0)
        return n;
    if ((size_t)n > size) {
        errno = ERANGE;
        return -1;
    }
    memcpy(value, data, (size_t)n);
    return n;
}

static ssize_t layout_of(int fd, void *value, size_t size)
{
    pthread_mutex_lock(&layout_lock);
    ssize_t n = layout_locked(fd, value, size);
    int e = errno;
    pthread_mutex_unlock(&layout_lock);
    errno = e;
    return n;
}

ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)
{
    if (strcmp(name, "lustre.lov") == 0 && fd_inside(fd))
        return layout_of(fd, value, size);
    ssize_t (*real)(int, const char *, void *, size_t) = dlsym(RTLD_NEXT, "fgetxattr");
    return real(fd, name, value, size);
}
