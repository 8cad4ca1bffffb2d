/* Two program phases as regions (issue 33), for the diagnosis per region and
 * `iolens diff` of regions, run serially under the preloaded runtime:
 *
 *   phases MODE DIR [CHECKPOINT_MIB]      MODE = split | alike | reopen | random
 *
 *   split: region "load batch" reads an input file in 2048 reads of 4 KiB;
 *          region "checkpoint" writes CHECKPOINT_MIB (default 16) in 1 MiB writes.
 *   alike: as split, but "checkpoint" writes its MiBs in 4 KiB writes: both
 *          regions do small I/O.
 *   reopen: as split, but "load batch" makes 200 reads of 4 KiB, each in its own
 *          open and close: its operations are mostly metadata.
 *   random: as split, but "load batch" reads its 2048 pieces in a scrambled order
 *          (piece i * 997 mod 2048): not sequential.
 *   CHECKPOINT_MIB 0: no checkpoint region at all.
 *
 * Built with -DPHASES_MPI it is an MPI program: every process does the same with
 * files of its own (input.RANK.dat, checkpoint.RANK.dat).
 *
 * The 8 MiB input is written before any region opens (1 MiB writes), so only the
 * two phases' own I/O sits in regions. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iolens/annotate.h>
#ifdef PHASES_MPI
#include <mpi.h>
#endif

#define KIB 4096
#define MIB (1 << 20)
#define INPUT_MIB 8

static char buf[MIB];
static int rank;            /* names this process's files (0 without MPI) */

static int open_in(const char *dir, const char *name, int flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d.dat", dir, name, rank);
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

static void write_in(int fd, long total, size_t piece)
{
    for (long done = 0; done < total; done += (long)piece)
        if (pwrite(fd, buf, piece, done) != (ssize_t)piece) {
            perror("pwrite");
            exit(1);
        }
}

static void read_piece(int fd, int i)
{
    if (pread(fd, buf, KIB, (off_t)i * KIB) != KIB) {
        perror("pread");
        exit(1);
    }
}

static void load_batches(const char *dir, int reopen, int scrambled)
{
    if (reopen) {
        for (int i = 0; i < 200; i++) {
            int fd = open_in(dir, "input", O_RDONLY);
            read_piece(fd, i);
            close(fd);
        }
        return;
    }
    int fd = open_in(dir, "input", O_RDONLY);
    for (int i = 0; i < 2048; i++)
        read_piece(fd, scrambled ? (i * 997) % 2048 : i);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "split") && strcmp(argv[1], "alike") &&
                     strcmp(argv[1], "reopen") && strcmp(argv[1], "random"))) {
        fprintf(stderr, "usage: phases split|alike|reopen|random DIR [CHECKPOINT_MIB]\n");
        return 2;
    }
#ifdef PHASES_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    const char *dir = argv[2];
    long checkpoint = (argc > 3 ? atol(argv[3]) : 16) * (long)MIB;
    memset(buf, 'x', sizeof buf);

    int in = open_in(dir, "input", O_CREAT | O_WRONLY | O_TRUNC);
    write_in(in, (long)INPUT_MIB * MIB, MIB);
    close(in);

    iolens_region_begin("load batch");
    load_batches(dir, !strcmp(argv[1], "reopen"), !strcmp(argv[1], "random"));
    iolens_region_end("load batch");

    if (checkpoint > 0) {
        iolens_region_begin("checkpoint");
        int out = open_in(dir, "checkpoint", O_CREAT | O_WRONLY | O_TRUNC);
        write_in(out, checkpoint, strcmp(argv[1], "alike") ? MIB : KIB);
        close(out);
        iolens_region_end("checkpoint");
    }
#ifdef PHASES_MPI
    MPI_Finalize();
#endif
    return 0;
}
