/* A parameterised MPI-IO writer for `iolens diff` tests: each rank writes `total`
 * bytes in `xfer`-byte MPI_File_write_at(_all) calls, then reads them back, to a
 * shared file (rank r owns blocks r, r+n, ... of each round) or to its own file.
 * usage: xfer DIR shared|fpp indep|coll XFER TOTAL */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 6) {
        fprintf(stderr, "usage: xfer DIR shared|fpp indep|coll XFER TOTAL\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int fpp = !strcmp(argv[2], "fpp"), coll = !strcmp(argv[3], "coll");
    long xfer = atol(argv[4]), total = atol(argv[5]);
    char path[4096];
    if (fpp)
        snprintf(path, sizeof path, "%s/data.%d", argv[1], rank);
    else
        snprintf(path, sizeof path, "%s/data.shared", argv[1]);
    MPI_Comm comm = fpp ? MPI_COMM_SELF : MPI_COMM_WORLD;
    MPI_File fh;
    if (MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh))
        MPI_Abort(MPI_COMM_WORLD, 1);
    char *buf = malloc((size_t)xfer);
    memset(buf, 'a' + rank % 26, (size_t)xfer);
    long rounds = total / xfer;
    for (int pass = 0; pass < 2; pass++)
        for (long i = 0; i < rounds; i++) {
            MPI_Offset off = fpp ? (MPI_Offset)(i * xfer) : (MPI_Offset)((i * n + rank) * xfer);
            MPI_Status st;
            int rc;
            if (pass == 0)
                rc = coll ? MPI_File_write_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
                          : MPI_File_write_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
            else
                rc = coll ? MPI_File_read_at_all(fh, off, buf, (int)xfer, MPI_BYTE, &st)
                          : MPI_File_read_at(fh, off, buf, (int)xfer, MPI_BYTE, &st);
            if (rc)
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
    MPI_File_close(&fh);
    free(buf);
    MPI_Finalize();
    return 0;
}
