/* Shutdown benchmark for the MPI runtime (docs/performance.md, ## MPI).
 * usage: shutdown DIR PER_PROC SHARED
 *   every process creates PER_PROC files of its own (open, one 64-byte write,
 *   close), then all processes open the same SHARED files and write one block
 *   each; rank 0 prints the wall time of MPI_Finalize in seconds.
 * Run it with and without the runtime preloaded; the difference is the runtime's
 * shutdown (reduction + collective log write). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void touch(const char *path, off_t off)
{
    static const char buf[64];
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (pwrite(fd, buf, sizeof buf, off) != (ssize_t)sizeof buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long per = atol(argv[2]), nshared = atol(argv[3]);
    char path[4096];
    for (long i = 0; i < per; i++) {
        snprintf(path, sizeof path, "%s/p%d-%ld", argv[1], rank, i);
        touch(path, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < nshared; i++) {
        snprintf(path, sizeof path, "%s/s%ld", argv[1], i);
        touch(path, (off_t)rank * 64);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    MPI_Finalize();
    if (rank == 0)
        printf("%.6f\n", now() - t);
    return 0;
}
