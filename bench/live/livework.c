/* One process of the live-view benchmark: creates FILES files in DIR (one
 * record each), then for SECONDS seconds every 100 ms writes 1 KiB to 10 of them
 * (round robin), so that each round of a live reader finds 100 records changed
 * per process.  usage: livework DIR FILES SECONDS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int nfiles = atoi(argv[2]);
    double seconds = atof(argv[3]);
    char path[4096], buf[1024] = {0};
    int *fds = calloc((size_t)nfiles, sizeof *fds);
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/f%d-%d", argv[1], (int)getpid(), i);
        fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fds[i] < 0)
            return 1;
    }
    long rounds = (long)(seconds * 10);
    for (long r = 0, next = 0; r < rounds; r++) {
        for (int k = 0; k < 10; k++, next = (next + 1) % nfiles)
            if (pwrite(fds[next], buf, sizeof buf, 0) != (ssize_t)sizeof buf)
                return 1;
        usleep(100000);
    }
    for (int i = 0; i < nfiles; i++) {
        close(fds[i]);
        snprintf(path, sizeof path, "%s/f%d-%d", argv[1], (int)getpid(), i);
        unlink(path);
    }
    return 0;
}
