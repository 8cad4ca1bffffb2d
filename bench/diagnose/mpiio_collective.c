/* independent vs collective MPI-IO: the ranks write a shared file as interleaved
 * 4 KiB blocks (rank r owns blocks r, r + P, r + 2P, ...), 8192 (x SCALE) each.
 * bad: one independent MPI_File_write_at per block; fixed: a file view of the
 * rank's blocks and one collective MPI_File_write_all.  Expected finding:
 * no-collective (small-io too). */
#include "pair.h"

#define BLOCK 4096

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long blocks = pair_scaled(&a, 8192);
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.dat", a.dir);
    char *buf = pair_buffer((size_t)blocks * BLOCK, 'a' + a.rank);
    double t0 = pair_start();
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (a.bad) {
        for (long k = 0; k < blocks; k++)
            MPI_File_write_at(fh, (MPI_Offset)(k * a.size + a.rank) * BLOCK, buf + k * BLOCK,
                              BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    } else {
        MPI_Datatype mine;
        MPI_Type_vector((int)blocks, BLOCK, BLOCK * a.size, MPI_BYTE, &mine);
        MPI_Type_commit(&mine);
        MPI_File_set_view(fh, (MPI_Offset)a.rank * BLOCK, MPI_BYTE, mine, "native", MPI_INFO_NULL);
        MPI_File_write_all(fh, buf, (int)(blocks * BLOCK), MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Type_free(&mine);
    }
    MPI_File_close(&fh);
    free(buf);
    return pair_finish(&a, t0);
}
