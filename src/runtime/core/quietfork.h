/* The exit-time writer's copy of the process, unseen by the program (quietfork.c). */
#ifndef IOLENS_RUNTIME_QUIETFORK_H
#define IOLENS_RUNTIME_QUIETFORK_H

#include <sys/types.h>

/* As _Fork (async-signal-safe, no atfork handlers), but the child sends no
 * signal when it ends and only waitpid/waitid with __WALL or __WCLONE see it.
 * Returns 0 in the child, its pid in the parent, -1 with errno on failure. */
pid_t iol_fork_unseen(void);

#endif
