/* Per-operation cost of the runtime: N calls of each operation on a file in DIR.
 * usage: opbench DIR N   -> lines "<op> <wall ns per op> <thread-CPU ns per op>
 *                                   <minor page faults per op>"
 *        opbench DIR N only OP... -> the same for the named operations only (after
 *                               the same set-up: 256 writes of 4 KiB to the file)
 *        opbench DIR N files -> create N files of 10 bytes (memory measurement)
 *        opbench DIR N faults -> "faults <wall ns> <thread-CPU ns>" per first touch of
 *                               each of N pages of a fresh anonymous mapping (the
 *                               cost a trace pays every 4 KiB of segments)
 * Each operation runs in its own non-inlined function (bench_<op>) so that
 * callgrind can attribute instructions per operation (--toggle-collect). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char path[4096];
static char buf[4096];
static long n;
static int fd;
static FILE *fp;

#define NOINLINE __attribute__((noinline))
NOINLINE void bench_pwrite1(void) { for (long i = 0; i < n; i++) if (pwrite(fd, buf, 1, i & 4095) != 1) abort(); }
NOINLINE void bench_pread1(void) { for (long i = 0; i < n; i++) if (pread(fd, buf, 1, i & 4095) != 1) abort(); }
NOINLINE void bench_write4k(void)
{
    for (long i = 0; i < n; i++) {
        if ((i & 255) == 0)
            lseek(fd, 0, SEEK_SET);
        if (write(fd, buf, 4096) != 4096)
            abort();
    }
}
NOINLINE void bench_read4k(void)
{
    for (long i = 0; i < n; i++) {
        if ((i & 255) == 0)
            lseek(fd, 0, SEEK_SET);
        if (read(fd, buf, 4096) != 4096)
            abort();
    }
}
NOINLINE void bench_lseek(void) { for (long i = 0; i < n; i++) if (lseek(fd, i & 4095, SEEK_SET) < 0) abort(); }
NOINLINE void bench_stat(void)
{
    struct stat st;
    for (long i = 0; i < n; i++)
        if (stat(path, &st) != 0)
            abort();
}
NOINLINE void bench_openclose(void)
{
    for (long i = 0; i < n; i++) {
        int f = open(path, O_RDONLY);
        if (f < 0 || close(f) != 0)
            abort();
    }
}
NOINLINE void bench_fwrite1(void)
{
    for (long i = 0; i < n; i++) {
        if ((i & 4095) == 0)
            rewind(fp);
        if (fwrite(buf, 1, 1, fp) != 1)
            abort();
    }
}
NOINLINE void bench_fread1(void)
{
    for (long i = 0; i < n; i++) {
        if ((i & 4095) == 0)
            rewind(fp);
        if (fread(buf, 1, 1, fp) != 1)
            abort();
    }
}

static double now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int nonly;
static char **only;

/* Thread CPU time leaves out preemption (steadier on a loaded machine). */
static void timed(const char *name, void (*fn)(void))
{
    int run = nonly == 0;
    for (int i = 0; i < nonly; i++)
        run |= !strcmp(only[i], name);
    if (!run)
        return;
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double c = now(CLOCK_THREAD_CPUTIME_ID), t = now(CLOCK_MONOTONIC);
    fn();
    t = now(CLOCK_MONOTONIC) - t;
    c = now(CLOCK_THREAD_CPUTIME_ID) - c;
    getrusage(RUSAGE_SELF, &r1);
    printf("%s %.1f %.1f %.5f\n", name, t * 1e9 / n, c * 1e9 / n,
           (double)(r1.ru_minflt - r0.ru_minflt) / n);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    n = atol(argv[2]);
    if (argc > 3 && !strcmp(argv[3], "files")) {
        for (long i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/f%ld", argv[1], i);
            int f = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            if (f < 0 || write(f, "0123456789", 10) != 10 || close(f) != 0)
                return 1;
        }
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "faults")) {
        volatile char *m = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
            return 1;
        double c = now(CLOCK_THREAD_CPUTIME_ID), t = now(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++)
            m[i * 4096] = 1;
        t = now(CLOCK_MONOTONIC) - t;
        c = now(CLOCK_THREAD_CPUTIME_ID) - c;
        printf("faults %.1f %.1f\n", t * 1e9 / n, c * 1e9 / n);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "only")) {
        nonly = argc - 4;
        only = argv + 4;
        if (nonly == 0)
            return 2;
    }
    snprintf(path, sizeof path, "%s/opbench.dat", argv[1]);
    fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 256; i++)
        if (write(fd, buf, 4096) != 4096)
            return 1;
    timed("pwrite_1B", bench_pwrite1);
    timed("pread_1B", bench_pread1);
    timed("write_4KiB", bench_write4k);
    timed("read_4KiB", bench_read4k);
    timed("lseek", bench_lseek);
    timed("stat", bench_stat);
    timed("open+close", bench_openclose);
    close(fd);
    char p2[4200];
    snprintf(p2, sizeof p2, "%s/opbench.stdio", argv[1]);
    fp = fopen(p2, "w+");
    if (!fp)
        return 1;
    if (nonly && fwrite(buf, 1, 4096, fp) != 4096)   /* fread without fwrite first */
        return 1;
    timed("fwrite_1B", bench_fwrite1);
    fflush(fp);
    timed("fread_1B", bench_fread1);
    fclose(fp);
    return 0;
}
