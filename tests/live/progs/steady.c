/* A process with known I/O that then waits, so that a live reader can look at
 * it: writes BYTES bytes (in 1000-byte pwrites, then the rest) to DIR/steady-<tag>,
 * stats it twice, then waits until DIR/go exists (at most 60 s) and exits.
 * usage: steady DIR TAG BYTES */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    char path[4096], go[4096], buf[1000] = {0};
    snprintf(path, sizeof path, "%s/steady-%s", argv[1], argv[2]);
    snprintf(go, sizeof go, "%s/go", argv[1]);
    long left = atol(argv[3]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 1;
    for (off_t off = 0; left > 0;) {
        size_t n = left < 1000 ? (size_t)left : 1000;
        if (pwrite(fd, buf, n, off) != (ssize_t)n)
            return 1;
        off += n;
        left -= n;
    }
    close(fd);
    struct stat st;
    stat(path, &st);
    stat(path, &st);
    for (int i = 0; i < 600 && access(go, F_OK) != 0; i++)
        usleep(100000);
    return 0;
}
