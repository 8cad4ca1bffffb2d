/* All of the runtime's locks at once (locks_all.c).  Async-signal-safe. */
#ifndef IOLENS_RUNTIME_LOCKS_ALL_H
#define IOLENS_RUNTIME_LOCKS_ALL_H

/* Take every module lock and the name lock, waiting at most budget_ns in all
 * for other threads to leave them.  A lock this thread already holds is left as
 * it is (and not given back later).  On success every module is frozen (records
 * nothing more).  Returns 0, or -1 with nothing taken. */
int iol_locks_take_all(long budget_ns);
/* Give back what iol_locks_take_all took (in this process: a fork copy has
 * the same locks, held by the same thread identity). */
void iol_locks_give_all(void);
/* In the fork copy, before it freezes the modules: give back what was taken and
 * clear every record lock.  A thread of the parent may have taken a record lock
 * after iol_locks_take_all waited for them (it saw `frozen` and was about to give
 * it back, changing nothing) when the fork happened; that thread does not exist
 * in the copy, whose freeze would otherwise wait for it for ever. */
void iol_locks_reset_in_copy(void);
/* 1 when this thread holds one of those locks (a signal interrupted it). */
int iol_locks_mine(void);

#endif
