/* POSIX wrappers: time the real call, then hand the result to posix.c.  Every
 * wrapper keeps the real call's return value and errno (the record functions
 * leave errno alone, see posix.c).  Failed calls leave no trace (runtime spec
 * 1.3).  The clock readings go straight into an iol_span on the stack, so that
 * little is live across the real call and the hot wrappers stay small. */
#include <errno.h>
#include <stdint.h>

#include "posix.h"

#define NEEDS_MODE(fl) (((fl) & O_CREAT) || (((fl) & O_TMPFILE) == O_TMPFILE))

/* ------------------------------------------------------------ open family */
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int do_open(open_fn real, const char *path, int flags, int mode)
{
    TIMED_BODY(int, real(path, flags, mode), ret >= 0, iol_posix_open(ret, path, mode, &sp));
}

static int do_openat(openat_fn real, int dirfd, const char *path, int flags, int mode)
{
    char buf[IOL_PATH_LEN];
    TIMED_BODY(int, real(dirfd, path, flags, mode), ret >= 0,
               iol_posix_open(ret, iol_posix_at_path(dirfd, path, buf, sizeof buf), mode, &sp));
}

#define VA_MODE(last, flags)                \
    int mode = 0;                           \
    if (NEEDS_MODE(flags)) {                \
        va_list ap;                         \
        va_start(ap, last);                 \
        mode = va_arg(ap, int);             \
        va_end(ap);                         \
    }

