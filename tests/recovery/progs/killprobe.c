/* A workload with known I/O that ends itself in a chosen way after exactly
 * `stop` completed steps, so the test knows every operation that completed.
 *
 *   killprobe DIR NSTEPS STOP MODE [PROGRESS]
 *
 * Setup: open DIR/a (O_RDWR), fopen DIR/b.  Step i: write(a, 100 bytes),
 * pread(a, 50 bytes), fwrite(b, 10 bytes), and when i % 5 == 4 open+close DIR/c.
 * After STOP steps: MODE = kill9 | segv | abort | term | int | _exit | exec |
 * none (finish normally after NSTEPS).
 * PROGRESS (optional): a file of 8 bytes, mapped; after each operation returns,
 * its counter of returned operations is incremented, so a test that kills the
 * process at a random moment knows what had completed. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void finish(const char *mode)
{
    if (!strcmp(mode, "kill9"))
        kill(getpid(), SIGKILL);
    else if (!strcmp(mode, "segv"))
        *(volatile int *)(uintptr_t)8 = 1;
    else if (!strcmp(mode, "abort"))
        abort();
    else if (!strcmp(mode, "term"))
        kill(getpid(), SIGTERM);
    else if (!strcmp(mode, "int"))
        kill(getpid(), SIGINT);
    else if (!strcmp(mode, "_exit"))
        _exit(3);
    else if (!strcmp(mode, "exec"))
        execl("/bin/true", "true", (char *)NULL);
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6)
        return 2;
    static long dummy;
    volatile long *done = &dummy;
    if (argc == 6) {
        int pf = open(argv[5], O_RDWR);
        void *p = pf < 0 ? MAP_FAILED : mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, pf, 0);
        if (p == MAP_FAILED)
            return 2;
        done = p;
    }
    char a[4096], b[4096], c[4096], buf[100];
    snprintf(a, sizeof a, "%s/a", argv[1]);
    snprintf(b, sizeof b, "%s/b", argv[1]);
    snprintf(c, sizeof c, "%s/c", argv[1]);
    long nsteps = atol(argv[2]), stop = atol(argv[3]);
    memset(buf, 'x', sizeof buf);
    int fd = open(a, O_CREAT | O_RDWR | O_TRUNC, 0644);
    FILE *fp = fopen(b, "w");
    if (fd < 0 || !fp)
        return 2;
    for (long i = 0; i < nsteps; i++) {
        if (i == stop)
            finish(argv[4]);
        if (write(fd, buf, 100) != 100)
            return 2;
        ++*done;
        if (pread(fd, buf, 50, 0) != 50)
            return 2;
        ++*done;
        if (fwrite(buf, 1, 10, fp) != 10)
            return 2;
        ++*done;
        if (i % 5 == 4) {
            int g = open(c, O_CREAT | O_WRONLY, 0644);
            ++*done;
            close(g);
            ++*done;
        }
    }
    if (stop >= nsteps)
        finish(argv[4]);
    fclose(fp);
    close(fd);
    return 0;
}
