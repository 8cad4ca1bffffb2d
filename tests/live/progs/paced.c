/* Known I/O spread over time, for a scraper to watch: opens DIR/paced, waits
 * DELAY seconds (the file's record exists with 0 bytes), writes BYTES bytes in
 * 20 steps over SPREAD seconds, then waits until DIR/go exists (at most 60 s).
 * usage: paced DIR BYTES DELAY SPREAD */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    char path[4096], go[4096];
    static char buf[1 << 20];
    snprintf(path, sizeof path, "%s/paced", argv[1]);
    snprintf(go, sizeof go, "%s/go", argv[1]);
    long total = atol(argv[2]);
    double delay = atof(argv[3]), spread = atof(argv[4]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 1;
    usleep((useconds_t)(delay * 1e6));
    long step = total / 20, done = 0;
    for (int i = 0; i < 20; i++) {
        long n = i == 19 ? total - done : step;
        for (long left = n; left > 0;) {
            size_t k = left < (long)sizeof buf ? (size_t)left : sizeof buf;
            if (write(fd, buf, k) != (ssize_t)k)
                return 1;
            left -= (long)k;
        }
        done += n;
        usleep((useconds_t)(spread / 20 * 1e6));
    }
    close(fd);
    for (int i = 0; i < 600 && access(go, F_OK) != 0; i++)
        usleep(100000);
    return 0;
}
