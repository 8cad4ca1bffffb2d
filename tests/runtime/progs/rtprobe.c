/* Test driver for the runtime's behaviour tests: one program, one mode per test.
 * Exits 0 when its own checks pass (each mode states what it checks). */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "expect.h"

/* Failing calls keep their return values and errno. */
static int mode_errno(const char *dir)
{
    char p[4096], buf[16];
    snprintf(p, sizeof p, "%s/does/not/exist", dir);
    errno = 0;
    EXPECT(open(p, O_RDONLY) == -1 && errno == ENOENT);
    errno = 0;
    EXPECT(read(-1, buf, 1) == -1 && errno == EBADF);
    errno = 0;
    EXPECT(write(987, buf, 1) == -1 && errno == EBADF);
    errno = 0;
    EXPECT(pread(-1, buf, 1, 0) == -1 && errno == EBADF);
    errno = 0;
    EXPECT(close(-5) == -1 && errno == EBADF);
    struct stat st;
    errno = 0;
    EXPECT(stat(p, &st) == -1 && errno == ENOENT);
    errno = 0;
    EXPECT(fopen(p, "r") == NULL && errno == ENOENT);
    int fds[2];
    EXPECT(pipe(fds) == 0);
    errno = 0;
    EXPECT(lseek(fds[0], 0, SEEK_SET) == -1 && errno == ESPIPE);
    snprintf(p, sizeof p, "%s/ro.dat", dir);
    int fd = open(p, O_CREAT | O_RDONLY, 0644);
    EXPECT(fd >= 0);
    errno = 0;
    EXPECT(write(fd, buf, 1) == -1 && errno == EBADF);
    errno = 0;
    EXPECT(rename(p, "/nonexistent-dir/x") == -1 && errno == ENOENT);
    /* errno is left alone by a successful recorded call */
    errno = 1234;
    EXPECT(read(fd, buf, 1) == 0 && errno == 1234);
    EXPECT(close(fd) == 0);
    return 0;
}

/* N threads: each writes `per` blocks of `size` bytes to its own file and to
 * one shared file (pwrite at disjoint offsets), then reads its file back. */
enum { PER = 200, SIZE = 1000 };
static const char *tdir;
static int shared_fd;

static void *worker(void *arg)
{
    long t = (long)arg;
    char p[4096], buf[SIZE];
    memset(buf, 't', sizeof buf);
    snprintf(p, sizeof p, "%s/thread-%ld.dat", tdir, t);
    int fd = open(p, O_CREAT | O_TRUNC | O_RDWR, 0644);
    EXPECT(fd >= 0);
    for (int i = 0; i < PER; i++) {
        EXPECT(write(fd, buf, SIZE) == SIZE);
        EXPECT(pwrite(shared_fd, buf, SIZE, ((off_t)t * PER + i) * SIZE) == SIZE);
    }
    EXPECT(lseek(fd, 0, SEEK_SET) == 0);
    for (int i = 0; i < PER; i++)
        EXPECT(read(fd, buf, SIZE) == SIZE);
    EXPECT(close(fd) == 0);
    return NULL;
}

/* N threads each reopen their own stream PER/4 times: fopen, fwrite, fclose. */
static void *stream_worker(void *arg)
{
    long t = (long)arg;
    char p[4096], buf[100] = {0};
    snprintf(p, sizeof p, "%s/stream-%ld.txt", tdir, t);
    for (int i = 0; i < PER / 4; i++) {
        FILE *f = fopen(p, "a");
        EXPECT(f && fwrite(buf, 1, sizeof buf, f) == sizeof buf && fclose(f) == 0);
    }
    return NULL;
}

static int mode_sthreads(const char *dir, int n)
{
    tdir = dir;
    pthread_t th[64];
    for (long t = 0; t < n; t++)
        EXPECT(pthread_create(&th[t], NULL, stream_worker, (void *)t) == 0);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    return 0;
}

/* n threads (at most 96) running fn(t) while dir/<shared> is open as shared_fd. */
static int run_with_shared(const char *dir, const char *shared, int n, void *(*fn)(void *))
{
    char p[4096];
    tdir = dir;
    snprintf(p, sizeof p, "%s/%s", dir, shared);
    shared_fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    EXPECT(shared_fd >= 0);
    pthread_t th[96];
    EXPECT(n <= 96);
    for (long t = 0; t < n; t++)
        EXPECT(pthread_create(&th[t], NULL, fn, (void *)t) == 0);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    EXPECT(close(shared_fd) == 0);
    return 0;
}

static int mode_threads(const char *dir, int n)
{
    return run_with_shared(dir, "shared.dat", n, worker);
}

/* "hammer": N threads (up to 96, beyond the 64 per-thread heat maps) on one
 * shared file and a private file each, HPER rounds: a private write of 512
 * bytes, a shared pwrite of 100 at a disjoint offset, every 4th round a private
 * pread of 256, every 50th a stat of the shared path (its record found by
 * name, under the module lock, while others update it under its own), every
 * 100th an lseek, every 200th an open + close of the shared path. */
