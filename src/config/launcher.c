/* The rank and job size a launcher without MPI gives a process (torchrun, srun,
 * mpiexec running a program that never calls MPI_Init, PALS, PMIx), read from the
 * variables the launcher sets (docs/runtime.md, "Ranks from launchers").
 *
 * Order: the innermost launcher first.  torchrun under srun gives each worker
 * RANK while SLURM_PROCID still names the srun task of its agent, and mpiexec in
 * a batch script leaves the script's SLURM_PROCID=0 in every process it starts,
 * so the MPI launchers' variables come before SLURM's.  A pair that does not
 * parse as 0 <= rank < size is skipped (RANK is a common word in user
 * environments; it counts only with a WORLD_SIZE that agrees). */
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef struct launcher_vars {
    const char *rank;
    const char *size[2];   /* the first one set gives the size; NULL: none */
    int size_required;     /* without a size the rank variable does not count */
} launcher_vars;

static const launcher_vars LAUNCHERS[] = {
    {"RANK", {"WORLD_SIZE", NULL}, 1},                              /* torchrun */
    {"OMPI_COMM_WORLD_RANK", {"OMPI_COMM_WORLD_SIZE", NULL}, 0},    /* Open MPI */
    {"PMI_RANK", {"PMI_SIZE", NULL}, 0},                            /* MPICH hydra, Cray PMI */
    {"PMIX_RANK", {NULL, NULL}, 0},                                 /* PMIx: no size variable */
    {"PALS_RANKID", {"PMI_SIZE", NULL}, 0},                         /* HPE PALS */
    {"SLURM_PROCID", {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, 0},  /* srun */
};

/* A decimal number in [0, limit]; -1 when `s` is anything else. */
static long number(const char *s, long limit)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v <= limit ? v : -1;
}

int iol_launcher_rank(char *(*get)(const char *), int *rank, int *size, const char **var)
{
    const long limit = 1L << 30;
    for (size_t i = 0; i < sizeof LAUNCHERS / sizeof LAUNCHERS[0]; i++) {
        const launcher_vars *l = &LAUNCHERS[i];
        long r = number(get(l->rank), limit);
        if (r < 0)
            continue;
        long n = -1;
        for (int k = 0; k < 2 && l->size[k] && n < 0; k++)
            n = number(get(l->size[k]), limit);
        if (n < 0 && l->size_required)
            continue;
        if (n < 0)
            n = r + 1;      /* unknown: at least this many (a merge takes the largest) */
        if (r >= n)
            continue;
        *rank = (int)r;
        *size = (int)n;
        *var = l->rank;
        return 1;
    }
    return 0;
}
