/* vfork: the child shares this process's memory until it execs or exits
 * (issue #21).  Whatever the runtime does in the child happens to the parent's
 * records and descriptor table: a child that dup2()s, closes or opens a tracked
 * descriptor before exec would remap the parent's descriptor, and the parent's
 * later I/O would be counted against the wrong file, or lost.
 *
 * So `vfork` is wrapped by a stub that marks the calling thread busy
 * (IOL_BUSY_VFORK in iol_busy, which the child sees too: it runs on this thread's
 * stack and thread-local storage) and then jumps to the real vfork.  Every
 * wrapper in the child therefore passes straight through (iol_on() fails on
 * iol_busy), with no cost on the hot path.  The mark is stale in the parent once
 * vfork returns there; the first out-of-line check afterwards (iol_vfork_child)
 * sees that getpid() is the parent's and clears it.
 *
 * The stub must not return through a stack frame of its own: the child returns
 * from vfork first and reuses that stack, so the parent would return through
 * whatever the child left there.  It is therefore a jump, written in assembly;
 * the C part (iol_vfork_prepare) runs and returns before the real vfork starts. */
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"

/* The process that called vfork (the same for every thread of it); 0 = none. */
static pid_t vfork_parent;

/* Called by the stub before the real vfork: mark this thread, return the real
 * function for the stub to jump to. */
__attribute__((visibility("hidden"), used)) void *iol_vfork_prepare(void)
{
    __atomic_store_n(&vfork_parent, getpid(), __ATOMIC_RELAXED);
    iol_busy |= IOL_BUSY_VFORK;
    return (void *)IOL_REAL(vfork);
}

int iol_vfork_child(void)
{
    if (__builtin_expect(!(iol_busy & IOL_BUSY_VFORK), 1))
        return 0;
    if (getpid() != __atomic_load_n(&vfork_parent, __ATOMIC_RELAXED))
        return 1;
    iol_busy &= ~IOL_BUSY_VFORK;     /* vfork has returned here, in the parent */
    return 0;
}

void iol_vfork_forget(void)
{
    iol_busy &= ~IOL_BUSY_VFORK;
}

#if IOL_ARCH_VFORK_STUB_X86_64
/* At entry the stack is 8 mod 16; one slot more aligns it for the call. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        ".p2align 4\n"
        "vfork:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "call iol_vfork_prepare\n"
        "addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "jmp *%rax\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");
#elif IOL_ARCH_VFORK_STUB_AARCH64
/* The return address is in x30: saved around the call, then the jump. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, %function\n"
        ".p2align 2\n"
        "vfork:\n"
#ifdef __ARM_FEATURE_BTI_DEFAULT
        "bti c\n"
#endif
        "stp x29, x30, [sp, #-16]!\n"
        "mov x29, sp\n"
        "bl iol_vfork_prepare\n"
        "ldp x29, x30, [sp], #16\n"
        "br x0\n"
        ".size vfork, .-vfork\n");
#else
/* No stub for this architecture: vfork becomes fork, which POSIX allows (the
 * child may only exec or _exit either way); a fork child starts afresh. */
pid_t vfork(void)
{
    return fork();
}
#endif
