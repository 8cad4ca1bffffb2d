/* A copy of the process that the program cannot see end (issue #34).
 *
 * The exit-time writer (exitwrite.c) runs in a copy of the process and the
 * process waits for it.  A copy made by fork/_Fork sends SIGCHLD when it ends,
 * and the program's own SIGCHLD handler (or a thread of it in wait(), or
 * waitpid(-1, ...)) would reap it: the program would see the status of a child
 * it never made, and the writer's wait would lose it.  So the copy is made with
 * clone and exit signal 0: the kernel calls such a child a "clone" child, sends
 * nothing when it ends, and waitpid/waitid report it only to a caller passing
 * __WALL or __WCLONE (the writer waits with __WALL).  With no SIGCHLD, a
 * program that ignores SIGCHLD (auto-reaping) does not reap it either.
 *
 * The flags are those of fork except the exit signal, with no CLONE_CHILD_*:
 * glibc's cached thread id in the copy stays the parent thread's.  The copy only
 * writes the log and exits; what it uses (malloc, zlib, file calls, our own
 * locks) does not depend on that id (glibc's raise and pthread_kill on the
 * calling thread ask the kernel for the id).  A raw system call: clone with a
 * NULL stack continues on a copy of this stack, as fork does, and every
 * argument after the flags is 0, so the order of clone's arguments, which
 * differs between architectures, does not matter. */
#include <sys/syscall.h>
#include <unistd.h>

#include "quietfork.h"

pid_t iol_fork_unseen(void)
{
    return (pid_t)syscall(SYS_clone, 0UL, 0UL, 0UL, 0UL, 0UL);
}
