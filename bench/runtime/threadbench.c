/* Lock contention: T threads, each N pwrite calls of 1 byte (or N lseek calls,
 * whose system call is cheaper, so the runtime's share is larger; or N fwrite
 * calls of 1 byte on a buffered stream, mostly no system call at all, so the
 * STDIO record step is nearly all of the cost) on its own file in DIR (all
 * records live in the one POSIX or STDIO module).
 * A fifth argument sets the pwrite size (default 1 byte; the offsets cycle over
 * 4096 slots of that size).
 * usage: threadbench DIR T N [pwrite|lseek|fwrite] [SIZE]
 *   -> "<T> threads: <ns per call per thread>" */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static long n;
static int use_lseek, use_fwrite;
static size_t size = 1;

static void *worker(void *arg)
{
    char p[4096], c = 'x';
    char *buf = malloc(size);
    if (!buf)
        abort();
    memset(buf, 'x', size);
    snprintf(p, sizeof p, "%s/tb-%ld.dat", dir, (long)arg);
    if (use_fwrite) {
        FILE *f = fopen(p, "w");
        if (!f)
            abort();
        for (long i = 0; i < n; i++)
            if (fwrite(&c, 1, 1, f) != 1)
                abort();
        fclose(f);
        free(buf);
        return NULL;
    }
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (pwrite(fd, &c, 1, 4096 * (off_t)size - 1) != 1)
        abort();
    for (long i = 0; i < n; i++)
        if (use_lseek ? lseek(fd, i & 4095, SEEK_SET) != (i & 4095)
                      : pwrite(fd, buf, size, (i & 4095) * (off_t)size) != (ssize_t)size)
            abort();
    close(fd);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    dir = argv[1];
    int t = atoi(argv[2]);
    n = atol(argv[3]);
    use_lseek = argc > 4 && strcmp(argv[4], "lseek") == 0;
    use_fwrite = argc > 4 && strcmp(argv[4], "fwrite") == 0;
    if (argc > 5 && atol(argv[5]) > 0)
        size = (size_t)atol(argv[5]);
    pthread_t th[64];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < t && i < 64; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < t && i < 64; i++)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%d threads: %.1f ns per call per thread\n", t,
           ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
