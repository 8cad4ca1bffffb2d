/* Everything in the runtime that depends on the processor, in one place (issue #32).
 * The rest of the runtime tests only the IOL_ARCH_* names defined here, never a
 * compiler's architecture macro.
 *
 *   iol_arch_pause()      the spin-wait hint of the lock loops (lock.c, records.c,
 *                         reclocks.c): x86 `pause`; aarch64 `yield` (a hint that
 *                         other hardware threads may run; `isb` would stall longer,
 *                         but `yield` is what the kernel's cpu_relax uses); ppc64
 *                         `or 27,27,27` (lower this hardware thread's priority;
 *                         the loops spin at most 64 times before sched_yield, so it
 *                         is never left low for long); s390x and others: nothing
 *                         (s390x has no such hint; the loops' sched_yield after 64
 *                         spins is the fallback).
 *   IOL_ARCH_COUNTER      1 where iol_arch_counter() reads a cycle-rate counter that
 *                         the kernel may keep time with: x86-64's TSC (rdtsc) and
 *                         aarch64's virtual counter (cntvct_el0).  clock.c uses it
 *                         only when the kernel's clocksource is that counter
 *                         (IOL_ARCH_CLOCKSOURCE, read from sysfs: then it is
 *                         invariant and synchronised across CPUs), and otherwise
 *                         reads clock_gettime.  0 elsewhere: clock_gettime always.
 *   IOL_ARCH_RAW_CLOCK    1 where iol_arch_raw_clock_gettime() makes the
 *                         clock_gettime system call without glibc (x86-64 Linux):
 *                         the fallback when the vDSO is missing (valgrind).
 *   iol_arch_add_once()   *p += v as one instruction where there is one (x86-64
 *                         `addq` to memory), so a signal handler on the same thread
 *                         cannot fall between a load and a store (modules/heatmap.h);
 *                         a plain add elsewhere (the documented small window).
 *   iol_arch_thread_id()  the thread pointer in one instruction (a builtin, or asm
 *                         where the compiler has none: x86-64 under clang, ppc64)
 *                         where IOL_ARCH_THREAD_POINTER is 1 (rt.h iol_self); else
 *                         rt.h takes the address of a thread-local, which a test
 *                         linking core files without the runtime must then define.
 *
 * The vfork stub (vfork.c) is assembly per architecture too; it keys on
 * IOL_ARCH_VFORK_STUB_X86_64 / _AARCH64 from here, and elsewhere vfork becomes fork. */
#ifndef IOLENS_RUNTIME_ARCH_H
#define IOLENS_RUNTIME_ARCH_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#define IOL_ARCH_COUNTER 1
#define IOL_ARCH_CLOCKSOURCE "tsc"
#define IOL_ARCH_VFORK_STUB_X86_64 1
#elif defined(__aarch64__)
#define IOL_ARCH_COUNTER 1
#define IOL_ARCH_CLOCKSOURCE "arch_sys_counter"
#define IOL_ARCH_VFORK_STUB_AARCH64 1
#else                                   /* ppc64le, s390x, others */
#define IOL_ARCH_COUNTER 0
#endif

#if defined(__x86_64__) && defined(__linux__)
#define IOL_ARCH_RAW_CLOCK 1
#else
#define IOL_ARCH_RAW_CLOCK 0
#endif

static inline __attribute__((always_inline)) void iol_arch_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#elif defined(__powerpc64__)
    __asm__ volatile("or 27,27,27" ::: "memory");
#else
    __asm__ volatile("" ::: "memory");     /* s390x and others: no hint */
#endif
}

/* The counter's ticks (meaningful only where IOL_ARCH_COUNTER is 1).  Unordered
 * reads on both (no lfence, no isb), as the wrappers' timing has always taken
 * them: a read may move by a few instructions around the call it brackets. */
static inline __attribute__((always_inline)) uint64_t iol_arch_counter(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

#if IOL_ARCH_RAW_CLOCK
static inline __attribute__((always_inline)) void iol_arch_raw_clock_gettime(clockid_t id,
                                                                           struct timespec *ts)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"(228L /* SYS_clock_gettime */), "D"((long)id), "S"(ts)
                     : "rcx", "r11", "memory");
    (void)ret;
}
#endif

static inline __attribute__((always_inline)) void iol_arch_add_once(int64_t *p, int64_t v)
{
#if defined(__x86_64__)
    __asm__("addq %1, %0" : "+m"(*p) : "er"(v));
#else
    *p += v;
#endif
}

#if (defined(__x86_64__) && !defined(__clang__) && __GNUC__ >= 11) || defined(__aarch64__) || \
    (defined(__s390x__) && !defined(__clang__))
#define IOL_ARCH_THREAD_POINTER 1
static inline uintptr_t iol_arch_thread_id(void) { return (uintptr_t)__builtin_thread_pointer(); }
#elif defined(__x86_64__) && defined(__linux__)
/* clang, older gcc: the thread control block starts with a pointer to itself. */
#define IOL_ARCH_THREAD_POINTER 1
static inline uintptr_t iol_arch_thread_id(void)
{
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp));
    return tp;
}
#elif defined(__powerpc64__)
/* r13 is the thread pointer in the 64-bit PowerPC ABI (gcc 12 has no builtin for it). */
#define IOL_ARCH_THREAD_POINTER 1
static inline uintptr_t iol_arch_thread_id(void)
{
    uintptr_t tp;
    __asm__("mr %0, 13" : "=r"(tp));
    return tp;
}
#else
#define IOL_ARCH_THREAD_POINTER 0
#endif

#endif
