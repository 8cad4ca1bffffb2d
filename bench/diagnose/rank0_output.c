/* rank-0 vs collective output: every rank holds 64 MiB (x SCALE) of results.
 * bad: they are gathered to rank 0, which writes the whole file in 1 MiB
 * writes; fixed: every rank writes its block with one collective MPI-IO call.
 * Expected finding: rank0-io. */
#include <fcntl.h>
#include <unistd.h>

#include "pair.h"

#define CHUNK (1L << 20)

int main(int argc, char **argv)
{
    struct pair_args a = pair_init(&argc, &argv);
    long block = pair_scaled(&a, 64L << 20) / CHUNK * CHUNK;
    if (block < CHUNK)
        block = CHUNK;
    char path[4096];
    snprintf(path, sizeof path, "%s/result.dat", a.dir);
    char *mine = pair_buffer(block, 'a' + a.rank);
    double t0 = pair_start();
    if (a.bad) {
        char *all = a.rank == 0 ? pair_buffer(block * a.size, 0) : NULL;
        for (long at = 0; at < block; at += CHUNK)   /* int counts: gather chunk by chunk */
            MPI_Gather(mine + at, CHUNK, MPI_BYTE, a.rank == 0 ? all + at * a.size : NULL,
                       CHUNK, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (a.rank == 0) {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0)
                pair_die("open");
            for (long at = 0; at < block * a.size; at += CHUNK)
                if (write(fd, all + at, CHUNK) != CHUNK)
                    pair_die("write");
            close(fd);
            free(all);
        }
    } else {
        MPI_File fh;
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        for (long at = 0; at < block; at += CHUNK)
            MPI_File_write_at_all(fh, (MPI_Offset)a.rank * block + at, mine + at, CHUNK,
                                  MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
    free(mine);
    return pair_finish(&a, t0);
}
