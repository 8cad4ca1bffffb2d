/* DXT triggers under MPI (tests/mpi/test_mpi_dxt.py), all writes through MPI-IO.
 * usage: dxt_triggers DIR    (rank r; at least 2 processes)
 *   small-<r>.dat  (MPI_COMM_SELF)  200 MPI_File_write of 10 bytes
 *   big-<r>.dat    (MPI_COMM_SELF)  4 MPI_File_write of 100 KiB, then one of 10 bytes
 *   mixed.dat      (MPI_COMM_WORLD) rank 0: 4 write_at of 10 bytes;
 *                  other ranks: 4 write_at of 100 KiB and one of 10 bytes
 *   allsmall.dat   (MPI_COMM_WORLD) every rank: 4 write_at of 10 bytes at 40r + 10i
 * With DARSHAN_DXT_SMALL_IO_TRIGGER=0.5 a process keeps a file's traces when at
 * least half of its own operations on it are small (< 10 KiB): small-<r>.dat,
 * allsmall.dat and rank 0's mixed.dat (all of the job's operations on mixed.dat taken together,
 * 4 + (P-1) small out of 4 + 5(P-1), are not). */
#include <mpi.h>
#include <stdio.h>

#define BIG (100 * 1024)

static char buf[BIG];

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "dxt_triggers: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static MPI_File open_in(MPI_Comm comm, const char *dir, const char *name)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    check(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), path);
    return fh;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = argc > 1 ? argv[1] : ".";
    char name[64];
    MPI_File fh;

    snprintf(name, sizeof name, "small-%d.dat", rank);
    fh = open_in(MPI_COMM_SELF, dir, name);
    for (int i = 0; i < 200; i++)
        check(MPI_File_write(fh, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE), "write small");
    check(MPI_File_close(&fh), "close small");

    snprintf(name, sizeof name, "big-%d.dat", rank);
    fh = open_in(MPI_COMM_SELF, dir, name);
    for (int i = 0; i < 4; i++)
        check(MPI_File_write(fh, buf, BIG, MPI_BYTE, MPI_STATUS_IGNORE), "write big");
    check(MPI_File_write(fh, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE), "write big 10");
    check(MPI_File_close(&fh), "close big");

    fh = open_in(MPI_COMM_WORLD, dir, "mixed.dat");
    MPI_Offset base = (MPI_Offset)rank * 5 * BIG;
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            check(MPI_File_write_at(fh, base + 10 * i, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE),
                  "write_at small");
    } else {
        for (int i = 0; i < 4; i++)
            check(MPI_File_write_at(fh, base + (MPI_Offset)i * BIG, buf, BIG, MPI_BYTE,
                                    MPI_STATUS_IGNORE), "write_at big");
        check(MPI_File_write_at(fh, base + 4 * BIG, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE),
              "write_at 10");
    }
    check(MPI_File_close(&fh), "close mixed");

    fh = open_in(MPI_COMM_WORLD, dir, "allsmall.dat");
    for (int i = 0; i < 4; i++)
        check(MPI_File_write_at(fh, 40 * rank + 10 * i, buf, 10, MPI_BYTE, MPI_STATUS_IGNORE),
              "write_at allsmall");
    check(MPI_File_close(&fh), "close allsmall");
    MPI_Finalize();
    return 0;
}
