/* Per-operation cost of the MPI-IO wrappers (docs/performance.md, ## MPI): one
 * process does N one-byte MPI_File_write_at calls.  Run under callgrind with and
 * without the runtime, for two values of N; the extra instructions per call are
 *   ((Ir_rt(N2) - Ir_rt(N1)) - (Ir_plain(N2) - Ir_plain(N1))) / (N2 - N1).
 * usage: opcost FILE N */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long n = atol(argv[2]);
    MPI_File fh;
    char c = 'x';
    MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (long i = 0; i < n; i++)
        MPI_File_write_at(fh, i, &c, 1, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
