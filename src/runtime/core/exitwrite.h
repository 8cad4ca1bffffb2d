/* Exit-time log write that is safe from a signal handler (exitwrite.c). */
#ifndef IOLENS_RUNTIME_EXITWRITE_H
#define IOLENS_RUNTIME_EXITWRITE_H

#include <signal.h>

/* Longest wait for a log writer that is still making progress (ms). */
#define IOL_EXIT_WRITE_MAX_MS 20000

/* 1 while some thread of this process is writing the log (any path). */
extern int iol_log_writing;
/* A termination signal that arrived on another thread during the write and
 * was left to the writer (signals.c); 0 = none. */
extern int iol_held_sig;
/* signals.c: take the default action of `sig` now (restores SIG_DFL, raises). */
void iol_signal_default_now(int sig);
/* MPI mode (state.c, set by the MPI_Init wrapper): the log is written
 * collectively, in MPI_Finalize only. */
extern int iol_mpi_mode;

/* Block TERM, INT, HUP and QUIT in this thread; the previous mask in *old. */
void iol_block_term_signals(sigset_t *old);
/* Shut the runtime down from _exit, _Exit or a termination signal: the log is
 * written by a forked copy of the process while this one only waits (bounded).
 * Async-signal-safe.  Does nothing if the runtime is not on. */
void iol_core_shutdown_async(void);
/* Another thread is writing the log: wait (async-signal-safely, bounded) until
 * it is done.  For a termination signal that arrives on another thread. */
void iol_exit_hold(void);

#endif
