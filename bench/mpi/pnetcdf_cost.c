/* Per-call cost of the PnetCDF wrappers (docs/performance.md, ## PnetCDF): one
 * process does N ncmpi_put_vara_int_all calls of one int each into a 1-D
 * variable, and prints the mean wall time per call in nanoseconds.
 * bench/mpi/pnetcdf_bench.py runs it with and without the runtime, under
 * callgrind (instructions) and plainly (time).  usage: pnetcdf_cost FILE N */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long n = atol(argv[2]);
    int nc, dim, var;
    if (ncmpi_create(MPI_COMM_SELF, argv[1], NC_CLOBBER, MPI_INFO_NULL, &nc) != NC_NOERR ||
        ncmpi_def_dim(nc, "x", n > 0 ? n : 1, &dim) != NC_NOERR ||
        ncmpi_def_var(nc, "v", NC_INT, 1, &dim, &var) != NC_NOERR || ncmpi_enddef(nc) != NC_NOERR)
        MPI_Abort(MPI_COMM_WORLD, 3);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Offset start = i, count = 1;
        int v = (int)i;
        if (ncmpi_put_vara_int_all(nc, var, &start, &count, &v) != NC_NOERR)
            MPI_Abort(MPI_COMM_WORLD, 4);
    }
    double t = MPI_Wtime() - t0;
    ncmpi_close(nc);
    printf("ns_per_call %.1f\n", n > 0 ? t * 1e9 / n : 0.0);
    MPI_Finalize();
    return 0;
}
