/* `iolens run -- mpiexec ...`: the MPI runtime goes into the ranks, not into the
 * launcher (docs/cli.md, `iolens run`; docs/mpi.md).  The launcher is recognised
 * by its name (symbolic links resolved) or, for a plain `mpiexec`/`mpirun`, by what
 * its `--version` says; the ranks get LD_PRELOAD and run's other settings through
 * the launcher's own option (Open MPI `-x`, MPICH Hydra `-genv`, Slurm
 * `--export`), with the libiolens-mpi.so built for that MPI (run_elf.c tells
 * which MPI a library or program links). */
#ifndef IOLENS_TOOLS_RUN_LAUNCHER_H
#define IOLENS_TOOLS_RUN_LAUNCHER_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    IOL_MPI_UNKNOWN = 0,      /* not an ELF file we can read (a script) */
    IOL_MPI_OPENMPI,          /* links libmpi.so.40 (or another libmpi soname but .12) */
    IOL_MPI_MPICH,            /* links libmpich.so.12 or the MPICH ABI's libmpi.so.12 */
    IOL_MPI_NONE              /* an ELF file that links no MPI library */
} iol_mpi_flavour;

typedef enum {
    IOL_LAUNCHER_NONE = 0,    /* not a launcher: run instruments the program itself */
    IOL_LAUNCHER_OPENMPI,     /* Open MPI's mpiexec/mpirun (orterun, prterun) */
    IOL_LAUNCHER_HYDRA,       /* MPICH's mpiexec/mpirun (Hydra) */
    IOL_LAUNCHER_SRUN,        /* Slurm's srun */
    IOL_LAUNCHER_OTHER        /* a launcher run cannot pass the runtime through */
} iol_launcher_kind;

/* run_elf.c: the MPI an ELF program or library links (its DT_NEEDED). */
iol_mpi_flavour iol_elf_mpi_flavour(const char *path);

const char *iol_mpi_flavour_name(iol_mpi_flavour f);   /* "Open MPI", "MPICH" */
const char *iol_launcher_name(iol_launcher_kind k);

/* Which launcher cmd0 (as given: a name looked up in PATH, or a path) is.  May
 * run `cmd0 --version` (at most 5 seconds) for a plain mpiexec/mpirun. */
iol_launcher_kind iol_launcher_detect(const char *cmd0);

/* Does cmd0's own name say it is a launcher?  (No look at the file: for a run
 * inside another run's job, whose runtime records what a look would touch.) */
int iol_launcher_named(const char *cmd0);

/* The MPI whose runtime the ranks need: the launcher's; for srun, the MPI the
 * program (the first operand that is an executable file) links, IOL_MPI_NONE
 * for a program that links none (not an MPI job: run instruments it as any
 * program), IOL_MPI_UNKNOWN when that cannot be read (a script). */
iol_mpi_flavour iol_launcher_flavour(iol_launcher_kind k, char **cmd);

/* The libiolens-mpi.so built for `want`: IOLENS_MPI_RUNTIME_OPENMPI or _MPICH,
 * then <prefix>/lib beside this program, the build tree, the install directory.
 * 0 found (out); -1 none at all; -2 only runtimes built for another MPI (out
 * holds the first of them); -3 the variable names a file of another MPI (out). */
int iol_mpi_runtime_find(iol_mpi_flavour want, char *out, size_t len);

/* Where `iolens run` looks for a library `name` it preloads: the file named by
 * the variable `var` when it is set (then only there), else, in order,
 * <prefix>/lib beside this program, build_path (NULL: none), the install
 * directory.  Fills cand[0..2]; returns how many. */
int iol_run_lib_candidates(const char *var, const char *name, const char *build_path,
                           char cand[][4096]);

/* The launcher's command line with "NAME=VALUE" settings (NULL-terminated) given
 * to every rank: Open MPI `-x NAME=VALUE`, Hydra `-genv NAME VALUE`, srun
 * `--export=ALL,NAME=VALUE,...` (a user's own --export is extended; NONE/NIL
 * become only ours).  The strings are malloc'd (free with iol_launcher_free).
 * NULL with errno EINVAL when srun cannot carry a value (a comma in it),
 * ENOMEM when out of memory. */
char **iol_launcher_argv(iol_launcher_kind k, char **cmd, char *const *vars);
void iol_launcher_free(char **argv);

/* argv as one shell command line (each word quoted when it needs it). */
void iol_print_command(FILE *out, char *const *argv);

#endif
