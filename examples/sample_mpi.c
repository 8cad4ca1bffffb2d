/* A small MPI program with a typical parallel I/O mix, used by the README's main
 * command: every process writes its block of a shared file with a collective
 * MPI-IO write, reads it back independently, and appends a few lines to a
 * per-process text log with stdio.  Usage: mpiexec -n N sample_mpi DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 1 << 20, STEPS = 8 };

static int shared_file_io(const char *path, int rank, char *buf)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        return -1;
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int s = 0; s < STEPS; s++) {
        MPI_Offset off = ((MPI_Offset)s * nprocs + rank) * BLOCK;
        MPI_File_write_at_all(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    /* MPI-IO's consistency rule for reading what other processes wrote: sync,
     * barrier, sync.  A collective write may leave a block to another process
     * (an aggregator) that has not written it yet; without this the reads can
     * run past the file's end and count fewer bytes from run to run. */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    for (int s = 0; s < STEPS; s++) {
        MPI_Offset off = ((MPI_Offset)s * nprocs + rank) * BLOCK;
        MPI_File_read_at(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    return MPI_File_close(&fh) == MPI_SUCCESS ? 0 : -1;
}

static int rank_log(const char *dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.log", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int s = 0; s < STEPS; s++)
        fprintf(f, "rank %d step %d done\n", rank, s);
    return fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    char *buf = malloc(BLOCK);
    memset(buf, 'a' + rank % 26, BLOCK);
    int rc = shared_file_io(path, rank, buf) || rank_log(argv[1], rank);
    free(buf);
    if (rank == 0)
        printf("sample_mpi: %s\n", rc ? "I/O failed" : "done");
    MPI_Finalize();
    return rc;
}
