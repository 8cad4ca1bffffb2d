/* What every bench/diagnose pair program shares: arguments, the timed I/O phase,
 * and failing loudly (these are benchmarks, not the application under test).
 *
 *   PROGRAM WORKDIR bad|fixed SCALE
 *
 * WORKDIR is a directory of the program's own; SCALE (> 0) multiplies the
 * amount of work so the script can make runs short (the pytest) or long enough
 * to measure.  Rank 0 prints "io_seconds=S": the wall-clock time of the I/O
 * phase, from a barrier before it to a barrier after it. */
#ifndef BENCH_PAIR_H
#define BENCH_PAIR_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair_args {
    const char *dir;
    int bad;          /* 1: the pattern iolens diagnose should find; 0: its fix */
    double scale;
    int rank, size;
};

static inline void pair_die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline struct pair_args pair_init(int *argc, char ***argv)
{
    struct pair_args a = {0};
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &a.size);
    if (*argc < 4) {
        if (a.rank == 0)
            fprintf(stderr, "usage: %s WORKDIR bad|fixed SCALE\n", (*argv)[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    a.dir = (*argv)[1];
    a.bad = strcmp((*argv)[2], "bad") == 0;
    a.scale = atof((*argv)[3]);
    if (a.scale <= 0)
        a.scale = 1;
    return a;
}

static inline long pair_scaled(const struct pair_args *a, long n)
{
    long v = (long)(n * a->scale);
    return v > 0 ? v : 1;
}

static inline double pair_start(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

/* End of the timed phase: print it and finish MPI. */
static inline int pair_finish(const struct pair_args *a, double t0)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (a->rank == 0)
        printf("io_seconds=%.6f\n", t);
    MPI_Finalize();
    return 0;
}

static inline void *pair_buffer(size_t n, int fill)
{
    char *buf = malloc(n);
    if (!buf)
        pair_die("malloc");
    memset(buf, fill, n);
    return buf;
}

/* Create (truncate) the rank's own file DIR/NAME.RANK with `flags` added to
 * O_CREAT | O_TRUNC. */
static inline int pair_create(const struct pair_args *a, const char *name, int flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", a->dir, name, a->rank);
    int fd = open(path, flags | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        pair_die(path);
    return fd;
}

#endif
