/* The job's nodes as its processes see them (collective, at MPI_Finalize before
 * the job record is written): node count, processes per node and the host
 * names, which replace the scheduler's numbers in the platform facts.
 *
 * Processes are grouped by shared memory (MPI_COMM_TYPE_SHARED: one group per
 * node); only the first process of each node sends its host name, so rank 0
 * receives one name per node, not one per process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/core_int.h"
#include "mpi_int.h"

#define HOST_LEN 64

/* Rank 0: host names (HOST_LEN bytes each) of the node leaders -> facts. */
static void set_facts(char *names, int nnodes, int ppn_min, int ppn_max)
{
    const char **ptr = malloc((size_t)nnodes * sizeof *ptr);
    char v[300];
    if (ptr) {
        for (int i = 0; i < nnodes; i++) {
            names[(size_t)i * HOST_LEN + HOST_LEN - 1] = '\0';
            ptr[i] = names + (size_t)i * HOST_LEN;
        }
        iol_hostlist(ptr, (size_t)nnodes, v, 256);
        iol_fact_set(IOL_FACT_hosts, v);
        free(ptr);
    }
    iol_fact_nodes(nnodes, ppn_min, ppn_max);
}

void iol_mpi_nodes(void)
{
    int rank, local_rank, local_size;
    MPI_Comm node, leaders = MPI_COMM_NULL;
    PMPI_Comm_rank(iol_mpi_comm, &rank);
    if (PMPI_Comm_split_type(iol_mpi_comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return;
    PMPI_Comm_rank(node, &local_rank);
    PMPI_Comm_size(node, &local_size);
    PMPI_Comm_free(&node);
    /* max of (size, -size) gives the largest and the smallest node in one call */
    int mine[2] = { local_size, -local_size }, ext[2] = { 0, 0 };
    PMPI_Reduce(mine, ext, 2, MPI_INT, MPI_MAX, 0, iol_mpi_comm);
    PMPI_Comm_split(iol_mpi_comm, local_rank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
    if (leaders == MPI_COMM_NULL)
        return;
    int lrank, nnodes;
    PMPI_Comm_rank(leaders, &lrank);
    PMPI_Comm_size(leaders, &nnodes);
    char host[HOST_LEN] = "";
    gethostname(host, HOST_LEN - 1);
    char *all = lrank == 0 ? calloc((size_t)nnodes, HOST_LEN) : NULL;
    int ok = lrank != 0 || all != NULL;
    /* rank 0 is the leader of its node and rank 0 of `leaders` (key = world rank) */
    PMPI_Bcast(&ok, 1, MPI_INT, 0, leaders);
    if (ok)
        PMPI_Gather(host, HOST_LEN, MPI_CHAR, all, HOST_LEN, MPI_CHAR, 0, leaders);
    PMPI_Comm_free(&leaders);
    if (rank == 0 && ok)
        set_facts(all, nnodes, -ext[1], ext[0]);
    free(all);
}
