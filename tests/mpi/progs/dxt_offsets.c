/* DXT_MPIIO offsets and lengths (tests/mpi/test_mpi_dxt.py).
 * usage: dxt_offsets DIR    (any number of processes; rank r below)
 *
 * offsets.dat, opened on MPI_COMM_WORLD, view: displacement 1000, etype and
 * filetype MPI_INT (a byte offset is 1000 + 4 x the offset in etypes):
 *   write_at       off 10+100r, 5 ints            -> byte 1000+4(10+100r), 20 B
 *   write_at_all   off 500+7r, 3 ints             -> byte 1000+4(500+7r), 12 B
 *   seek 50+10r; write 2 ints (twice)             -> bytes 1000+4(50+10r), 1000+4(52+10r), 8 B
 *   write_all      1 int (pointer at 54+10r)      -> byte 1000+4(54+10r), 4 B
 *   iwrite_at      off 300+r, 6 ints              -> byte 1000+4(300+r), 24 B
 *   read_at        off 10+100r, 5 ints            -> read, byte 1000+4(10+100r), 20 B
 *   seek 50+10r; read 2 ints                      -> read, byte 1000+4(50+10r), 8 B
 *   write_shared   3 ints                         -> -1, 12 B
 *   write_ordered  4 ints                         -> -1, 16 B
 * types.dat, opened on MPI_COMM_SELF as types-<r>.dat, default view (bytes):
 *   write_at off 777, 2 x contiguous(3 doubles)   -> byte 777, 48 B
 *   write_at off 5000, 7 shorts                   -> byte 5000, 14 B */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "dxt_offsets: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    int ibuf[64] = {0};
    double dbuf[64] = {0};
    short sbuf[64] = {0};
    MPI_File fh;
    MPI_Request req;

    snprintf(path, sizeof path, "%s/offsets.dat", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          "open offsets");
    check(MPI_File_set_view(fh, 1000, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_at(fh, 10 + 100 * rank, ibuf, 5, MPI_INT, MPI_STATUS_IGNORE), "write_at");
    check(MPI_File_write_at_all(fh, 500 + 7 * rank, ibuf, 3, MPI_INT, MPI_STATUS_IGNORE),
          "write_at_all");
    check(MPI_File_seek(fh, 50 + 10 * rank, MPI_SEEK_SET), "seek");
    check(MPI_File_write(fh, ibuf, 2, MPI_INT, MPI_STATUS_IGNORE), "write 1");
    check(MPI_File_write(fh, ibuf, 2, MPI_INT, MPI_STATUS_IGNORE), "write 2");
    check(MPI_File_write_all(fh, ibuf, 1, MPI_INT, MPI_STATUS_IGNORE), "write_all");
    check(MPI_File_iwrite_at(fh, 300 + rank, ibuf, 6, MPI_INT, &req), "iwrite_at");
    check(MPI_Wait(&req, MPI_STATUS_IGNORE), "wait");
    check(MPI_File_read_at(fh, 10 + 100 * rank, ibuf, 5, MPI_INT, MPI_STATUS_IGNORE), "read_at");
    check(MPI_File_seek(fh, 50 + 10 * rank, MPI_SEEK_SET), "seek 2");
    check(MPI_File_read(fh, ibuf, 2, MPI_INT, MPI_STATUS_IGNORE), "read");
    check(MPI_File_write_shared(fh, ibuf, 3, MPI_INT, MPI_STATUS_IGNORE), "write_shared");
    check(MPI_File_write_ordered(fh, ibuf, 4, MPI_INT, MPI_STATUS_IGNORE), "write_ordered");
    check(MPI_File_close(&fh), "close offsets");

    snprintf(path, sizeof path, "%s/types-%d.dat", dir, rank);
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
          "open types");
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_DOUBLE, &three);
    MPI_Type_commit(&three);
    check(MPI_File_write_at(fh, 777, dbuf, 2, three, MPI_STATUS_IGNORE), "write_at doubles");
    check(MPI_File_write_at(fh, 5000, sbuf, 7, MPI_SHORT, MPI_STATUS_IGNORE), "write_at shorts");
    MPI_Type_free(&three);
    check(MPI_File_close(&fh), "close types");
    MPI_Finalize();
    return 0;
}
