/* random vs sorted reads: every rank writes a 64 MiB (x SCALE) file of its own,
 * syncs it and drops it from the page cache (untimed), then reads the same
 * 16 KiB pieces in a random order (bad) or sorted by offset (fixed).
 * Expected finding: random-access. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "pair.h"

#define PIECE 16384

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long pieces = pair_scaled(&a, (64L << 20) / PIECE);
    char *buf = pair_buffer(PIECE, 'a' + a.rank);
    int fd = pair_create(&a, "input", O_RDWR);
    for (long k = 0; k < pieces; k++)
        if (write(fd, buf, PIECE) != PIECE)
            pair_die("write");
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);   /* read from the device, not memory */
    long *order = malloc(pieces * sizeof *order);
    if (!order)
        pair_die("malloc");
    for (long k = 0; k < pieces; k++)
        order[k] = k;
    if (a.bad) {
        srand(7 + a.rank);
        for (long k = pieces - 1; k > 0; k--) {
            long j = rand() % (k + 1), t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
    }
    double t0 = pair_start();
    for (long k = 0; k < pieces; k++)
        if (pread(fd, buf, PIECE, (off_t)order[k] * PIECE) != PIECE)
            pair_die("pread");
    close(fd);
    free(order);
    free(buf);
    return pair_finish(&a, t0);
}
