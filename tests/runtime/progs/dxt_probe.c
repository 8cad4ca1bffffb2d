/* Test driver for the DXT tests (tests/runtime/test_runtime_dxt.py): one program,
 * one mode per test.  Modes that trace a known sequence print what they did on
 * stdout, from the values the calls returned, one line per call:
 *   "<file> W|R <offset>|- <bytes>"  a read or write at an explicit offset, or
 *                                     ("-") at the file offset
 *   "<file> S <pos>"                 an lseek that left the offset at pos
 *   "<file> O"                       an open of the file
 * so that the test can derive the trace with the runtime's offset model (runtime
 * spec 2.0.7).  Exits non-zero when a call it needs fails.
 *
 *   basic DIR              every traced call kind on one file (+ a stdio stream)
 *   many DIR N             N one-byte write()s to one file
 *   triggers DIR           files with known small/unaligned shares (pwrite)
 *   threads DIR T N [hold] T threads: N write()s + N read()s to an own file,
 *                          N pwrite()s to one shared file at distinct offsets;
 *                          prints each thread's pthread id; hold: then pause()
 *   script DIR OP...       OP = name:w|r:count  (1-byte write()s / 1-byte pread()s
 *                          at offset 0; files opened at first use, kept open)
 *   fork DIR               parent and child each write their own file
 *   sigterm DIR / _exit DIR / exec DIR   a few writes, then leave by SIGTERM,
 *                          _exit, or exec of /bin/true
 */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[1 << 20];
static const char *dir;

#define DIE(what) do { fprintf(stderr, "dxt_probe: %s: %s (line %d)\n", what, strerror(errno), __LINE__); exit(2); } while (0)

static int open_in(const char *name, int flags)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, flags, 0644);
    if (fd < 0)
        DIE(p);
    printf("%s O\n", name);
    return fd;
}

/* one traced operation: log it if it succeeded (ret >= 0) */
/* one traced operation (off -1: at the file offset): log it; it must succeed */
static ssize_t op(const char *name, char rw, long long off, ssize_t ret)
{
    if (ret < 0)
        DIE("traced call");
    if (off < 0)
        printf("%s %c - %zd\n", name, rw, ret);
    else
        printf("%s %c %lld %zd\n", name, rw, off, ret);
    return ret;
}

static void seek(const char *name, int fd, off_t off, int whence)
{
    off_t pos = lseek(fd, off, whence);
    if (pos < 0)
        DIE("lseek");
    printf("%s S %lld\n", name, (long long)pos);
}

static int mode_basic(void)
{
    const char *f = "basic.dat";
    int fd = open_in(f, O_RDWR | O_CREAT | O_TRUNC);
    struct iovec iov[2] = {{buf, 30}, {buf + 30, 20}};
    op(f, 'W', -1, write(fd, buf, 100));
    op(f, 'W', 1000, pwrite(fd, buf, 50, 1000));   /* moves the tracked offset too */
    op(f, 'W', -1, writev(fd, iov, 2));
    op(f, 'W', -1, write(fd, buf, 0));             /* 0 bytes: still a segment */
    op(f, 'W', 2000, pwrite64(fd, buf, 7, 2000));
    op(f, 'W', 3000, pwritev(fd, iov, 2, 3000));
    op(f, 'W', -1, pwritev2(fd, iov, 1, -1, 0));   /* -1: at the file offset */
    /* failures are not traced */
    if (pwrite(fd, buf, 10, -5) != -1 || write(-1, buf, 1) != -1)
        DIE("an invalid call succeeded");
    seek(f, fd, 0, SEEK_SET);
    op(f, 'R', -1, read(fd, buf, 64));
    op(f, 'R', 1040, pread(fd, buf, 10, 1040));
    iov[0].iov_len = 16, iov[1].iov_len = 16;
    op(f, 'R', -1, readv(fd, iov, 2));
    op(f, 'R', 2000, pread64(fd, buf, 100, 2000));
    op(f, 'R', 3000, preadv(fd, iov, 2, 3000));
    seek(f, fd, 0, SEEK_END);
    op(f, 'R', -1, read(fd, buf, 10));             /* at EOF: 0 bytes, a segment */
    op(f, 'W', -1, write(fd, buf, 5));             /* listed with the writes */
    /* a second descriptor of the same file: the same record */
    int fd2 = open_in(f, O_RDONLY);
    if (write(fd2, buf, 3) != -1)
        DIE("write on a read-only fd succeeded");
    op(f, 'R', -1, read(fd2, buf, 8));
    /* aio: the explicit offset, the bytes aio_return gives */
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = buf;
    cb.aio_nbytes = 12;
    cb.aio_offset = 5000;
    if (aio_write(&cb) != 0)
        DIE("aio_write");
    const struct aiocb *list[1] = {&cb};
    while (aio_error(&cb) == EINPROGRESS)
        aio_suspend(list, 1, NULL);
    op(f, 'W', 5000, aio_return(&cb));
    close(fd2);
    close(fd);
    /* stdio is not traced (there is no DXT module for it) */
    char p[4096];
    snprintf(p, sizeof p, "%s/stream.txt", dir);
    FILE *s = fopen(p, "w");
    if (!s)
        DIE("fopen");
    for (int i = 0; i < 10; i++)
        fprintf(s, "line %d\n", i);
    fclose(s);
    return 0;
}

