/* A traced MPI job in which one rank kills itself (tests/recovery/test_recovery_dxt.py).
 *
 *   dxt_mpi DIR N M VICTIM
 *
 * Every rank opens DIR/shared with MPI_File_open on MPI_COMM_WORLD and its own
 * DIR/posix-<rank> with open().  Step i (0-based): MPI_File_write_at(shared,
 * offset (rank * M + i) * 4096, 100 + 37 i bytes of MPI_BYTE), then write(own file,
 * 10 + i bytes).  Rank VICTIM does N steps, every other rank M; all then meet in
 * MPI_Barrier, after which VICTIM raises SIGKILL and the others wait in a second
 * barrier until the launcher takes the job down. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 5)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long n = atol(argv[2]), m = atol(argv[3]);
    int victim = atoi(argv[4]);
    char path[4096];
    memset(buf, 'm', sizeof buf);
    MPI_File fh;
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof path, "%s/posix-%d", argv[1], rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long steps = rank == victim ? n : m;
    for (long i = 0; i < steps; i++) {
        MPI_Offset off = (MPI_Offset)(rank * m + i) * 4096;
        if (MPI_File_write_at(fh, off, buf, (int)(100 + 37 * i), MPI_BYTE, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS ||
            write(fd, buf, (size_t)(10 + i)) != 10 + i)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim)
        raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_close(&fh);
    close(fd);
    MPI_Finalize();
    return 0;
}
