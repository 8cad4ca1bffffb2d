/* Labelled I/O patterns at test scale (issue 28), one per mode, each with its
 * fixed twin, run on a few processes under the runtime:
 *
 *   patterns MODE DIR      MODE = rank0 | shares | readall | readpart |
 *                                 random | sorted | unaligned | aligned |
 *                                 small | large | reopen | once | tiny | packed
 *
 * rank0/shares: rank 0 writes all 16 MiB x nprocs / every process its 16 MiB;
 * readall/readpart: rank 0 writes an 8 MiB input, then every process reads it
 * whole / its part; random/sorted: 256 reads of 4 KiB at random / increasing
 * offsets of a 16 MiB file per process; unaligned/aligned: 16 writes of 1 MiB
 * per process into one shared file at offsets 512 bytes past / on 1 MiB;
 * small/large: 16 MiB per process in 4 KiB / 1 MiB writes; reopen/once: 200
 * writes of 4 KiB per process, each in its own open and close / in one open;
 * tiny/packed: 100 files of 1 KiB per process / one file of 100 KiB. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static char buf[MIB];

static void die(const char *what) { perror(what); MPI_Abort(MPI_COMM_WORLD, 1); }

static int open_in(const char *dir, const char *name, int flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, flags, 0644);
    if (fd < 0)
        die(path);
    return fd;
}

static void put(int fd, size_t n, off_t at)
{
    if (pwrite(fd, buf, n, at) != (ssize_t)n)
        die("pwrite");
}

static void get(int fd, size_t n, off_t at)
{
    if (pread(fd, buf, n, at) != (ssize_t)n)
        die("pread");
}

static void write_all(int rank, int size, const char *dir, int all_on_rank0)
{
    char name[64];
    if (all_on_rank0 && rank != 0)
        return;
    snprintf(name, sizeof name, all_on_rank0 ? "out.dat" : "out.%d", rank);
    int fd = open_in(dir, name, O_CREAT | O_WRONLY | O_TRUNC);
    int blocks = all_on_rank0 ? 16 * size : 16;
    for (int i = 0; i < blocks; i++)
        put(fd, MIB, (off_t)i * MIB);
    close(fd);
}

static void read_input(int rank, int size, const char *dir, int whole)
{
    if (rank == 0) {
        int fd = open_in(dir, "in.dat", O_CREAT | O_WRONLY | O_TRUNC);
        for (int i = 0; i < 8; i++)
            put(fd, MIB, (off_t)i * MIB);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open_in(dir, "in.dat", O_RDONLY);
    size_t part = whole ? 8 * MIB : 8 * MIB / size;
    off_t from = whole ? 0 : (off_t)part * rank;
    for (size_t done = 0; done < part; done += part < MIB ? part : MIB)
        get(fd, part < MIB ? part : MIB, from + (off_t)done);
    close(fd);
}

static void read_blocks(int rank, const char *dir, int random)
{
    char name[64];
    snprintf(name, sizeof name, "data.%d", rank);
    int fd = open_in(dir, name, O_CREAT | O_RDWR | O_TRUNC);
    for (int i = 0; i < 16; i++)
        put(fd, MIB, (off_t)i * MIB);
    close(fd);
    fd = open_in(dir, name, O_RDONLY);           /* a new open: its own first access */
    srand(7 + rank);
    for (int i = 0; i < 256; i++) {
        off_t at = random ? (off_t)(rand() % 4096) * 4096 : (off_t)i * 4096;
        get(fd, 4096, at);
    }
    close(fd);
}

static void write_shared(int rank, const char *dir, int misaligned)
{
    int fd = open_in(dir, "shared.dat", O_CREAT | O_WRONLY);
    for (int i = 0; i < 16; i++)
        put(fd, MIB, ((off_t)rank * 16 + i) * MIB + (misaligned ? 512 : 0));
    close(fd);
}

static void write_sized(int rank, const char *dir, size_t each)
{
    char name[64];
    snprintf(name, sizeof name, "sized.%d", rank);
    int fd = open_in(dir, name, O_CREAT | O_WRONLY | O_TRUNC);
    for (size_t done = 0; done < 16 * MIB; done += each)
        put(fd, each, (off_t)done);
    close(fd);
}

static void write_reopened(int rank, const char *dir, int reopen)
{
    char name[64];
    snprintf(name, sizeof name, "log.%d", rank);
    int fd = open_in(dir, name, O_CREAT | O_WRONLY | O_TRUNC);
    for (int i = 0; i < 200; i++) {
        if (reopen && i > 0)
            fd = open_in(dir, name, O_WRONLY);
        put(fd, 4096, (off_t)i * 4096);
        if (reopen)
            close(fd);
    }
    if (!reopen)
        close(fd);
}

static void write_files(int rank, const char *dir, int tiny)
{
    char name[64];
    for (int i = 0; i < (tiny ? 100 : 1); i++) {
        snprintf(name, sizeof name, "file.%d.%d", rank, i);
        int fd = open_in(dir, name, O_CREAT | O_WRONLY | O_TRUNC);
        put(fd, tiny ? 1024 : 100 * 1024, 0);
        close(fd);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: patterns MODE DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 'x', sizeof buf);
    const char *mode = argv[1], *dir = argv[2];
    if (!strcmp(mode, "rank0") || !strcmp(mode, "shares"))
        write_all(rank, size, dir, !strcmp(mode, "rank0"));
    else if (!strcmp(mode, "readall") || !strcmp(mode, "readpart"))
        read_input(rank, size, dir, !strcmp(mode, "readall"));
    else if (!strcmp(mode, "random") || !strcmp(mode, "sorted"))
        read_blocks(rank, dir, !strcmp(mode, "random"));
    else if (!strcmp(mode, "unaligned") || !strcmp(mode, "aligned"))
        write_shared(rank, dir, !strcmp(mode, "unaligned"));
    else if (!strcmp(mode, "small") || !strcmp(mode, "large"))
        write_sized(rank, dir, !strcmp(mode, "small") ? 4096 : MIB);
    else if (!strcmp(mode, "reopen") || !strcmp(mode, "once"))
        write_reopened(rank, dir, !strcmp(mode, "reopen"));
    else if (!strcmp(mode, "tiny") || !strcmp(mode, "packed"))
        write_files(rank, dir, !strcmp(mode, "tiny"));
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
