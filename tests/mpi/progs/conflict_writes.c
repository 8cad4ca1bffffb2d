/* Two or more ranks write one shared file with pwrite.
 *   overlap:  rank r writes 1 MiB at r * 512 KiB - neighbours overlap by half -
 *             and every rank closes only after a barrier that follows all the
 *             writes, so no close or sync orders them: a conflict.
 *   disjoint: rank r writes 1 MiB at r * 1 MiB: no conflict.
 *   ordered:  the same overlap, but each rank writes, fsyncs and closes in turn,
 *             a barrier between turns: ordered, no conflict.
 * usage: conflict_writes WORKDIR MODE */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)

/* sync: fsync before closing; hold: a barrier between the write and the close */
static int write_block(const char *path, int rank, off_t offset, int sync, int hold)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return 1;
    char *buf = malloc(BLOCK);
    if (!buf)
        return 1;
    memset(buf, 'a' + rank, BLOCK);
    int bad = pwrite(fd, buf, BLOCK, offset) != BLOCK;
    if (sync)
        bad |= fsync(fd) != 0;
    if (hold) {
        MPI_Barrier(MPI_COMM_WORLD);
        /* Closes well after every write: the rule compares one rank's close with
         * another rank's write, and on a loaded machine the ranks' clocks (their
         * start times) may differ by tens of ms, which once placed a close of the
         * reduced record between two writes that no close separated. */
        usleep(500000);
    }
    bad |= close(fd) != 0;
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        MPI_Finalize();
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    const char *mode = argv[2];
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "ordered") == 0) {
        for (int turn = 0; turn < size; turn++) {
            if (turn == rank)
                bad |= write_block(path, rank, (off_t)rank * BLOCK / 2, 1, 0);
            MPI_Barrier(MPI_COMM_WORLD);
            /* The next turn's write well after this close: the ranks' clocks (their
             * start times) may differ by tens of ms (see write_block), which once
             * put rank 1's write before rank 0's close under MPICH. */
            usleep(500000);
        }
    } else {
        off_t step = strcmp(mode, "disjoint") == 0 ? BLOCK : BLOCK / 2;
        bad |= write_block(path, rank, (off_t)rank * step, 0, 1);
    }
    MPI_Finalize();
    return bad;
}
