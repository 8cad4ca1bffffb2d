/* The program of `iolens run` and the signals run passes to it (docs/cli.md,
 * `iolens run`, "Signals").
 *
 * Outside a terminal's foreground (a batch job, a workflow engine) the program
 * runs in a new process group, so that a signal meant for `iolens run` (its pid,
 * or the group it was started in) reaches the program exactly once: run passes
 * TERM, INT, HUP, QUIT, USR1 and USR2 on to the program's group.  In a terminal's
 * foreground the program stays in run's group, where the terminal's signals reach
 * it directly, and run passes on only the signals sent to it.  After a
 * terminating signal (TERM, INT, HUP, QUIT) passed on, the wait is bounded, so
 * that run writes the job log before a scheduler's SIGKILL follows. */
#ifndef IOLENS_TOOLS_RUN_WAIT_H
#define IOLENS_TOOLS_RUN_WAIT_H

#include <sys/types.h>

/* fork + exec cmd (in a process group of its own, outside a terminal's
 * foreground); returns the pid, or -1 with *exec_errno set when cmd never
 * started. */
pid_t iol_run_start(char **cmd, int *exec_errno);

typedef struct iol_run_end {
    int status;          /* run's exit status: the program's, 128+N when killed by N */
    int signal;          /* the terminating signal run passed on (0: none) */
    int program_ended;   /* 0: the program still ran when the bounded wait ended */
} iol_run_end;

/* Wait for the program `root` and then for the processes it left (run is their
 * subreaper), passing signals on; at most wait_s seconds after the program ended
 * or after the first terminating signal. */
iol_run_end iol_run_wait(pid_t root, double wait_s);

#endif
