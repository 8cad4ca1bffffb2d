/* Regions across MPI ranks (tests/runtime/test_regions.py): every rank runs "step"
 * and writes 4 + 4*rank bytes to DIR/mpi_<rank>.dat inside it; rank 1 also runs
 * "only one".  usage: region_mpi DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include "iolens/annotate.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    char p[4096];
    snprintf(p, sizeof p, "%s/mpi_%d.dat", argv[1], r);
    iolens_region_begin("step");
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "abcdefgh", 4 + 4 * r) != 4 + 4 * r)
        abort();
    close(fd);
    iolens_region_end("step");
    if (r == 1) {
        iolens_region_begin("only one");
        iolens_region_end("only one");
    }
    MPI_Finalize();
    return 0;
}