int open(const char *path, int flags, ...)
{
    VA_MODE(flags, flags);
    return do_open(IOL_REAL(open), path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    VA_MODE(flags, flags);
    return do_open(IOL_REAL(open64), path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    VA_MODE(flags, flags);
    return do_openat(IOL_REAL(openat), dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    VA_MODE(flags, flags);
    return do_openat(IOL_REAL(openat64), dirfd, path, flags, mode);
}

/* The fortify forms take no mode: recorded with mode 0 (left unchanged). */
static int fortify_open(int (*real)(const char *, int), const char *path, int flags)
{
    TIMED_BODY(int, real(path, flags), ret >= 0, iol_posix_open(ret, path, 0, &sp));
}

int __open_2(const char *path, int flags) { return fortify_open(IOL_REAL(__open_2), path, flags); }
int __open64_2(const char *path, int flags) { return fortify_open(IOL_REAL(__open64_2), path, flags); }

static int fortify_openat(int (*real)(int, const char *, int), int dirfd, const char *path, int flags)
{
    char buf[IOL_PATH_LEN];
    TIMED_BODY(int, real(dirfd, path, flags), ret >= 0,
               iol_posix_open(ret, iol_posix_at_path(dirfd, path, buf, sizeof buf), 0, &sp));
}

int __openat_2(int dirfd, const char *path, int flags)
{
    return fortify_openat(IOL_REAL(__openat_2), dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    return fortify_openat(IOL_REAL(__openat64_2), dirfd, path, flags);
}

static int do_creat(int (*real)(const char *, mode_t), const char *path, mode_t mode)
{
    TIMED_BODY(int, real(path, mode), ret >= 0, iol_posix_open(ret, path, (int)mode, &sp));
}

int creat(const char *path, mode_t mode) { return do_creat(IOL_REAL(creat), path, mode); }
int creat64(const char *path, mode_t mode) { return do_creat(IOL_REAL(creat64), path, mode); }

/* mkstemp family: the record is the template after substitution, mode 0. */
#define MKSTEMP_BODY(call) TIMED_BODY(int, call, ret >= 0, iol_posix_open(ret, tmpl, 0, &sp))

int mkstemp(char *tmpl) { MKSTEMP_BODY(IOL_REAL(mkstemp)(tmpl)); }
int mkostemp(char *tmpl, int flags) { MKSTEMP_BODY(IOL_REAL(mkostemp)(tmpl, flags)); }
int mkstemps(char *tmpl, int sl) { MKSTEMP_BODY(IOL_REAL(mkstemps)(tmpl, sl)); }
int mkostemps(char *tmpl, int sl, int flags) { MKSTEMP_BODY(IOL_REAL(mkostemps)(tmpl, sl, flags)); }
int mkstemp64(char *tmpl) { MKSTEMP_BODY(IOL_REAL(mkstemp64)(tmpl)); }
int mkostemp64(char *tmpl, int flags) { MKSTEMP_BODY(IOL_REAL(mkostemp64)(tmpl, flags)); }
int mkstemps64(char *tmpl, int sl) { MKSTEMP_BODY(IOL_REAL(mkstemps64)(tmpl, sl)); }
int mkostemps64(char *tmpl, int sl, int flags) { MKSTEMP_BODY(IOL_REAL(mkostemps64)(tmpl, sl, flags)); }

/* ------------------------------------------------------------ duplication */
#define DUP_BODY(call, oldfd) TIMED_BODY(int, call, ret >= 0, iol_posix_dup(oldfd, ret, &sp))

int dup(int fd) { DUP_BODY(IOL_REAL(dup)(fd), fd); }
/* dup2/dup3 replace newfd: a directory name remembered for it goes. */
int dup2(int fd, int newfd)
{
    iol_posix_dir_forget(newfd);
    DUP_BODY(IOL_REAL(dup2)(fd, newfd), fd);
}
int dup3(int fd, int newfd, int flags)
{
    iol_posix_dir_forget(newfd);
    DUP_BODY(IOL_REAL(dup3)(fd, newfd, flags), fd);
}

/* Every command is forwarded with its third argument fetched as a pointer (the
 * ABI passes ints and pointers alike); only the dup commands are recorded. */
static int do_fcntl(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
    if (!(cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
        return real(fd, cmd, arg);
    DUP_BODY(real(fd, cmd, arg), fd);
}

int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return do_fcntl(IOL_REAL(fcntl), fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return do_fcntl(IOL_REAL(fcntl64), fd, cmd, arg);
}

int fileno(FILE *fp)
{
    TIMED_BODY(int, IOL_REAL(fileno)(fp), ret >= 0, iol_posix_fileno(fp, ret, &sp));
}

/* ------------------------------------------------------------ data */
/* off < 0: at the tracked offset; addr: buffer address (iol_posix_io). */
#define READ_BODY(call, fd, off, addr) \
    TIMED_BODY(ssize_t, call, ret >= 0, iol_posix_io(fd, 0, off, ret, (uintptr_t)(addr), &sp))
#define WRITE_BODY(call, fd, off, addr) \
    TIMED_BODY(ssize_t, call, ret >= 0, iol_posix_io(fd, 1, off, ret, (uintptr_t)(addr), &sp))
/* The same for the functions of IOL_ALWAYS_REAL (name, argument list). */
#define READ_CALL(fn, args, fd, off, addr) \
    TIMED_CALL(ssize_t, fn, args, ret >= 0, iol_posix_io(fd, 0, off, ret, (uintptr_t)(addr), &sp))
#define WRITE_CALL(fn, args, fd, off, addr) \
    TIMED_CALL(ssize_t, fn, args, ret >= 0, iol_posix_io(fd, 1, off, ret, (uintptr_t)(addr), &sp))
#define IOV(iov, cnt) iol_posix_iov_addr(iov, cnt)

ssize_t read(int fd, void *buf, size_t n) { READ_CALL(read, (fd, buf, n), fd, -1, buf); }
ssize_t write(int fd, const void *buf, size_t n) { WRITE_CALL(write, (fd, buf, n), fd, -1, buf); }

ssize_t pread(int fd, void *buf, size_t n, off_t off) { READ_CALL(pread, (fd, buf, n, off), fd, off, buf); }

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    WRITE_CALL(pwrite, (fd, buf, n, off), fd, off, buf);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    READ_CALL(pread64, (fd, buf, n, off), fd, off, buf);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    WRITE_CALL(pwrite64, (fd, buf, n, off), fd, off, buf);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    READ_BODY(IOL_REAL(__read_chk)(fd, buf, n, buflen), fd, -1, buf);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    READ_BODY(IOL_REAL(__pread_chk)(fd, buf, n, off, buflen), fd, off, buf);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    READ_BODY(IOL_REAL(__pread64_chk)(fd, buf, n, off, buflen), fd, off, buf);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    READ_CALL(readv, (fd, iov, cnt), fd, -1, IOV(iov, cnt));
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    WRITE_CALL(writev, (fd, iov, cnt), fd, -1, IOV(iov, cnt));
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    READ_BODY(IOL_REAL(preadv)(fd, iov, cnt, off), fd, off, IOV(iov, cnt));
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    WRITE_BODY(IOL_REAL(pwritev)(fd, iov, cnt, off), fd, off, IOV(iov, cnt));
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    READ_BODY(IOL_REAL(preadv64)(fd, iov, cnt, off), fd, off, IOV(iov, cnt));
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
    WRITE_BODY(IOL_REAL(pwritev64)(fd, iov, cnt, off), fd, off, IOV(iov, cnt));
}

/* The v2 forms use the file position when off is -1 (any other negative offset
 * fails, so a recorded call has off >= -1). */
ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int fl)
{
    READ_BODY(IOL_REAL(preadv2)(fd, iov, cnt, off, fl), fd, off, IOV(iov, cnt));
}

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int fl)
{
    WRITE_BODY(IOL_REAL(pwritev2)(fd, iov, cnt, off, fl), fd, off, IOV(iov, cnt));
}

ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int fl)
{
    READ_BODY(IOL_REAL(preadv64v2)(fd, iov, cnt, off, fl), fd, off, IOV(iov, cnt));
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int fl)
{
    WRITE_BODY(IOL_REAL(pwritev64v2)(fd, iov, cnt, off, fl), fd, off, IOV(iov, cnt));
}

/* ------------------------------------------------------------ seek, sync, close */
#define SEEK_CALL(type, fn, args, fd) \
    TIMED_CALL(type, fn, args, ret >= 0, iol_posix_seek(fd, (int64_t)ret, &sp))

off_t lseek(int fd, off_t off, int whence) { SEEK_CALL(off_t, lseek, (fd, off, whence), fd); }
off64_t lseek64(int fd, off64_t off, int whence) { SEEK_CALL(off64_t, lseek64, (fd, off, whence), fd); }

#define SYNC_BODY(call, fd, data_only) \
    TIMED_BODY(int, call, ret == 0, iol_posix_sync(fd, data_only, &sp))

int fsync(int fd) { SYNC_BODY(IOL_REAL(fsync)(fd), fd, 0); }
int fdatasync(int fd) { SYNC_BODY(IOL_REAL(fdatasync)(fd), fd, 1); }

/* close is recorded whatever the real call returns; the fd is unmapped before
 * the real call (see iol_posix_close_begin). */
int close(int fd)
{
    if (!iol_on())
        return IOL_REAL(close)(fd);
    uintptr_t rec = iol_posix_close_begin(fd);   /* and the LUSTRE module's query */
    iol_span sp;
    iol_span_begin(&sp);
    int ret = IOL_REAL_ON(close)(fd);
    iol_span_end(&sp);
    if (rec)
        iol_posix_close_end(rec, &sp);
    return ret;
}

/* close_range(2): every tracked fd the call will close is closed as close()
 * does (mapping removed before the real call, the close recorded), so a number
 * reused afterwards (a pipe, a socket) is not counted against the closed file.
 * CLOSE_RANGE_CLOEXEC closes nothing now (the fds close at exec, when the log is
 * written anyway); CLOSE_RANGE_UNSHARE closes in this process's table all the
 * same.  Calls the kernel would refuse are passed through untouched. */
#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
int close_range(unsigned int first, unsigned int last, int flags)
{
    if (!iol_on() || first > last || (flags & CLOSE_RANGE_CLOEXEC) ||
        ((unsigned)flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)))
        return IOL_REAL(close_range)(first, last, flags);
    size_t cap = __atomic_load_n(&iol_posix_st.fdtab, __ATOMIC_ACQUIRE) ? iol_posix_st.fdcap : 0;
    for (size_t fd = first; fd <= last && fd < cap; fd++) {
        uintptr_t rec = iol_posix_close_begin((int)fd);
        if (rec) {
            iol_span sp;
            iol_span_begin(&sp);
            iol_span_end(&sp);
            iol_posix_close_end(rec, &sp);
        }
    }
    return IOL_REAL(close_range)(first, last, flags);
}

int rename(const char *oldpath, const char *newpath)
{
    TIMED_BODY(int, IOL_REAL(rename)(oldpath, newpath), ret == 0,
               iol_posix_rename(oldpath, newpath, &sp));
}

/* ------------------------------------------------------------ stat family */
/* Counted for regular files only, as upstream's __xstat wrappers do. */
#define STAT_BODY(call, path, fd, mode_expr) \
    TIMED_BODY(int, call, ret == 0 && S_ISREG(mode_expr), iol_posix_stat(path, fd, &sp))

int stat(const char *p, struct stat *st) { STAT_BODY(IOL_REAL(stat)(p, st), p, -1, st->st_mode); }
int lstat(const char *p, struct stat *st) { STAT_BODY(IOL_REAL(lstat)(p, st), p, -1, st->st_mode); }
int fstat(int fd, struct stat *st) { STAT_BODY(IOL_REAL(fstat)(fd, st), NULL, fd, st->st_mode); }
int stat64(const char *p, struct stat64 *st) { STAT_BODY(IOL_REAL(stat64)(p, st), p, -1, st->st_mode); }
int lstat64(const char *p, struct stat64 *st) { STAT_BODY(IOL_REAL(lstat64)(p, st), p, -1, st->st_mode); }
int fstat64(int fd, struct stat64 *st) { STAT_BODY(IOL_REAL(fstat64)(fd, st), NULL, fd, st->st_mode); }
int __xstat(int v, const char *p, struct stat *st) { STAT_BODY(IOL_REAL(__xstat)(v, p, st), p, -1, st->st_mode); }
int __lxstat(int v, const char *p, struct stat *st) { STAT_BODY(IOL_REAL(__lxstat)(v, p, st), p, -1, st->st_mode); }
int __fxstat(int v, int fd, struct stat *st) { STAT_BODY(IOL_REAL(__fxstat)(v, fd, st), NULL, fd, st->st_mode); }
int __xstat64(int v, const char *p, struct stat64 *st)
{
    STAT_BODY(IOL_REAL(__xstat64)(v, p, st), p, -1, st->st_mode);
}
int __lxstat64(int v, const char *p, struct stat64 *st)
{
    STAT_BODY(IOL_REAL(__lxstat64)(v, p, st), p, -1, st->st_mode);
}
int __fxstat64(int v, int fd, struct stat64 *st)
{
    STAT_BODY(IOL_REAL(__fxstat64)(v, fd, st), NULL, fd, st->st_mode);
}

/* (dirfd, path) forms: an empty (or, on new kernels, NULL) path with AT_EMPTY_PATH
 * means the fd itself.  The value is hidden from the optimiser (an empty asm, as
 * gcc's noipa would, which clang lacks) so that the nonnull declarations of glibc
 * cannot drop the NULL test. */
static inline int empty_path(const char *p)
{
    __asm__("" : "+r"(p));
    return !p || !p[0];
}
#define AT_NAME(dirfd, path, flags, buf)                                              \
    (((flags) & AT_EMPTY_PATH) && empty_path(path)                                    \
         ? NULL                                                                       \
         : iol_posix_at_path(dirfd, path, buf, sizeof buf))

int fstatat(int dirfd, const char *p, struct stat *st, int flags)
{
    char buf[IOL_PATH_LEN];
    STAT_BODY(IOL_REAL(fstatat)(dirfd, p, st, flags), AT_NAME(dirfd, p, flags, buf), dirfd, st->st_mode);
}

int fstatat64(int dirfd, const char *p, struct stat64 *st, int flags)
{
    char buf[IOL_PATH_LEN];
    STAT_BODY(IOL_REAL(fstatat64)(dirfd, p, st, flags), AT_NAME(dirfd, p, flags, buf), dirfd,
              st->st_mode);
}

int statx(int dirfd, const char *p, int flags, unsigned int mask, struct statx *stx)
{
    char buf[IOL_PATH_LEN];
    STAT_BODY(IOL_REAL(statx)(dirfd, p, flags, mask, stx), AT_NAME(dirfd, p, flags, buf), dirfd,
              (stx->stx_mask & STATX_TYPE) ? stx->stx_mode : 0);
}

/* ------------------------------------------------------------ mmap (counted) */
#define MMAP_BODY(call)                                             \
    void *ret = call;                                               \
    if (ret != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && iol_on()) \
        iol_posix_mmap(fd);                                         \
    return ret

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    MMAP_BODY(IOL_REAL(mmap)(addr, len, prot, flags, fd, off));
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    MMAP_BODY(IOL_REAL(mmap64)(addr, len, prot, flags, fd, off));
}

