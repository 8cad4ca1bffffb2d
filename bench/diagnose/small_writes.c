/* small vs buffered writes: every rank writes 8 MiB (x SCALE) to a file of its
 * own, in 64-byte writes (bad) or gathered in memory and written in 4 MiB
 * writes (fixed).  Expected finding: small-io. */
#include <fcntl.h>
#include <unistd.h>

#include "pair.h"

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long total = pair_scaled(&a, 8L << 20), piece = a.bad ? 64 : 4L << 20;
    char *buf = pair_buffer(piece, 'a' + a.rank);
    double t0 = pair_start();
    int fd = pair_create(&a, "small", O_WRONLY);
    for (long done = 0; done < total; done += piece) {
        long n = total - done < piece ? total - done : piece;
        if (!a.bad)
            memset(buf, 'a' + (int)(done / piece % 26), n);  /* "filling the buffer" */
        if (write(fd, buf, n) != n)
            pair_die("write");
    }
    close(fd);
    free(buf);
    return pair_finish(&a, t0);
}
