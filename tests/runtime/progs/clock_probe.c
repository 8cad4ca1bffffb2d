/* The runtime's clock against the program's own: N pwrites of one byte on one
 * file, `gap_ms` apart; for each, the CLOCK_MONOTONIC nanoseconds just before
 * and just after the call, one line "before after".  The runtime's readings of
 * the call lie between the two (tests/runtime/test_runtime_clock.py).
 * usage: clock_probe FILE N GAP_MS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int n = atoi(argv[2]);
    long gap_ms = atol(argv[3]);
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        long long a = mono_ns();
        if (pwrite(fd, "x", 1, i) != 1)
            return 1;
        long long b = mono_ns();
        printf("%lld %lld\n", a, b);
        struct timespec d = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
        nanosleep(&d, NULL);
    }
    close(fd);
    return 0;
}
