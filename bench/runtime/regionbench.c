/* Cost of regions (docs/regions.md, docs/performance.md "Regions"), run by hand:
 *   cc -O2 -Iinclude bench/runtime/regionbench.c -o rb
 *   LD_PRELOAD=build/src/runtime/libiolens.so DARSHAN_ENABLE_NONMPI=1 ./rb DIR N
 * prints "<case> <wall ns per call>" for
 *   pair        N iolens_region_begin/iolens_region_end pairs of one name
 *   pair_nested the same inside an open region (depth 2)
 *   pwrite_out  N 1-byte pwrites with no region open
 *   pwrite_in   N 1-byte pwrites inside a region (the attribution's cost)
 * Each case runs in its own non-inlined function (callgrind --toggle-collect). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "iolens/annotate.h"

static long n;
static int fd;
static char buf[1];

#define NOINLINE __attribute__((noinline))
NOINLINE void bench_pair(void)
{
    for (long i = 0; i < n; i++) {
        iolens_region_begin("load batch");
        iolens_region_end("load batch");
    }
}
static inline void pwrites(void)
{
    for (long i = 0; i < n; i++)
        if (pwrite(fd, buf, 1, i & 4095) != 1)
            abort();
}
NOINLINE void bench_pwrite_out(void) { pwrites(); }
NOINLINE void bench_pwrite_in(void) { pwrites(); }

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void timed(const char *what, void (*fn)(void))
{
    double t0 = now_ns();
    fn();
    printf("%s %.1f\n", what, (now_ns() - t0) / (double)n);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/regionbench.dat", argv[1]);
    n = atol(argv[2]);
    fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    bench_pair();                           /* warm: the name's slot and record exist */
    timed("pair", bench_pair);
    iolens_region_begin("epoch");
    timed("pair_nested", bench_pair);
    iolens_region_end("epoch");
    timed("pwrite_out", bench_pwrite_out);
    iolens_region_begin("epoch");
    timed("pwrite_in", bench_pwrite_in);
    iolens_region_end("epoch");
    close(fd);
    unlink(path);
    return 0;
}
