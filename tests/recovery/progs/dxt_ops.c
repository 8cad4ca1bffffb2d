/* A traced workload that runs a given list of POSIX operations on three files
 * and can kill itself after exactly STOP of them (tests/recovery/test_recovery_dxt.py).
 *
 *   dxt_ops DIR STOP LOOP PROGRESS OP...
 *
 * DIR/a, DIR/b, DIR/c must exist and be large enough for every read (the test
 * fills them before the run); they are opened O_RDWR, without truncation.
 * OP is <file><kind><len>[@<off>]: file a|b|c; kind w = write(len), p =
 * pwrite(len, off), r = read(len).  Each call must move all len bytes (else exit 2).
 * STOP >= 0: raise(SIGKILL) once STOP operations have returned (0: before the
 * first).  STOP < 0: never.
 * LOOP = 1: run the list over and over (until killed), with lseek(fd, 0,
 * SEEK_SET) on the three files before each pass and a 20 us pause after each
 * operation; LOOP = 0: run it once, then close the files and exit 0.
 * PROGRESS: "-" or a file of >= 8 bytes, opened with the raw syscall (untraced)
 * and mapped; its 64-bit counter is incremented after each operation returns, so a
 * test that kills the process from outside knows what had completed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    long stop = atol(argv[2]);
    int loop = atoi(argv[3]);
    static volatile uint64_t dummy;
    volatile uint64_t *done = &dummy;
    if (strcmp(argv[4], "-") != 0) {
        int pf = (int)syscall(SYS_openat, AT_FDCWD, argv[4], O_RDWR);
        void *p = pf < 0 ? MAP_FAILED : mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, pf, 0);
        if (p == MAP_FAILED)
            return 2;
        done = p;
    }
    int fd[3];
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%c", argv[1], 'a' + i);
        if ((fd[i] = open(path, O_RDWR)) < 0)
            return 2;
    }
    memset(buf, 'd', sizeof buf);
    long count = 0;
    struct timespec pause = {0, 20000};
    do {
        if (loop)
            for (int i = 0; i < 3; i++)
                if (lseek(fd[i], 0, SEEK_SET) != 0)
                    return 2;
        for (int k = 5; k < argc; k++) {
            if (count == stop)
                raise(SIGKILL);
            const char *op = argv[k];
            int f = op[0] - 'a';
            char kind = op[1];
            char *at = NULL;
            long len = strtol(op + 2, &at, 10);
            long off = *at == '@' ? atol(at + 1) : -1;
            if (f < 0 || f > 2 || len <= 0 || len > (long)sizeof buf)
                return 2;
            ssize_t r = kind == 'w'   ? write(fd[f], buf, (size_t)len)
                        : kind == 'p' ? pwrite(fd[f], buf, (size_t)len, off)
                        : kind == 'r' ? read(fd[f], buf, (size_t)len)
                                      : -1;
            if (r != len)
                return 2;
            ++*done;
            count++;
            if (loop)
                nanosleep(&pause, NULL);
        }
    } while (loop);
    if (count == stop)
        raise(SIGKILL);
    for (int i = 0; i < 3; i++)
        close(fd[i]);
    return 0;
}
