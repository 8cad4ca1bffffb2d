/* MPI job that dies before its end.  Every rank writes STEPS x 1000 bytes to its
 * own file r<rank> and 100 bytes per step to its block of the common file
 * `shared`, then:
 *   kill  : rank 1 kills itself with SIGKILL, the others wait in MPI_Barrier
 *           until the launcher takes the job down;
 *   abort : rank 0 calls MPI_Abort while the others wait in MPI_Barrier;
 *   return: rank 1 returns from main without MPI_Finalize while the others
 *           wait in MPI_Barrier (the launcher then ends the job).
 * usage: mpikill DIR STEPS kill|abort|return */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Every rank is past MPI_Init before any dies: MPICH's launcher takes the job
     * down as soon as one rank leaves, and a rank still inside MPI_Init then
     * never starts the runtime at all. */
    MPI_Barrier(MPI_COMM_WORLD);
    long steps = atol(argv[2]);
    char path[4096], buf[1000];
    memset(buf, 'm', sizeof buf);
    snprintf(path, sizeof path, "%s/r%d", argv[1], rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    int sh = open(path, O_CREAT | O_WRONLY, 0644);
    for (long i = 0; i < steps; i++) {
        if (write(fd, buf, 1000) != 1000 || pwrite(sh, buf, 100, (rank * steps + i) * 100) != 100)
            return 2;
    }
    if (!strcmp(argv[3], "kill") && rank == 1)
        kill(getpid(), SIGKILL);
    if (!strcmp(argv[3], "return")) {
        /* Every rank's writes are done before rank 1 leaves: MPICH's launcher ends
         * the other ranks as soon as it has gone. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            close(fd);
            close(sh);
            return 0;
        }
    }
    if (!strcmp(argv[3], "abort") && rank == 0) {
        sleep(1);                        /* the others are in the barrier */
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
