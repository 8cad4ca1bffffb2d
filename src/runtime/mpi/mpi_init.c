/* MPI_Init, MPI_Init_thread and MPI_Finalize (and their PMPI_ twins): the runtime
 * starts once MPI_Init has succeeded and writes the one log of the job, collectively,
 * before the real MPI_Finalize (runtime spec 1.1).  Fortran programs are covered
 * because both Open MPI's and MPICH's Fortran bindings call MPI_Init/PMPI_Init
 * through the dynamic linker.
 *
 * Contract: the application's return values are passed through untouched; a
 * failure inside the runtime loses the log, never the application's MPI. */
#include "mpi_int.h"

#include <dlfcn.h>

#include "../core/core_int.h"
#include "../core/safety.h"

MPI_Comm iol_mpi_comm = MPI_COMM_NULL;
iol_mpi_real_table iol_mpi_real;

static int ret_mpi_err(void)
{
    return MPI_ERR_OTHER;
}

void *iol_mpi_resolve(const char *name, void **slot)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        iol_fail(IOL_FAIL_SYMBOL);
        p = (void *)ret_mpi_err;
    }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}

/* After a successful init of MPI: our communicator, then the core. */
static void start(void)
{
    static int started;
    if (started++)
        return;
    int rank = 0, size = 1;
    iol_busy++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &iol_mpi_comm) != MPI_SUCCESS)
        iol_mpi_comm = MPI_COMM_NULL;
    iol_busy--;
    if (iol_mpi_comm == MPI_COMM_NULL)
        return;
    iol_log_write_mpi = iol_mpi_log_write;
    iol_core_init_mpi(rank, size);
    /* Every process's safety copy carries the job's id (issue #21): collective,
     * so every process takes part whatever its own runtime state. */
    iol_busy++;
    int64_t id = iol_mpi_job_id();
    iol_busy--;
    if (iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE)) && iol_cfg.jobid < 0 && id > 0) {
        iol_job_pid = (pid_t)id;
        iol_safety_rejob();
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = IOL_MPI_REAL(PMPI_Init)(argc, argv);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}
int PMPI_Init(int *argc, char ***argv) __attribute__((alias("MPI_Init")));

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = IOL_MPI_REAL(PMPI_Init_thread)(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    __attribute__((alias("MPI_Init_thread")));

/* The log is written only if every process is running: one process that failed
 * to start must not leave the others waiting in a collective. */
int MPI_Finalize(void)
{
    if (iol_mpi_comm != MPI_COMM_NULL) {
        int on = iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE));
        iol_busy++;
        PMPI_Allreduce(MPI_IN_PLACE, &on, 1, MPI_INT, MPI_MIN, iol_mpi_comm);
        iol_busy--;
        iol_mpi_finalizing = 1;
        iol_core_shutdown(on);
        iol_mpi_finalizing = 0;
        iol_busy++;
        PMPI_Comm_free(&iol_mpi_comm);
        iol_busy--;
    }
    return IOL_MPI_REAL(PMPI_Finalize)();
}
int PMPI_Finalize(void) __attribute__((alias("MPI_Finalize")));
