/* The MPI twin of steady.c: rank r writes (r + 1) * BYTES bytes to
 * DIR/steady-mpi-<r>, then all ranks wait until DIR/go exists (at most 60 s,
 * rank 0 looks, then a barrier) and finalize.  usage: steady_mpi DIR BYTES */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096], go[4096], buf[1000] = {0};
    snprintf(path, sizeof path, "%s/steady-mpi-%d", argv[1], rank);
    snprintf(go, sizeof go, "%s/go", argv[1]);
    long left = (rank + 1) * atol(argv[2]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    for (off_t off = 0; fd >= 0 && left > 0;) {
        size_t n = left < 1000 ? (size_t)left : 1000;
        if (pwrite(fd, buf, n, off) != (ssize_t)n)
            break;
        off += n;
        left -= n;
    }
    close(fd);
    if (rank == 0)
        for (int i = 0; i < 600 && access(go, F_OK) != 0; i++)
            usleep(100000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
