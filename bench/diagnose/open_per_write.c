/* open-per-write vs open-once: every rank appends 20000 (x SCALE) records of
 * 4 KiB to a file of its own, opening and closing the file around every write
 * (bad) or once (fixed).  Expected finding: open-close (metadata-time too). */
#include <fcntl.h>
#include <unistd.h>

#include "pair.h"

#define RECORD 4096

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long records = pair_scaled(&a, 20000);
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.%d", a.dir, a.rank);
    char *buf = pair_buffer(RECORD, 'a' + a.rank);
    double t0 = pair_start();
    int fd = -1;
    for (long k = 0; k < records; k++) {
        if (fd < 0 && (fd = open(path, O_WRONLY | O_CREAT | (k ? 0 : O_TRUNC), 0644)) < 0)
            pair_die("open");
        if (pwrite(fd, buf, RECORD, (off_t)k * RECORD) != RECORD)
            pair_die("pwrite");
        if (a.bad) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return pair_finish(&a, t0);
}
