/* Program of the Lustre end-to-end test (test_runtime_lustre.py): for each file
 * argument, write 4 KiB and close, twice (so a layout that changed between the
 * closes is read again); a name ending in ".stdio" is written through fopen/
 * fwrite/fclose instead.  `lustre_probe --threads N DIR`: N threads at once, each
 * 100 times writing and closing DIR/shared.dat and its own DIR/thread-<t>.dat (and
 * every tenth time a stream DIR/thread-<t>.stdio).  Exit status 0 when every call
 * succeeded.  With LUSTRE_PROBE_RANDOM set, first prints "random=<first value of
 * the unseeded random()>" (the runtime must not have changed the sequence).  With
 * LUSTRE_PROBE_KILL set, the program kills itself with SIGKILL once every file is
 * closed (the log must then be recovered from the safety copy). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int posix_file(const char *path, const char *data)
{
    for (int round = 0; round < 2; round++) {
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        if (fd < 0 || pwrite(fd, data, 4096, 4096 * round) != 4096 || close(fd) != 0)
            return 1;
    }
    return 0;
}

static int stdio_file(const char *path, const char *data)
{
    FILE *f = fopen(path, "w");
    return !f || fwrite(data, 1, 4096, f) != 4096 || fclose(f) != 0;
}

static char data[4096];
static const char *dir;

static void *thread_main(void *arg)
{
    long t = (long)arg, bad = 0;
    char own[4096], shared[4096], stream[4096];
    snprintf(own, sizeof own, "%s/thread-%ld.dat", dir, t);
    snprintf(stream, sizeof stream, "%s/thread-%ld.stdio", dir, t);
    snprintf(shared, sizeof shared, "%s/shared.dat", dir);
    for (int i = 0; i < 100; i++) {
        int fd = open(i % 2 ? own : shared, O_WRONLY | O_CREAT, 0644);
        bad |= fd < 0 || pwrite(fd, data, 64, 64 * t) != 64 || close(fd) != 0;
        if (i % 10 == 0)
            bad |= stdio_file(stream, data);
    }
    return (void *)bad;
}

static int threads(int n)
{
    pthread_t tid[64];
    long bad = 0;
    n = n < 1 ? 1 : n > 64 ? 64 : n;
    for (long t = 0; t < n; t++)
        if (pthread_create(&tid[t], NULL, thread_main, (void *)t) != 0)
            return 1;
    for (int t = 0; t < n; t++) {
        void *r;
        pthread_join(tid[t], &r);
        bad |= (long)r;
    }
    return bad != 0;
}

int main(int argc, char **argv)
{
    memset(data, 'x', sizeof data);
    if (getenv("LUSTRE_PROBE_RANDOM"))
        printf("random=%ld\n", random());
    if (argc == 4 && strcmp(argv[1], "--threads") == 0) {
        dir = argv[3];
        return threads(atoi(argv[2]));
    }
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        int is_stdio = n > 6 && strcmp(argv[i] + n - 6, ".stdio") == 0;
        bad |= is_stdio ? stdio_file(argv[i], data) : posix_file(argv[i], data);
    }
    if (getenv("LUSTRE_PROBE_KILL") && !bad)
        raise(SIGKILL);
    return bad;
}
