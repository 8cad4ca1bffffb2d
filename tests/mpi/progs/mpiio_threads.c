/* MPI-IO record locks under MPI_THREAD_MULTIPLE (tests/mpi/test_mpi_record_locks.py).
 * usage: mpiio_threads DIR    (rank r)
 * NTHREADS threads per process, PER rounds each.  Thread t has handles of its
 * own (MPI_COMM_SELF): own-r-t.dat (write_at 64 bytes a round, sync every 10th,
 * read_at 64 every 30th), shared.dat (write_at 32 bytes a round at an offset of
 * its own: one record per process updated through NTHREADS handles, and shared
 * by every process), and every 50th round an open, write_at 16 and close of
 * extra-r-t.dat (the handle table changes while the other threads use it).
 * Exits 77 if the MPI does not provide MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 4
#define PER 300

static int rank;
static const char *dir;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpiio_threads: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static MPI_File open_self(const char *name, int amode)
{
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_SELF, name, amode, MPI_INFO_NULL, &fh) == MPI_SUCCESS, "open");
    return fh;
}

static void *thread_io(void *arg)
{
    int t = (int)(long)arg;
    char own[4096], shared[4096], extra[4096], buf[64];
    memset(buf, 'm', sizeof buf);
    snprintf(own, sizeof own, "%s/own-%d-%d.dat", dir, rank, t);
    snprintf(shared, sizeof shared, "%s/shared.dat", dir);
    snprintf(extra, sizeof extra, "%s/extra-%d-%d.dat", dir, rank, t);
    MPI_File fo = open_self(own, MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_File fs = open_self(shared, MPI_MODE_CREATE | MPI_MODE_WRONLY);
    MPI_Offset base = ((MPI_Offset)rank * NTHREADS + t) * PER * 32;
    for (int i = 0; i < PER; i++) {
        check(MPI_File_write_at(fo, (MPI_Offset)i * 64, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS, "write_at own");
        check(MPI_File_write_at(fs, base + (MPI_Offset)i * 32, buf, 32, MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at shared");
        if (i % 10 == 0)
            check(MPI_File_sync(fo) == MPI_SUCCESS, "sync");
        if (i % 30 == 0)
            check(MPI_File_read_at(fo, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "read_at");
        if (i % 50 == 0) {
            MPI_File fx = open_self(extra, MPI_MODE_CREATE | MPI_MODE_WRONLY);
            check(MPI_File_write_at(fx, (MPI_Offset)i, buf, 16, MPI_BYTE, MPI_STATUS_IGNORE) ==
                      MPI_SUCCESS, "write_at extra");
            check(MPI_File_close(&fx) == MPI_SUCCESS, "close extra");
        }
    }
    check(MPI_File_close(&fo) == MPI_SUCCESS && MPI_File_close(&fs) == MPI_SUCCESS, "close");
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "mpiio_threads: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dir = argc > 1 ? argv[1] : ".";
    /* One open and close before the threads: MPICH's ROMIO sets itself up at the
     * first MPI_File_open of a process (keyvals, its own reduction ops), and
     * threads racing into that first open fail inside ROMIO now and then
     * (MPI_Allreduce with MPI_OP_NULL, MPI_Op_free of a null op, a null free in
     * cb_config_list.c): 2 of 80 runs of this program without the runtime, on
     * Debian's MPICH 4.0.  The runtime's record locks are what this tests. */
    char warm[4096];
    snprintf(warm, sizeof warm, "%s/warm-%d.dat", dir, rank);
    MPI_File fw = open_self(warm, MPI_MODE_CREATE | MPI_MODE_WRONLY);
    check(MPI_File_close(&fw) == MPI_SUCCESS, "close warm");
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        check(pthread_create(&th[t], NULL, thread_io, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Finalize();
    return 0;
}
