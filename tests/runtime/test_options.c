/* Unit test of the runtime's settings table (src/runtime/core/options*.c): value
 * parsing, precedence, list pairs, rank lists, name rules.  Uses a fake getenv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

static const char *const *fake_env;
static char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return (char *)*e + n + 1;
    return NULL;
}

static int warnings;
static void count_warn(const char *fmt, ...) { warnings++; }

static int failures;
#define CHECK(c)                                                    \
    do {                                                            \
        if (!(c)) {                                                 \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                             \
        }                                                           \
    } while (0)

static void load(iol_config *c, const char *const *env)
{
    fake_env = env;
    warnings = 0;
    iol_config_load(c, fake_getenv, count_warn);
}

/* Ranks of launchers without MPI (src/config/launcher.c): which variable wins,
 * which pairs are refused. */
static int launcher(const char *const *env, int *rank, int *size, const char **var)
{
    fake_env = env;
    *rank = *size = -7;
    return iol_launcher_rank(fake_getenv, rank, size, var);
}

static void launcher_ranks(void)
{
    int r, n;
    const char *v;
    CHECK(!launcher((const char *const[]){"HOME=/", NULL}, &r, &n, &v));
    CHECK(launcher((const char *const[]){"RANK=3", "WORLD_SIZE=4", NULL}, &r, &n, &v) &&
          r == 3 && n == 4 && !strcmp(v, "RANK"));
    /* RANK alone (a common word) or out of range is no launcher's */
    CHECK(!launcher((const char *const[]){"RANK=3", NULL}, &r, &n, &v));
    CHECK(!launcher((const char *const[]){"RANK=4", "WORLD_SIZE=4", NULL}, &r, &n, &v));
    CHECK(!launcher((const char *const[]){"RANK=-1", "WORLD_SIZE=4", NULL}, &r, &n, &v));
    CHECK(!launcher((const char *const[]){"RANK=1x", "WORLD_SIZE=4", NULL}, &r, &n, &v));
    CHECK(!launcher((const char *const[]){"RANK=", "WORLD_SIZE=", NULL}, &r, &n, &v));
    /* ... and a refused pair leaves the next launcher's */
    CHECK(launcher((const char *const[]){"RANK=9", "WORLD_SIZE=2", "SLURM_PROCID=1",
                                         "SLURM_NTASKS=8", NULL}, &r, &n, &v) &&
          r == 1 && n == 8 && !strcmp(v, "SLURM_PROCID"));
    /* the innermost launcher first: torchrun under srun, mpiexec in a batch script */
    CHECK(launcher((const char *const[]){"SLURM_PROCID=0", "SLURM_NTASKS=2", "RANK=5",
                                         "WORLD_SIZE=8", NULL}, &r, &n, &v) &&
          r == 5 && n == 8 && !strcmp(v, "RANK"));
    CHECK(launcher((const char *const[]){"SLURM_PROCID=0", "SLURM_NTASKS=1",
                                         "OMPI_COMM_WORLD_RANK=2", "OMPI_COMM_WORLD_SIZE=3",
                                         NULL}, &r, &n, &v) &&
          r == 2 && n == 3 && !strcmp(v, "OMPI_COMM_WORLD_RANK"));
    CHECK(launcher((const char *const[]){"PMI_RANK=6", "PMI_SIZE=7", NULL}, &r, &n, &v) &&
          r == 6 && n == 7);
    /* a step's task count before the allocation's */
    CHECK(launcher((const char *const[]){"SLURM_PROCID=3", "SLURM_NTASKS=64",
                                         "SLURM_STEP_NUM_TASKS=4", NULL}, &r, &n, &v) &&
          r == 3 && n == 4);
    /* no size exported: at least rank + 1 processes */
    CHECK(launcher((const char *const[]){"PMIX_RANK=5", NULL}, &r, &n, &v) && r == 5 && n == 6 &&
          !strcmp(v, "PMIX_RANK"));
    CHECK(launcher((const char *const[]){"PALS_RANKID=2", NULL}, &r, &n, &v) && r == 2 && n == 3);
    CHECK(launcher((const char *const[]){"PALS_RANKID=2", "PMI_SIZE=16", NULL}, &r, &n, &v) &&
          n == 16 && !strcmp(v, "PALS_RANKID"));
    /* the config table carries it */
    iol_config c;
    memset(&c, 0, sizeof c);
    load(&c, (const char *const[]){"RANK=1", "WORLD_SIZE=2", NULL});
    CHECK(c.launcher_rank == 1 && c.launcher_size == 2 && !strcmp(c.launcher_var, "RANK"));
    iol_config_free(&c);
    load(&c, (const char *const[]){NULL});
    CHECK(c.launcher_rank == -1 && c.launcher_var == NULL);
    iol_config_free(&c);
}

