/* Who owns the log write at the end of the process, and what the other threads
 * do meanwhile (exitowner.c, issue #34).  Async-signal-safe. */
#ifndef IOLENS_RUNTIME_EXITOWNER_H
#define IOLENS_RUNTIME_EXITOWNER_H

/* The calling thread won the shutdown (the state moved to IOL_STOPPING): it
 * owns the write.  dying = 1 on the paths that end in the process's death
 * (_exit, _Exit, a termination signal): from here every other thread that
 * reaches a wrapper is held until the death (iol_exit_hold_if_dying). */
void iol_exit_owner_claim(int dying);
/* The owner's write is over (written or given up). */
void iol_exit_owner_done(void);
/* 1 when the calling thread owns the write. */
int iol_exit_owner_is_me(void);
/* Another thread owns the write and this one is about to end the process
 * (a shutdown that lost the race, a second exit): wait, bounded, until the
 * write is over, so that this exit does not kill it half-way.  Returns at once
 * when this thread is the owner (a signal handler re-entered).  The caller
 * holds no lock of ours (iol_locks_mine), which the owner may be waiting for. */
void iol_exit_wait_owner(void);
/* iol_exit_hold_if_dying (rt.h): called by a wrapper that finds the runtime
 * stopping or a module frozen; if the process is dying after its snapshot, it
 * holds the thread (sleeping, bounded) until the death.  It does not look at
 * the runtime's locks (this file stays below records.c): a thread held while
 * it holds one (a signal handler doing I/O on a thread interrupted inside an
 * update) makes the exit-time write give up after its 200 ms wait for the
 * locks, leaving the safety copy, and the process dies then. */
/* A fork child: it is not dying, and none of its threads called exit (a
 * thread forked while another one began the process's death or exit).  The
 * owner stays, so that a child left stopping does not wait for a claim. */
void iol_exit_owner_forked(void);
/* A restart (fork child, failed exec): nobody owns a write. */
void iol_exit_owner_reset(void);

#endif
