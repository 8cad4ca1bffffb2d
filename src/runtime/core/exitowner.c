/* The exit of the process, not of the first thread to start one, owns the log
 * write (issue #34).
 *
 * Two races end a process while its log is half-written.  (1) Two threads call
 * exit() at once: glibc runs the exit handlers on both, the library destructor
 * (the write) on one, and the other thread's exit_group kills the writer.  So
 * the first caller of exit() goes on, and a later one waits here until the write
 * is over.  A shutdown that loses the race to another thread (_exit while the
 * destructor writes) waits the same way.  (2) A termination signal or _exit
 * writes the snapshot its forked copy takes, while the other threads go on
 * doing I/O until the process dies: so, from the start of that write, a thread
 * that reaches a wrapper (or finds its module frozen as it records a call that
 * has just returned) is held (asleep) until the death.  Its call either never
 * starts, or, already in the kernel at the freeze, never returns to the
 * program: every operation the program saw complete is in the log.
 *
 * Every wait is bounded, and only the dying paths hold threads: a normal exit
 * runs application code after the write (destructors, atexit handlers that may
 * join threads), an exec that fails goes on.  Async-signal-safe: atomics,
 * nanosleep and the monotonic clock only. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitowner.h"
#include "exitwrite.h"

/* Longest wait for another thread's write (its own bound, and a margin). */
#define IOL_OWNER_WAIT_MS (IOL_EXIT_WRITE_MAX_MS + 1000)
/* A held thread gives up after this: the process should be long dead. */
#define IOL_HOLD_MAX_MS (IOL_EXIT_WRITE_MAX_MS + 5000)
#define IOL_OWNER_POLL_NS 200000L
/* Longest wait for the winner of the state to claim the write. */
#define IOL_CLAIM_WAIT_MS 50
#define IOL_CLAIM_POLL_NS 10000L
#define IOL_HOLD_POLL_NS 1000000L

static uintptr_t owner;      /* iol_self() of the writer; 0 = none */
static int done;             /* the owner's write is over */
static int dying;            /* the owner's path ends in the process's death */
static uintptr_t exit_caller;   /* the first thread in exit() */

static long now_ms(void) { return iol_monotonic_ns() / 1000000; }

static void nap(long ns)
{
    struct timespec d = { 0, ns };
    nanosleep(&d, NULL);
}

void iol_exit_owner_claim(int on_death_path)
{
    __atomic_store_n(&done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&dying, on_death_path, __ATOMIC_RELAXED);
    __atomic_store_n(&owner, iol_self(), __ATOMIC_RELEASE);   /* publishes the two above */
}

void iol_exit_owner_done(void) { __atomic_store_n(&done, 1, __ATOMIC_RELEASE); }

int iol_exit_owner_is_me(void) { return __atomic_load_n(&owner, __ATOMIC_ACQUIRE) == iol_self(); }

/* Wait until the owner's write is over or `ms` have passed. */
static void wait_done(long ms)
{
    long deadline = now_ms() + ms;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) && now_ms() < deadline)
        nap(IOL_OWNER_POLL_NS);
}

void iol_exit_wait_owner(void)
{
    uintptr_t o = __atomic_load_n(&owner, __ATOMIC_ACQUIRE);
    if (o == 0 || o == iol_self())
        return;
    int saved = errno;
    wait_done(IOL_OWNER_WAIT_MS);
    errno = saved;
}

/* The owner of the write.  Just after the state became IOL_STOPPING its winner
 * may not have claimed the write yet (a few instructions, unless it was
 * preempted): wait for the claim then, briefly and bounded, so that no call
 * slips through that window unrecorded. */
static uintptr_t owner_now(void)
{
    uintptr_t o = __atomic_load_n(&owner, __ATOMIC_ACQUIRE);
    if (o || __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE) != IOL_STOPPING)
        return o;
    long deadline = now_ms() + IOL_CLAIM_WAIT_MS;
    while (!(o = __atomic_load_n(&owner, __ATOMIC_ACQUIRE)) && now_ms() < deadline)
        nap(IOL_CLAIM_POLL_NS);
    return o;
}

void iol_exit_hold_if_dying(void)
{
    uintptr_t o = owner_now();
    if (!o || o == iol_self() || !__atomic_load_n(&dying, __ATOMIC_RELAXED) || iol_busy)
        return;
    int saved = errno;
    long deadline = now_ms() + IOL_HOLD_MAX_MS;
    while (now_ms() < deadline)
        nap(IOL_HOLD_POLL_NS);
    errno = saved;
}

void iol_exit_owner_forked(void)
{
    __atomic_store_n(&dying, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&exit_caller, 0, __ATOMIC_RELAXED);
}

void iol_exit_owner_reset(void)
{
    __atomic_store_n(&dying, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&exit_caller, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&done, 0, __ATOMIC_RELEASE);
}

/* The first thread to call exit goes on (its exit handlers reach the library
 * destructor, which writes the log); a later one waits until the runtime has
 * stopped and its write is over, then exits as it would have (calling exit
 * twice is undefined; glibc 2.41 and later make the later caller block).  The
 * wait is bounded: an exit handler of the first caller that waits for the later
 * one (joins it) delays the exit by at most IOL_OWNER_WAIT_MS.  A return from
 * main calls exit from inside the C library, out of our sight: a thread that
 * calls exit while main returns is not held (docs/runtime.md). */
void exit(int status)
{
    uintptr_t none = 0, me = iol_self();
    if (!iol_vfork_child() && getpid() == iol_self_pid &&
        !__atomic_compare_exchange_n(&exit_caller, &none, me, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE) &&
        none != me) {
        int s = __atomic_load_n(&iol_state, __ATOMIC_ACQUIRE);
        if (iol_is_on(s) || s == IOL_STOPPING)
            wait_done(IOL_OWNER_WAIT_MS);
    }
    IOL_REAL(exit)(status);
    __builtin_unreachable();
}
