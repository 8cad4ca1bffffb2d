/* Test driver for the runtime's behaviour tests: one program, one mode per test.
 * Exits 0 when its own checks pass (each mode states what it checks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPECT(cond)                                                              \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: expectation failed: %s (errno %d)\n", __FILE__, \
                    __LINE__, #cond, errno);                                      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

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

static int mode_threads(const char *dir, int n)
{
    char p[4096];
    tdir = dir;
    snprintf(p, sizeof p, "%s/shared.dat", dir);
    shared_fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    EXPECT(shared_fd >= 0);
    pthread_t th[64];
    for (long t = 0; t < n; t++)
        EXPECT(pthread_create(&th[t], NULL, worker, (void *)t) == 0);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    EXPECT(close(shared_fd) == 0);
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
    if (!strcmp(mode, "files"))
        return mode_files(dir, n);
    if (!strcmp(mode, "sizes"))
        return mode_sizes(dir);
    if (!strcmp(mode, "simple"))
        return mode_simple(dir);
    return 2;
}
