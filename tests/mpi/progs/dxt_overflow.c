/* A DXT trace that outgrows its 2 MiB budget under MPI (tests/mpi/test_mpi_dxt.py).
 * usage: dxt_overflow DIR N    (at least 3 processes)
 *   rank 1       N one-byte write()s to big-posix.dat (offsets 0..N-1)
 *   rank 2       N one-byte MPI_File_write_at to big-mpiio.dat (MPI_COMM_SELF),
 *                explicit offsets 0..N-1
 *   other ranks  100 one-byte write()s to small-<r>.dat
 *   then all     one write_at_all of 4096 bytes at r x 4096 to shared.dat */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "dxt_overflow: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void posix_writes(const char *dir, const char *name, long n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0, "open");
    for (long i = 0; i < n; i++)
        check(write(fd, "x", 1) == 1, "write");
    check(close(fd) == 0, "close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = argc > 1 ? argv[1] : ".";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    char path[4096], name[64];
    MPI_File fh;

    if (rank == 1) {
        posix_writes(dir, "big-posix.dat", n);
    } else if (rank == 2) {
        snprintf(path, sizeof path, "%s/big-mpiio.dat", dir);
        check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                            &fh) == MPI_SUCCESS, "open big-mpiio");
        for (long i = 0; i < n; i++)
            check(MPI_File_write_at(fh, i, "y", 1, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "write_at");
        check(MPI_File_close(&fh) == MPI_SUCCESS, "close big-mpiio");
    } else {
        snprintf(name, sizeof name, "small-%d.dat", rank);
        posix_writes(dir, name, 100);
    }

    static char buf[4096];
    snprintf(path, sizeof path, "%s/shared.dat", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "open shared");
    check(MPI_File_write_at_all(fh, (MPI_Offset)rank * 4096, buf, 4096, MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at_all");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "close shared");
    MPI_Finalize();
    return 0;
}
