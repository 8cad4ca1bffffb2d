/* Writer hammer for the live-snapshot test: T threads, thread t writes
 * K_t = 1 + 7t bytes per pwrite to its own file live-hammer-<t> (so in every
 * consistent POSIX record BYTES_WRITTEN == WRITES * K_t), plus every 64th call a
 * write to the shared file live-hammer-shared of 3 bytes, for SECONDS seconds.
 * usage: hammer DIR THREADS SECONDS */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static double seconds;
static int shared_fd;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *hammer(void *arg)
{
    int t = (int)(long)arg;
    char path[4096], buf[256] = {0};
    snprintf(path, sizeof path, "%s/live-hammer-%d", dir, t);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return NULL;
    size_t k = 1 + 7 * (size_t)t;
    double end = now() + seconds;
    for (long i = 0; now() < end; i++) {
        if (pwrite(fd, buf, k, (i % 1024) * (off_t)k) != (ssize_t)k)
            break;
        if (i % 64 == 0 && pwrite(shared_fd, buf, 3, 0) != 3)
            break;
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    dir = argv[1];
    int n = atoi(argv[2]);
    seconds = atof(argv[3]);
    char path[4096];
    snprintf(path, sizeof path, "%s/live-hammer-shared", dir);
    shared_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pthread_t th[64];
    for (int t = 0; t < n && t < 64; t++)
        pthread_create(&th[t], NULL, hammer, (void *)(long)t);
    for (int t = 0; t < n && t < 64; t++)
        pthread_join(th[t], NULL);
    close(shared_fd);
    return 0;
}