static int mode_many(long n)
{
    int fd = open_in("many.dat", O_WRONLY | O_CREAT | O_TRUNC);
    for (long i = 0; i < n; i++)
        if (write(fd, "x", 1) != 1)
            DIE("write");
    close(fd);
    return 0;
}

/* pwrite `count` writes of `len` bytes at offsets base + k * step */
static void pwrites(const char *name, int count, size_t len, long long base, long long step)
{
    int fd = open_in(name, O_WRONLY | O_CREAT | O_TRUNC);
    for (int k = 0; k < count; k++)
        op(name, 'W', base + k * step, pwrite(fd, buf, len, base + k * step));
    close(fd);
}

/* 65536 is a multiple of every power-of-two block size up to 64 KiB; +1 is a
 * multiple of none of them (> 1) */
static int mode_triggers(void)
{
    /* runtime spec section 5's example: 200 ten-byte writes (offsets 0, 10, ...) */
    int fd = open_in("spec_small.dat", O_WRONLY | O_CREAT | O_TRUNC);
    for (int k = 0; k < 200; k++)
        op("spec_small.dat", 'W', -1, write(fd, buf, 10));
    close(fd);
    /* ... and 4 x 1 MiB + 1 x 10 B */
    fd = open_in("spec_big.dat", O_WRONLY | O_CREAT | O_TRUNC);
    for (int k = 0; k < 4; k++)
        op("spec_big.dat", 'W', -1, write(fd, buf, 1 << 20));
    op("spec_big.dat", 'W', -1, write(fd, buf, 10));
    close(fd);
    pwrites("small_unal.dat", 20, 10, 1, 65536);
    pwrites("small_al.dat", 20, 10, 0, 65536);
    pwrites("big_unal.dat", 4, 1 << 20, 1, 1 << 20);
    pwrites("big_al.dat", 4, 1 << 20, 0, 1 << 20);
    /* exactly half small and half unaligned: 0.5 >= 0.5 keeps it */
    fd = open_in("half.dat", O_WRONLY | O_CREAT | O_TRUNC);
    op("half.dat", 'W', 0, pwrite(fd, buf, 10, 0));
    op("half.dat", 'W', 65537, pwrite(fd, buf, 1 << 20, 65537));
    close(fd);
    return 0;
}

struct targ {
    int t, n, shared_fd;
    unsigned long self;      /* pthread_self() of the thread, printed by main */
};

static size_t tlen(int t, int i) { return 1 + (size_t)((i * 7 + t * 3) % 13); }

