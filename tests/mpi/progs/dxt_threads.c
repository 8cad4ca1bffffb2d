/* DXT_MPIIO under MPI_THREAD_MULTIPLE (tests/mpi/test_mpi_dxt.py).
 * usage: dxt_threads DIR    (rank r, P processes)
 * threads.dat is opened once on MPI_COMM_WORLD; 4 threads per process share the
 * handle and, once all 4 are running, each makes 50 MPI_File_write_at calls:
 * thread t, call i writes 256 (t+1) bytes at byte offset 4096 ((r x 4 + t) x 50 + i).
 * Exits 77 if the MPI does not provide MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define PER_THREAD 50
#define SLOT 4096

static int rank;
static MPI_File fh;
static pthread_barrier_t start;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "dxt_threads: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void *thread_io(void *arg)
{
    int t = (int)(long)arg;
    static char buf[NTHREADS][SLOT];
    pthread_barrier_wait(&start);
    for (int i = 0; i < PER_THREAD; i++) {
        MPI_Offset off = (MPI_Offset)SLOT * (((MPI_Offset)rank * NTHREADS + t) * PER_THREAD + i);
        check(MPI_File_write_at(fh, off, buf[t], 256 * (t + 1), MPI_BYTE, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS, "write_at");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "dxt_threads: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/threads.dat", dir);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "open");
    pthread_t th[NTHREADS];
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (long t = 0; t < NTHREADS; t++)
        check(pthread_create(&th[t], NULL, thread_io, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    check(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Finalize();
    return 0;
}
