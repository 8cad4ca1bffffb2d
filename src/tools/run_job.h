/* `iolens run`'s job: every process the program starts writes its own log; when
 * the program ends, run_job.c recovers the safety copies of the processes that
 * were killed and merges all logs into one job log (docs/cli.md, `iolens run`). */
#ifndef IOLENS_TOOLS_RUN_JOB_H
#define IOLENS_TOOLS_RUN_JOB_H

#include <stddef.h>
#include <sys/types.h>

typedef struct iol_run_job {
    char report[4096];       /* IOLENS_LOG_REPORT: the runtime appends each log's path */
    char safety_dir[4096];   /* this run's private DARSHAN_MMAP_LOGPATH; "" = none */
    int keep_process_logs;   /* keep every process's log beside the job log */
    int mpi;                 /* an MPI launcher's ranks write the log: no private
                              * directory (they may run on other nodes) */
} iol_run_job;

/* Before the program starts: create the report file and the private directory
 * for the safety copies of this run's processes (so that the copies of killed
 * processes are found and no other job's; not for MPI ranks), and put both in the
 * environment.
 * 0, or -1 with errno set when the report file cannot be made. */
int iol_run_job_prepare(iol_run_job *job);

/* After the program (pid `root`) and every process still in its tree have ended:
 * recover, merge, print the job log's path on stderr (or why there is none) and
 * one line per partial module of it (partial_hint.c), and remove the report file
 * and the private directory.  `logpath` is --logpath
 * (NULL: not given), named in the message when nothing was recorded. */
void iol_run_job_finish(iol_run_job *job, pid_t root, const char *logpath);

/* Discard the report file and directory (the program never started). */
void iol_run_job_discard(iol_run_job *job);

#endif