enum { HPER = 2000 };
static void *hammer_worker(void *arg)
{
    long t = (long)arg;
    char p[4096], shared[4096], buf[512];
    memset(buf, 'h', sizeof buf);
    snprintf(p, sizeof p, "%s/hammer-%ld.dat", tdir, t);
    snprintf(shared, sizeof shared, "%s/hammer-shared.dat", tdir);
    int fd = open(p, O_CREAT | O_TRUNC | O_RDWR, 0644);
    EXPECT(fd >= 0);
    for (int i = 0; i < HPER; i++) {
        EXPECT(write(fd, buf, 512) == 512);
        EXPECT(pwrite(shared_fd, buf, 100, ((off_t)t * HPER + i) * 100) == 100);
        if (i % 4 == 0)
            EXPECT(pread(fd, buf, 256, 0) == 256);
        if (i % 50 == 0) {
            struct stat st;
            EXPECT(stat(shared, &st) == 0);
        }
        if (i % 100 == 0)
            EXPECT(lseek(fd, 0, SEEK_END) == (off_t)(i + 1) * 512);
        if (i % 200 == 0) {
            int s = open(shared, O_RDONLY);
            EXPECT(s >= 0 && close(s) == 0);
        }
    }
    EXPECT(close(fd) == 0);
    return NULL;
}

static int mode_hammer(const char *dir, int n)
{
    return run_with_shared(dir, "hammer-shared.dat", n, hammer_worker);
}

/* "waves": n short-lived threads, started `wave` at a time (each wave joined
 * before the next starts): thread t writes WPER blocks of (t % 7 + 1) * 100 bytes
 * to its own file wave-<t>.dat and reads WREADS blocks of 64 bytes back.  More
 * threads than there are per-thread heat maps ever run, but never more than
 * `wave` at once. */
enum { WPER = 50, WREADS = 10 };
static void *wave_worker(void *arg)
{
    long t = (long)arg;
    char p[4096], buf[700];
    memset(buf, 'w', sizeof buf);
    snprintf(p, sizeof p, "%s/wave-%ld.dat", tdir, t);
    int fd = open(p, O_CREAT | O_TRUNC | O_RDWR, 0644);
    EXPECT(fd >= 0);
    size_t size = (size_t)(t % 7 + 1) * 100;
    for (int i = 0; i < WPER; i++)
        EXPECT(write(fd, buf, size) == (ssize_t)size);
    for (int i = 0; i < WREADS; i++)
        EXPECT(pread(fd, buf, 64, (off_t)i * 64) == 64);
    EXPECT(close(fd) == 0);
    return NULL;
}

static int mode_waves(const char *dir, int n, int wave)
{
    tdir = dir;
    pthread_t th[64];
    EXPECT(wave >= 1 && wave <= 64);
    for (long first = 0; first < n; first += wave) {
        long last = first + wave < n ? first + wave : n;
        for (long t = first; t < last; t++)
            EXPECT(pthread_create(&th[t - first], NULL, wave_worker, (void *)t) == 0);
        for (long t = first; t < last; t++)
            EXPECT(pthread_join(th[t - first], NULL) == 0);
    }
    return 0;
}

/* `n` files m.0 .. m.<n-1>, one 10-byte write each. */
static int mode_files(const char *dir, int n)
{
    char p[4096];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/m.%d", dir, i);
        int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        EXPECT(fd >= 0 && write(fd, "0123456789", 10) == 10 && close(fd) == 0);
    }
    return 0;
}

/* Access sizes: 1..127 once each to sizes.dat (more than the 32 tracked values),
 * and 5,5,5,7,7,9,9,11,11,13x4,2x4 to top.dat. */
