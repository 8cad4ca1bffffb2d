/* MPI test program for tests/mpi: one mode per scenario.
 * usage: mpiprobe MODE DIR
 *   basic   every process writes its block of shared.dat collectively, then reads it
 *   threads MPI_THREAD_MULTIPLE; 4 threads per process write (MPI-IO, independent)
 *           into shared.dat and (POSIX) into their own file, concurrently
 *   split   halves of MPI_COMM_WORLD open half-<color>.dat collectively
 *   idle0   process 0 does no I/O; the others write rank-<r>.dat
 *   mixed   basic, then idle0: MPI-IO and the program's own POSIX I/O in one run
 *   calls   one call of each MPI-IO category on calls.dat: shared and ordered
 *           pointers, split collectives, nonblocking, set_view with hints, sync
 * Exits non-zero (after MPI_Abort) on any failed call. */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 4
#define PER_THREAD 8
#define BLOCK 4096

static int rank, nprocs;
static const char *dir;
static MPI_File shared_fh;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpiprobe: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static char *path(const char *name)
{
    static __thread char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void basic(void)
{
    static char buf[BLOCK];
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path("shared.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS, "open");
    check(MPI_File_write_at_all(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at_all");
    check(MPI_File_read_at(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS, "read_at");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

static void *thread_io(void *arg)
{
    int t = (int)(long)arg;
    char buf[BLOCK], name[64];
    memset(buf, 'a' + t, sizeof buf);
    for (int i = 0; i < PER_THREAD; i++) {
        MPI_Offset off = (((MPI_Offset)rank * NTHREADS + t) * PER_THREAD + i) * BLOCK;
        check(MPI_File_write_at(shared_fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS, "thread write_at");
    }
    snprintf(name, sizeof name, "thread-%d-%d.dat", rank, t);
    int fd = open(path(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0, "thread open");
    for (int i = 0; i < PER_THREAD; i++)
        check(write(fd, buf, BLOCK) == BLOCK, "thread write");
    check(close(fd) == 0, "thread close");
    return NULL;
}

static void threads(void)
{
    pthread_t th[NTHREADS];
    check(MPI_File_open(MPI_COMM_WORLD, path("shared.dat"), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                        MPI_INFO_NULL, &shared_fh) == MPI_SUCCESS, "open");
    for (long t = 0; t < NTHREADS; t++)
        check(pthread_create(&th[t], NULL, thread_io, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    check(MPI_File_close(&shared_fh) == MPI_SUCCESS, "close");
}

static void split(void)
{
    MPI_Comm half;
    int color = rank % 2;
    static char buf[BLOCK];
    char name[64];
    check(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half) == MPI_SUCCESS, "split");
    int hrank;
    MPI_Comm_rank(half, &hrank);
    snprintf(name, sizeof name, "half-%d.dat", color);
    MPI_File fh;
    check(MPI_File_open(half, path(name), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS, "open half");
    check(MPI_File_write_at_all(fh, (MPI_Offset)hrank * BLOCK, buf, BLOCK, MPI_BYTE,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at_all half");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "close half");
    MPI_Comm_free(&half);
}

static void idle0(void)
{
    static char buf[BLOCK];
    char name[64];
    if (rank == 0)
        return;
    snprintf(name, sizeof name, "rank-%d.dat", rank);
    int fd = open(path(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < rank; i++)
        check(write(fd, buf, BLOCK) == BLOCK, "write");
    check(close(fd) == 0, "close");
}

static void calls(void)
{
    static char buf[BLOCK];
    MPI_File fh;
    MPI_Request rq;
    MPI_Info info;
    MPI_Offset me = (MPI_Offset)rank * 16 * BLOCK;
    check(MPI_File_open(MPI_COMM_WORLD, path("calls.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS, "open");
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info) == MPI_SUCCESS, "set_view");
    MPI_Info_free(&info);
    check(MPI_File_write_shared(fh, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_shared");
    check(MPI_File_write_ordered(fh, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_ordered");
    check(MPI_File_write_all_begin(fh, buf, BLOCK, MPI_BYTE) == MPI_SUCCESS, "write_all_begin");
    check(MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_all_end");
    check(MPI_File_write_at_all_begin(fh, me, buf, BLOCK, MPI_BYTE) == MPI_SUCCESS, "write_at_all_begin");
    check(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at_all_end");
    check(MPI_File_iwrite(fh, buf, BLOCK, MPI_BYTE, &rq) == MPI_SUCCESS, "iwrite");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(MPI_File_iwrite_all(fh, buf, BLOCK, MPI_BYTE, &rq) == MPI_SUCCESS, "iwrite_all");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(MPI_File_iwrite_shared(fh, buf, BLOCK, MPI_BYTE, &rq) == MPI_SUCCESS, "iwrite_shared");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(MPI_File_sync(fh) == MPI_SUCCESS, "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS, "seek_shared");
    check(MPI_File_read_shared(fh, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "read_shared");
    check(MPI_File_read_ordered(fh, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "read_ordered");
    check(MPI_File_seek(fh, me, MPI_SEEK_SET) == MPI_SUCCESS, "seek");
    check(MPI_File_read_all_begin(fh, buf, BLOCK, MPI_BYTE) == MPI_SUCCESS, "read_all_begin");
    check(MPI_File_read_all_end(fh, buf, MPI_STATUS_IGNORE) == MPI_SUCCESS, "read_all_end");
    check(MPI_File_read_ordered_begin(fh, buf, BLOCK, MPI_BYTE) == MPI_SUCCESS, "read_ordered_begin");
    check(MPI_File_read_ordered_end(fh, buf, MPI_STATUS_IGNORE) == MPI_SUCCESS, "read_ordered_end");
    check(MPI_File_iread(fh, buf, BLOCK, MPI_BYTE, &rq) == MPI_SUCCESS, "iread");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(MPI_File_iread_at_all(fh, me, buf, BLOCK, MPI_BYTE, &rq) == MPI_SUCCESS, "iread_at_all");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    check(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mpiprobe MODE DIR\n");
        return 2;
    }
    const char *mode = argv[1];
    dir = argv[2];
    if (strcmp(mode, "threads") == 0) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "mpiprobe: no MPI_THREAD_MULTIPLE\n");
            MPI_Finalize();
            return 77;
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (strcmp(mode, "basic") == 0)
        basic();
    else if (strcmp(mode, "threads") == 0)
        threads();
    else if (strcmp(mode, "split") == 0)
        split();
    else if (strcmp(mode, "idle0") == 0)
        idle0();
    else if (strcmp(mode, "mixed") == 0) {
        basic();
        idle0();
    }
    else if (strcmp(mode, "calls") == 0)
        calls();
    else
        check(0, "mode");
    MPI_Finalize();
    return 0;
}
