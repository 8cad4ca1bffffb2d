/* The job id of an MPI job (runtime spec 3.7), decided by process 0 and shared:
 *   1. the variable named by DARSHAN_JOBID / config JOBID (upstream's only source);
 *   2. otherwise the scheduler's own variable: SLURM_JOB_ID, SLURM_JOBID, PBS_JOBID,
 *      LSB_JOBID, COBALT_JOBID, JOB_ID (the first that starts with a number);
 *   3. otherwise process 0's pid.
 * Values are read like upstream's sscanf("%d"): "123.server" gives 123.
 * Collective over iol_mpi_comm. */
#include <stdlib.h>
#include <unistd.h>

#include "../core/core_int.h"
#include "mpi_int.h"

static const char *const SCHEDULER_VARS[] = {
    "SLURM_JOB_ID", "SLURM_JOBID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "JOB_ID",
};

/* Leading decimal integer of s that fits a C int, or -1. */
static int64_t leading_int(const char *s)
{
    if (!s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v > 2147483647L)
        return -1;
    return v;
}

static int64_t local_job_id(void)
{
    if (iol_cfg.jobid >= 0)
        return iol_cfg.jobid;
    for (size_t i = 0; i < sizeof SCHEDULER_VARS / sizeof SCHEDULER_VARS[0]; i++) {
        int64_t v = leading_int(getenv(SCHEDULER_VARS[i]));
        if (v >= 0)
            return v;
    }
    return getpid();
}

int64_t iol_mpi_job_id(void)
{
    long long id = local_job_id();
    PMPI_Bcast(&id, 1, MPI_LONG_LONG, 0, iol_mpi_comm);
    return id;
}