/* ------------------------------------------------------------ asynchronous I/O */
#define AIO_SUBMIT(call, cb)                                        \
    int ret = call;                                                 \
    if (ret == 0 && iol_on())                                       \
        iol_posix_aio_submit((cb)->aio_fildes, cb, iol_wtime());   \
    return ret

int aio_read(struct aiocb *cb) { AIO_SUBMIT(IOL_REAL(aio_read)(cb), cb); }
int aio_write(struct aiocb *cb) { AIO_SUBMIT(IOL_REAL(aio_write)(cb), cb); }
int aio_read64(struct aiocb64 *cb) { AIO_SUBMIT(IOL_REAL(aio_read64)(cb), cb); }
int aio_write64(struct aiocb64 *cb) { AIO_SUBMIT(IOL_REAL(aio_write64)(cb), cb); }

#define LIO_BODY(call)                                              \
    int ret = call;                                                 \
    if (ret == 0 && iol_on()) {                                     \
        double t1 = iol_wtime();                                    \
        for (int i = 0; i < n; i++)                                 \
            if (list[i] && (list[i]->aio_lio_opcode == LIO_READ ||  \
                            list[i]->aio_lio_opcode == LIO_WRITE))  \
                iol_posix_aio_submit(list[i]->aio_fildes, list[i], t1); \
    }                                                               \
    return ret

int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
    LIO_BODY(IOL_REAL(lio_listio)(mode, list, n, sev));
}

int lio_listio64(int mode, struct aiocb64 *const list[], int n, struct sigevent *sev)
{
    LIO_BODY(IOL_REAL(lio_listio64)(mode, list, n, sev));
}

#define AIO_RETURN(call, cb)                                                        \
    ssize_t ret = call;                                                             \
    double t1;                                                                      \
    if (ret >= 0 && iol_on() && iol_posix_aio_take((cb)->aio_fildes, cb, &t1) &&   \
        ((cb)->aio_lio_opcode == LIO_WRITE || (cb)->aio_lio_opcode == LIO_READ))     \
        iol_posix_io_at((cb)->aio_fildes, (cb)->aio_lio_opcode == LIO_WRITE,        \
                        (cb)->aio_offset, ret, (uintptr_t)(cb)->aio_buf, t1,         \
                        iol_wtime());                                               \
    return ret

ssize_t aio_return(struct aiocb *cb) { AIO_RETURN(IOL_REAL(aio_return)(cb), cb); }
ssize_t aio_return64(struct aiocb64 *cb) { AIO_RETURN(IOL_REAL(aio_return64)(cb), cb); }