static void *thread_main(void *p)
{
    struct targ *a = p;
    a->self = (unsigned long)pthread_self();
    char name[64], in[16];
    snprintf(name, sizeof name, "thread-%d.dat", a->t);
    int fd = open_in(name, O_RDWR | O_CREAT | O_TRUNC);
    for (int i = 0; i < a->n; i++) {
        size_t len = tlen(a->t, i);
        if (write(fd, buf, len) != (ssize_t)len)
            DIE("write");
        off_t off = ((off_t)a->t * a->n + i) * 16;
        if (pwrite(a->shared_fd, buf, 16, off) != 16)
            DIE("pwrite");
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        DIE("lseek");
    for (int i = 0; i < a->n; i++) {
        size_t len = tlen(a->t, i);
        if (read(fd, in, len) != (ssize_t)len)
            DIE("read");
    }
    close(fd);
    return NULL;
}

static int mode_threads(int nt, int n, int hold)
{
    int sfd = open_in("shared.dat", O_WRONLY | O_CREAT | O_TRUNC);
    pthread_t th[256];
    struct targ a[256];
    if (nt > 256)
        nt = 256;
    for (int t = 0; t < nt; t++) {
        a[t] = (struct targ){t, n, sfd};
        if (pthread_create(&th[t], NULL, thread_main, &a[t]))
            DIE("pthread_create");
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    close(sfd);
    for (int t = 0; t < nt; t++)
        printf("thread %d %lu\n", t, a[t].self);
    if (hold) {              /* wait to be killed: the trace stays in the store */
        fflush(stdout);
        pause();
    }
    return 0;
}

#define MAXF 64
static int mode_script(int argc, char **argv)
{
    char names[MAXF][64];
    int fds[MAXF], nf = 0;
    for (int i = 0; i < argc; i++) {
        char name[64], rw;
        long count;
        if (sscanf(argv[i], "%63[^:]:%c:%ld", name, &rw, &count) != 3)
            DIE("bad script operation");
        int k = 0;
        while (k < nf && strcmp(names[k], name))
            k++;
        if (k == nf) {
            if (nf == MAXF)
                DIE("too many files");
            snprintf(names[nf], sizeof names[nf], "%s", name);
            fds[nf++] = open_in(name, O_RDWR | O_CREAT | O_TRUNC);
        }
        for (long j = 0; j < count; j++) {
            ssize_t r = rw == 'w' ? write(fds[k], "y", 1) : pread(fds[k], buf, 1, 0);
            if (r < 0)
                DIE("script I/O");
        }
    }
    for (int k = 0; k < nf; k++)
        close(fds[k]);
    return 0;
}

static int mode_fork(void)
{
    int fd = open_in("parent.dat", O_WRONLY | O_CREAT | O_TRUNC);
    for (int i = 0; i < 3; i++)
        op("parent.dat", 'W', -1, write(fd, buf, 10));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        DIE("fork");
    if (pid == 0) {
        int c = open_in("child.dat", O_RDWR | O_CREAT | O_TRUNC);
        for (int i = 0; i < 5; i++)
            op("child.dat", 'W', -1, write(c, buf, 7));
        op("child.dat", 'R', 3, pread(c, buf, 4, 3));
        close(c);
        fflush(stdout);
        exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        DIE("child failed");
    for (int i = 3; i < 5; i++)
        op("parent.dat", 'W', -1, write(fd, buf, 10));
    close(fd);
    return 0;
}

static int mode_leave(const char *how)
{
    int fd = open_in("leave.dat", O_WRONLY | O_CREAT | O_TRUNC);
    for (int i = 0; i < 6; i++)
        op("leave.dat", 'W', -1, write(fd, buf, 3));
    fflush(stdout);
    if (!strcmp(how, "_exit"))
        _exit(0);
    if (!strcmp(how, "exec")) {
        execl("/bin/true", "true", (char *)NULL);
        DIE("execl");
    }
    raise(SIGTERM);
    return 3;   /* not reached */
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dxt_probe MODE DIR [ARGS]\n");
        return 1;
    }
    const char *mode = argv[1];
    dir = argv[2];
    memset(buf, 'a', sizeof buf);
    if (!strcmp(mode, "basic"))
        return mode_basic();
    if (!strcmp(mode, "many") && argc > 3)
        return mode_many(atol(argv[3]));
    if (!strcmp(mode, "triggers"))
        return mode_triggers();
    if (!strcmp(mode, "threads") && argc > 4)
        return mode_threads(atoi(argv[3]), atoi(argv[4]), argc > 5 && !strcmp(argv[5], "hold"));
    if (!strcmp(mode, "script"))
        return mode_script(argc - 3, argv + 3);
    if (!strcmp(mode, "fork"))
        return mode_fork();
    if (!strcmp(mode, "sigterm") || !strcmp(mode, "_exit") || !strcmp(mode, "exec"))
        return mode_leave(mode);
    fprintf(stderr, "dxt_probe: unknown mode %s\n", mode);
    return 1;
}