static int mode_sizes(const char *dir)
{
    static char buf[256];
    char p[4096];
    snprintf(p, sizeof p, "%s/sizes.dat", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    EXPECT(fd >= 0);
    for (int s = 1; s <= 127; s++)
        EXPECT(write(fd, buf, s) == s);
    EXPECT(close(fd) == 0);
    static const int seq[] = {5, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 13, 13, 2, 2, 2, 2};
    snprintf(p, sizeof p, "%s/top.dat", dir);
    fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    EXPECT(fd >= 0);
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
        EXPECT(write(fd, buf, seq[i]) == seq[i]);
    EXPECT(close(fd) == 0);
    return 0;
}

/* One file written and read through plain calls (for the small end-to-end tests). */
static int mode_simple(const char *dir)
{
    char p[4096], buf[100] = {0};
    snprintf(p, sizeof p, "%s/simple.dat", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_RDWR, 0644);
    EXPECT(fd >= 0);
    for (int i = 0; i < 3; i++)
        EXPECT(write(fd, buf, 100) == 100);
    EXPECT(pread(fd, buf, 50, 0) == 50);
    EXPECT(close(fd) == 0);
    return 0;
}

/* A signal handler that does I/O while the main thread is inside wrappers: the
 * runtime must neither deadlock nor lose the main thread's counts. */
static int sig_fd;
static volatile long sig_count;
static void on_alarm(int sig)
{
    (void)sig;
    if (write(sig_fd, "s", 1) == 1)
        sig_count++;
}

static int mode_signal(const char *dir)
{
    char p[4096], buf[64] = {0};
    snprintf(p, sizeof p, "%s/signal.dat", dir);
    sig_fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    snprintf(p, sizeof p, "%s/main.dat", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    EXPECT(sig_fd >= 0 && fd >= 0);
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 200000; i++)
        EXPECT(write(fd, buf, 8) == 8);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    EXPECT(close(fd) == 0 && close(sig_fd) == 0);
    printf("%ld\n", sig_count);
    return 0;
}

/* The operation sequence of runtime spec Appendix A1 on DIR/f, then A6's
 * openat/creat cases in DIR (the test compares the counters with the spec). */
static int mode_a1(const char *dir)
{
    static char buf[512] __attribute__((aligned(8)));
    char f[4096], g[4096];
    snprintf(f, sizeof f, "%s/f", dir);
    snprintf(g, sizeof g, "%s/f.renamed", dir);
    int fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
    EXPECT(fd >= 0);
    for (int i = 0; i < 10; i++)
        EXPECT(write(fd, buf, 100) == 100);
    EXPECT(lseek(fd, 0, SEEK_SET) == 0);
    for (int i = 0; i < 10; i++)
        EXPECT(read(fd, buf, 100) == 100);
    EXPECT(read(fd, buf, 100) == 0);
    EXPECT(pwrite(fd, buf, 10, 5000) == 10);
    EXPECT(pread(fd, buf, 100, 100) == 100);
    EXPECT(pread(fd, buf, 7, 4096) == 7);
    EXPECT(pwrite(fd, buf + 1, 1, 3) == 1);
    EXPECT(fsync(fd) == 0);
    int d = dup(fd);
    EXPECT(d >= 0 && write(d, buf, 33) == 33 && close(d) == 0 && close(fd) == 0);
    struct stat st;
    EXPECT(stat(f, &st) == 0);
    FILE *fp = fopen(f, "r");
    EXPECT(fp && fileno(fp) >= 0 && fileno(fp) >= 0 && fclose(fp) == 0);
    EXPECT(rename(f, g) == 0);
    fd = open(g, O_RDWR);
    EXPECT(fd >= 0);
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = buf;
    cb.aio_nbytes = 200;
    cb.aio_offset = 0;
    EXPECT(aio_write(&cb) == 0);
    while (aio_error(&cb) == EINPROGRESS)
        ;
    EXPECT(aio_return(&cb) == 200 && close(fd) == 0);

    /* A6 (part): a directory, openat relative to it, creat, lseek + write */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    EXPECT(dfd >= 0);
    fd = openat(dfd, "at.dat", O_CREAT | O_WRONLY, 0600);
    EXPECT(fd >= 0 && write(fd, "12345", 5) == 5);
    int d2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    EXPECT(d2 >= 0 && close(d2) == 0 && close(fd) == 0 && close(dfd) == 0);
    snprintf(f, sizeof f, "%s/at3.dat", dir);
    fd = creat(f, 0640);
    EXPECT(fd >= 0 && lseek(fd, 100, SEEK_SET) == 100 && write(fd, "x", 1) == 1 && close(fd) == 0);
    return 0;
}

/* Relative names, run with the current directory = DIR (runtime spec 2.0.1). */
static int mode_paths(const char *dir)
{
    EXPECT(chdir(dir) == 0);
    EXPECT(mkdir("sub", 0755) == 0 || errno == EEXIST);
    const char *names[] = {"./x.dat", ".//y.dat", "./sub/../z.dat", "sub//./w.dat"};
    for (int i = 0; i < 4; i++) {
        int fd = open(names[i], O_CREAT | O_WRONLY, 0644);
        EXPECT(fd >= 0 && close(fd) == 0);
    }
    int fd = open(".", O_RDONLY | O_DIRECTORY);
    EXPECT(fd >= 0 && close(fd) == 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1], *dir = argv[2];
    int n = argc > 3 ? atoi(argv[3]) : 0;
    if (!strcmp(mode, "errno"))
        return mode_errno(dir);
    if (!strcmp(mode, "threads"))
        return mode_threads(dir, n > 64 ? 64 : n);
    if (!strcmp(mode, "sthreads"))
        return mode_sthreads(dir, n > 64 ? 64 : n);
    if (!strcmp(mode, "hammer"))
        return mode_hammer(dir, n > 96 ? 96 : n);
    if (!strcmp(mode, "waves"))
        return mode_waves(dir, n, argc > 4 ? atoi(argv[4]) : 8);
    if (!strcmp(mode, "files"))
        return mode_files(dir, n);
    if (!strcmp(mode, "sizes"))
        return mode_sizes(dir);
    if (!strcmp(mode, "paths"))
        return mode_paths(dir);
    if (!strcmp(mode, "a1"))
        return mode_a1(dir);
    if (!strcmp(mode, "signal"))
        return mode_signal(dir);
    if (!strcmp(mode, "simple"))
        return mode_simple(dir);
    if (!strcmp(mode, "_exit") || !strcmp(mode, "_Exit")) {   /* leave without exit() */
        mode_simple(dir);
        if (mode[1] == 'e')
            _exit(0);
        _Exit(0);
    }
    return 2;
}