int main(void)
{
    static iol_config c;
    load(&c, (const char *const[]){NULL});
    CHECK(c.modmem == 4u << 20 && c.namemem == 1u << 20 && c.memalign == 8);
    CHECK(!c.enable_nonmpi && c.jobid == -1);
    CHECK((c.mod_disabled >> 10) & 1 && (c.mod_disabled >> 11) & 1 && !((c.mod_disabled >> 1) & 1));

    /* flags: presence, except the explicit off words */
    load(&c, (const char *const[]){"DARSHAN_ENABLE_NONMPI=", "DARSHAN_DISABLE=0", "DXT_ENABLE_IO_TRACE=", NULL});
    CHECK(c.enable_nonmpi && !c.disable && !((c.mod_disabled >> 10) & 1));

    /* an off-switch is a NO_ flag like IOLENS_NO_SAFETY_COPY: only a true word sets it */
    CHECK(!c.lustre_no_api);
    load(&c, (const char *const[]){"IOLENS_NO_LUSTRE_API=0", NULL});
    CHECK(!c.lustre_no_api);
    load(&c, (const char *const[]){"IOLENS_NO_LUSTRE_API=1", NULL});
    CHECK(c.lustre_no_api);
    CHECK(!c.no_tsc);
    load(&c, (const char *const[]){"IOLENS_NO_TSC=1", NULL});
    CHECK(c.no_tsc);

    /* fractional and bad sizes */
    load(&c, (const char *const[]){"DARSHAN_MODMEM=0.5", "DARSHAN_NAMEMEM=abc", "DARSHAN_MEMALIGN=0", NULL});
    CHECK(c.modmem == 512 * 1024 && c.namemem == 1u << 20 && c.memalign == 1 && warnings == 1);
    load(&c, (const char *const[]){"DARSHAN_MODMEM=0.0000001", NULL});
    CHECK(c.modmem == 4096);

    /* job id through the named variable */
    load(&c, (const char *const[]){"DARSHAN_JOBID=PBS_JOBID", "PBS_JOBID=123.server", NULL});
    CHECK(c.jobid == 123);

    /* module lists: enable beats disable; unknown names warned */
    load(&c, (const char *const[]){"DARSHAN_MOD_DISABLE=POSIX,STDIO,NOPE", "DARSHAN_MOD_ENABLE=STDIO", NULL});
    CHECK(((c.mod_disabled >> 1) & 1) && !((c.mod_disabled >> 9) & 1) && warnings == 1);

    /* rank lists: ranges, open ends, junk ignored without hanging */
    load(&c, (const char *const[]){"DARSHAN_RANK_EXCLUDE=abc,2:4,7:", NULL});
    CHECK(!iol_config_rank_excluded(&c, 0, 10, count_warn));
    CHECK(iol_config_rank_excluded(&c, 3, 10, count_warn) && iol_config_rank_excluded(&c, 9, 10, count_warn));
    load(&c, (const char *const[]){"DARSHAN_RANK_EXCLUDE=*", "DARSHAN_RANK_INCLUDE=:1", NULL});
    CHECK(!iol_config_rank_excluded(&c, 1, 4, count_warn) && iol_config_rank_excluded(&c, 2, 4, count_warn));

    /* application rules look at the first word only */
    load(&c, (const char *const[]){"DARSHAN_APP_EXCLUDE=^/usr/bin/,python", NULL});
    CHECK(iol_config_app_excluded(&c, "/usr/bin/ls -l", count_warn));
    CHECK(!iol_config_app_excluded(&c, "./a.out python", count_warn));

    /* config file: keys, name rules, MAX_RECORDS; env beats file; env list replaces file list */
    char path[] = "/tmp/iolens-optXXXXXX";
    int fd = mkstemp(path);
    const char *text = "# comment\n  MODMEM 8\nMAX_RECORDS 3 POSIX,STDIO\n"
                       "NAME_EXCLUDE \\.py$,^/scratch/ POSIX\nMOD_DISABLE STDIO\nBOGUS 1\nDUMP_CONFIG\n"
                       "NO_LUSTRE_API\nNO_TSC\n";
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    char cp[64];
    snprintf(cp, sizeof cp, "DARSHAN_CONFIG_PATH=%s", path);
    load(&c, (const char *const[]){cp, "DARSHAN_MODMEM=2", "DARSHAN_MOD_ENABLE=HEATMAP", NULL});
    CHECK(c.modmem == 2u << 20 && c.max_records[1] == 3 && c.max_records[9] == 3 && c.dump_config);
    CHECK(c.nrules == 2 && warnings == 1);             /* BOGUS */
    CHECK(!((c.mod_disabled >> 9) & 1));                /* file MOD_DISABLE dropped */
    CHECK(c.lustre_no_api);                             /* NO_LUSTRE_API */
    CHECK(c.no_tsc);                                    /* NO_TSC */
    iol_config_free(&c);
    unlink(path);

    launcher_ranks();

    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
