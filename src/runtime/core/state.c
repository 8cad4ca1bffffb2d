/* The process-wide state every core file reads: the life-cycle state, the
 * settings, the job's identity and the start time.  It is defined here, apart
 * from the code that sets it (init.c), so that the files reading it depend on
 * this file only and init.c can call them without the two using each other
 * (ctest iolens-runtime_core_one_way).  Variables only, no code. */
#include "core_int.h"
#include "exitwrite.h"

int iol_state;
__thread int iol_busy __attribute__((tls_model("initial-exec")));
struct timespec iol_t0;
struct timespec iol_start_abs;
iol_config iol_cfg;
int iol_rank, iol_nprocs = 1;
pid_t iol_fork_parent;
pid_t iol_job_pid;
pid_t iol_self_pid;                  /* the process whose records these are */
int iol_mpi_mode;                    /* set by the MPI_Init wrapper (src/runtime/mpi) */
