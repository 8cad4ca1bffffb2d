/* A job whose I/O is spread over time, for the report tests: STEPS times, every
 * PAUSE_MS milliseconds, append a 64 KiB block to DIR/paced.dat and read the
 * previous block back; one line on stdout at the end.
 * Usage: paced_io DIR STEPS PAUSE_MS */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLOCK = 64 * 1024 };

static void pause_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0) {
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: paced_io DIR STEPS PAUSE_MS\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/paced.dat", argv[1]);
    int steps = atoi(argv[2]);
    long pause = atol(argv[3]);
    static char buf[BLOCK];
    memset(buf, 'x', sizeof buf);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    for (int s = 0; s < steps; s++) {
        if (pwrite(fd, buf, BLOCK, (off_t)s * BLOCK) != BLOCK)
            return 1;
        if (s > 0 && pread(fd, buf, BLOCK, (off_t)(s - 1) * BLOCK) != BLOCK)
            return 1;
        pause_ms(pause);
    }
    close(fd);
    printf("paced_io: %d steps\n", steps);
    return 0;
}
