/* What the MPI part of the runtime (src/runtime/mpi, core/reduce.c, the MPI-IO
 * module) shares.  Only compiled into the MPI runtime (libiolens-mpi.so).
 *
 * Real MPI functions: the runtime defines MPI_X and PMPI_X for every call it
 * intercepts (PMPI_X an alias of the same wrapper, so bindings that call PMPI_X
 * directly, e.g. Open MPI's Fortran ones, are seen too).  The real PMPI_X is
 * therefore resolved with dlsym(RTLD_NEXT) (mpi_real.def), never called by name.
 * MPI calls the runtime does not intercept (PMPI_Barrier, PMPI_Reduce, ...) are
 * called directly. */
#ifndef IOLENS_RUNTIME_MPI_INT_H
#define IOLENS_RUNTIME_MPI_INT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "iolens/log.h"

typedef struct iol_mpi_real_table {
#define IOL_MPI_FN(ret, name, params) ret (*name) params;
#include "mpi_real.def"
#undef IOL_MPI_FN
} iol_mpi_real_table;
extern iol_mpi_real_table iol_mpi_real;
void *iol_mpi_resolve(const char *name, void **slot);
#define IOL_MPI_REAL(name)                                                            \
    (__builtin_expect(iol_mpi_real.name != NULL, 1)                                   \
         ? iol_mpi_real.name                                                          \
         : (__typeof__(iol_mpi_real.name))iol_mpi_resolve(#name, (void **)&iol_mpi_real.name))

/* The runtime's own communicator (a dup of MPI_COMM_WORLD made at MPI_Init). */
extern MPI_Comm iol_mpi_comm;

/* core/init.c and core/logwrite.c hooks */
void iol_core_init_mpi(int rank, int nprocs);
extern int (*iol_log_write_mpi)(void);
extern int iol_mpi_finalizing;
void iol_log_fill_job(iolens_job *job, iolens_mount *mounts, char *exe_mounts, size_t len);
void iol_log_base_name(char *out, size_t len, unsigned salt);   /* salt: another name */
void iol_log_report_path(const char *path);

/* modules/heatmap.c: the common end time of the heatmaps (0 = the process's own). */
extern double iol_heatmap_end;

/* jobid.c: the job id every process agrees on (runtime spec 3.7, collective). */
int64_t iol_mpi_job_id(void);

/* nodes.c: node count, processes per node and host names into the platform
 * facts (collective; the facts are set on rank 0). */
void iol_mpi_nodes(void);

/* logwrite_mpi.c: the collective writer installed into iol_log_write_mpi. */
int iol_mpi_log_write(void);

/* core/reduce.c: shared records (runtime spec 3.2-3.4).
 * iol_shared_detect (collective) fills, for every name this process knows, the
 * mask of modules in which every process registered it.  iol_shared_reduce
 * (collective) then reduces one module's payload of `*count` records of
 * `rec_size` bytes in place: on return rank 0 holds the combined records (rank
 * -1) after its own, and the other ranks have dropped theirs. */
typedef struct iol_shared {
    size_t n;              /* names of rank 0 */
    uint64_t *id;          /* sorted ascending */
    uint64_t *mask;        /* module bits shared by every process */
} iol_shared;
int iol_shared_detect(iol_shared *s);
void iol_shared_free(iol_shared *s);
/* The shared records of a module with per-file records outside the core (its
 * `shared` callback): not reduced, only marked (not collective). */
struct iol_module;
void iol_shared_mark(const iol_shared *s, struct iol_module *m);
uint64_t iol_shared_mask(const iol_shared *s, uint64_t id);
int iol_shared_reduce(const iol_shared *s, int module, uint8_t *recs, size_t rec_size,
                      size_t *count);

#endif
