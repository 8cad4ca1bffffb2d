/* `iolens run`'s MPI launchers (src/tools/run_launcher.c, run_elf.c): the command
 * line each launcher gets, and which MPI an ELF file links, also for every
 * truncation and for corrupted copies of a real ELF file (no crash, no read past
 * the file: run under ASan in scripts/test.sh).
 * Usage: test_run_launcher [MPI_RUNTIME]  (the libiolens-mpi.so of this build,
 * whose MPI is checked too). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "run_launcher.h"

static int same(char **got, const char *const *want)
{
    size_t i = 0;
    for (; got && got[i] && want[i]; i++)
        if (strcmp(got[i], want[i]) != 0)
            return 0;
    return got && !got[i] && !want[i];
}

static void check_argv(iol_launcher_kind k, const char *const *cmd, const char *const *want)
{
    char *vars[] = {"LD_PRELOAD=/a:/lib/libiolens-mpi.so", "DARSHAN_LOGPATH=/logs x", NULL};
    char **got = iol_launcher_argv(k, (char **)cmd, vars);
    CHECK(same(got, want), "launcher %d, %s: got %s %s %s", (int)k, cmd[0],
          got && got[0] ? got[0] : "-", got && got[1] ? got[1] : "-",
          got && got[1] && got[2] ? got[2] : "-");
    iol_launcher_free(got);
}

static void test_commands(void)
{
    check_argv(IOL_LAUNCHER_OPENMPI, (const char *const[]){"mpiexec", "-n", "4", "./a", NULL},
               (const char *const[]){"mpiexec", "-x", "LD_PRELOAD=/a:/lib/libiolens-mpi.so",
                                     "-x", "DARSHAN_LOGPATH=/logs x", "-n", "4", "./a", NULL});
    check_argv(IOL_LAUNCHER_HYDRA, (const char *const[]){"mpiexec.mpich", "-n", "2", "./a", NULL},
               (const char *const[]){"mpiexec.mpich", "-genv", "LD_PRELOAD",
                                     "/a:/lib/libiolens-mpi.so", "-genv", "DARSHAN_LOGPATH",
                                     "/logs x", "-n", "2", "./a", NULL});
    check_argv(IOL_LAUNCHER_SRUN, (const char *const[]){"srun", "-n", "4", "./a", "-x", NULL},
               (const char *const[]){"srun", "--export=ALL,LD_PRELOAD=/a:/lib/libiolens-mpi.so,"
                                     "DARSHAN_LOGPATH=/logs x", "-n", "4", "./a", "-x", NULL});
    check_argv(IOL_LAUNCHER_SRUN,
               (const char *const[]){"srun", "--export=NONE", "-n", "4", "./a", NULL},
               (const char *const[]){"srun", "--export=LD_PRELOAD=/a:/lib/libiolens-mpi.so,"
                                     "DARSHAN_LOGPATH=/logs x", "-n", "4", "./a", NULL});
    check_argv(IOL_LAUNCHER_SRUN,
               (const char *const[]){"srun", "--export", "HOME,A=1", "./a", NULL},
               (const char *const[]){"srun", "--export=HOME,A=1,LD_PRELOAD=/a:/lib/libiolens-mpi.so,"
                                     "DARSHAN_LOGPATH=/logs x", "./a", NULL});
    /* srun splits --export at commas: a value holding one cannot go through it. */
    char *comma[] = {"DARSHAN_LOGPATH=/a,b", NULL};
    CHECK(iol_launcher_argv(IOL_LAUNCHER_SRUN, (char *[]){"srun", "./a", NULL}, comma) == NULL,
          "a comma in an srun value");
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*len ? *len : 1);
    if (b && fread(b, 1, *len, f) != *len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static iol_mpi_flavour flavour_of_bytes(const char *tmp, const uint8_t *b, size_t n)
{
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return IOL_MPI_UNKNOWN;
    fwrite(b, 1, n, f);
    fclose(f);
    return iol_elf_mpi_flavour(tmp);
}

/* A small real ELF program (/bin/true when it is of this host's byte order: not
 * so under qemu-user on a big-endian target, scripts/cross-test.sh; else this
 * test): every prefix up to 4 KiB
 * and then every 4099th, and 400 copies with 8 bytes set to random values in the
 * ELF header's area or in the tail (where the section headers are): each answer
 * is one of the four, and the whole file reads as linking no MPI. */
static void test_hostile_elf(void)
{
    size_t len = 0;
    uint8_t *self = slurp("/bin/true", &len);
    const uint8_t host_order = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 2 : 1;  /* EI_DATA */
    if (self && (len <= 64 || self[5] != host_order)) {
        free(self);
        self = NULL;
    }
    if (!self)
        self = slurp("/proc/self/exe", &len);
    CHECK(self != NULL && len > 64, "reading an ELF program");
    if (!self)
        return;
    char tmp[] = "/dev/shm/iolens-test-elf-XXXXXX", tmp2[] = "/tmp/iolens-test-elf-XXXXXX";
    int fd = mkstemp(tmp);            /* thousands of small writes: tmpfs if there is one */
    if (fd < 0 && (fd = mkstemp(tmp2)) >= 0)
        strcpy(tmp, tmp2);
    CHECK(fd >= 0, "temporary file");
    if (fd < 0) {
        free(self);
        return;
    }
    close(fd);
    CHECK(flavour_of_bytes(tmp, self, len) == IOL_MPI_NONE, "it links no MPI");
    for (size_t n = 0; n < len; n += n < 4096 ? 1 : 4099) {
        iol_mpi_flavour f = flavour_of_bytes(tmp, self, n);
        CHECK(f == IOL_MPI_UNKNOWN || f == IOL_MPI_NONE, "prefix %zu: %d", n, (int)f);
    }
    uint8_t *copy = malloc(len);
    srand(20261128);
    for (int k = 0; copy && k < 400; k++) {
        memcpy(copy, self, len);
        for (int j = 0; j < 8; j++) {
            size_t at = k % 2 ? (size_t)rand() % (len < 128 ? len : 128)
                              : len - 1 - (size_t)rand() % (len < 4096 ? len : 4096);
            copy[at] = (uint8_t)rand();
        }
        iol_mpi_flavour f = flavour_of_bytes(tmp, copy, len);
        CHECK(f <= IOL_MPI_NONE, "corrupted copy %d: %d", k, (int)f);
    }
    free(copy);
    free(self);
    unlink(tmp);
    CHECK(iol_elf_mpi_flavour("/nonexistent/x") == IOL_MPI_UNKNOWN, "missing file");
    CHECK(iol_elf_mpi_flavour("/tmp") == IOL_MPI_UNKNOWN, "a directory");
}

int main(int argc, char **argv)
{
    test_commands();
    test_hostile_elf();
    if (argc > 1 && argv[1][0]) {
        iol_mpi_flavour f = iol_elf_mpi_flavour(argv[1]);
        CHECK(f == IOL_MPI_OPENMPI || f == IOL_MPI_MPICH, "%s links an MPI: %d", argv[1], (int)f);
    }
    return check_result("test_run_launcher");
}
