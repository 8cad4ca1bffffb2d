/* May the exit-time write fork? (nofork.c, issue #34) */
#ifndef IOLENS_RUNTIME_NOFORK_H
#define IOLENS_RUNTIME_NOFORK_H

/* At init: remember the seccomp filters the process starts with. */
void iol_nofork_note_init(void);
/* 1 when a seccomp filter was installed since init: it may kill the process
 * on fork, and a filter that kills cannot be seen failing first.
 * Async-signal-safe. */
int iol_fork_forbidden(void);
/* Say on stderr (one write) that the log is not written at this exit and where
 * the records are kept.  Async-signal-safe. */
void iol_nofork_say(void);

#endif
