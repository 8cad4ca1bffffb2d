/* unaligned vs aligned: every rank writes 64 MiB (x SCALE) to a file of its own
 * in 1 MiB transfers, after a 100-byte header (bad: every transfer starts 100
 * bytes past a 1 MiB boundary) or after a header padded to 1 MiB (fixed).
 * The file is synced inside the timed phase, so the device sees the layout.
 * Expected finding: misaligned-file. */
#include <fcntl.h>
#include <unistd.h>

#include "pair.h"

#define XFER (1L << 20)

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long xfers = pair_scaled(&a, 64);
    long header = a.bad ? 100 : XFER;
    char *buf = pair_buffer(XFER, 'a' + a.rank);
    double t0 = pair_start();
    int fd = pair_create(&a, "data", O_WRONLY);
    if (pwrite(fd, buf, 100, 0) != 100)
        pair_die("pwrite header");
    for (long k = 0; k < xfers; k++)
        if (pwrite(fd, buf, XFER, header + k * XFER) != XFER)
            pair_die("pwrite");
    fsync(fd);
    close(fd);
    free(buf);
    return pair_finish(&a, t0);
}
