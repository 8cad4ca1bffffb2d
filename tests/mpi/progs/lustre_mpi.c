/* MPI program of the Lustre test under MPI (tests/mpi/test_mpi_lustre.py): every rank
 * writes DIR/shared.dat (a file all ranks share) and DIR/own.dat.<rank>. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int write_file(const char *path, int rank)
{
    char data[4096] = {0};
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    return fd < 0 || pwrite(fd, data, sizeof data, (off_t)rank * 4096) != 4096 || close(fd) != 0;
}

int main(int argc, char **argv)
{
    int rank, bad = 0;
    char path[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    bad |= write_file(path, rank);
    snprintf(path, sizeof path, "%s/own.dat.%d", argv[1], rank);
    bad |= write_file(path, 0);
    MPI_Finalize();
    return bad;
}
