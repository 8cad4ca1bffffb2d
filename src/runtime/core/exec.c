/* The exec family: an exit path that bypasses the library destructor.  Before the
 * image is replaced the log is written; exec then runs with the caller's
 * arguments, and if it fails (it returns), its return value and errno reach the
 * caller unchanged and recording starts again. */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "../wrappers/real.h"
#include "core_int.h"
#include "exitwrite.h"
#include "safety.h"

static int has_records(void)
{
    for (size_t i = 0; i < iol_module_ndescs; i++)
        if (iol_mods[iol_module_descs[i]->id].count)
            return 1;
    return 0;
}

/* Before the image is replaced: write the log if anything was recorded (a fork
 * child that only execs, as in every shell pipeline, leaves no empty log), and
 * drop the safety copy otherwise.  MPI mode keeps the safety copy: the log write
 * is collective.  Never in a vfork child (iol_core_exec_ok), which shares our
 * memory. */
static void before_exec(void)
{
    int saved = errno;
    if (!iol_vfork_child() && iol_is_on(__atomic_load_n(&iol_state, __ATOMIC_ACQUIRE)) &&
        !iol_busy && !iol_mpi_mode && iol_core_exec_ok()) {
        int write = has_records();
        iol_core_shutdown(write);
        if (!write)
            iol_safety_remove();
    }
    errno = saved;
}

/* After a failed exec: record again (iol_core_resume_after_exec keeps errno). */
static int after_exec(int rc)
{
    iol_core_resume_after_exec();
    return rc;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    before_exec();
    return after_exec(IOL_REAL(execve)(path, argv, envp));
}

int execv(const char *path, char *const argv[])
{
    before_exec();
    return after_exec(IOL_REAL(execv)(path, argv));
}

int execvp(const char *file, char *const argv[])
{
    before_exec();
    return after_exec(IOL_REAL(execvp)(file, argv));
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    before_exec();
    return after_exec(IOL_REAL(execvpe)(file, argv, envp));
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
    before_exec();
    return after_exec(IOL_REAL(fexecve)(fd, argv, envp));
}

/* ---------------------------------------------------------------- execl forms */

/* glibc declares the execl forms' `arg` nonnull, but callers do pass NULL (an
 * empty argv): hide the value from the optimiser so the test is kept. */
static inline const char *opaque(const char *p)
{
    __asm__("" : "+r"(p));
    return p;
}

/* How many arguments from `first` to the terminating NULL (itself excluded);
 * *ap is left where it was. */
static size_t count_args(const char *first, va_list *ap)
{
    size_t n = 1;
    va_list cp;
    va_copy(cp, *ap);
    if (opaque(first))
        while (va_arg(cp, char *))
            n++;
    va_end(cp);
    return n;
}

/* argv[0..n) from `first` and *ap, then NULL; *ap is left after the terminating
 * NULL (where execle's envp is). */
static void fill_args(char **argv, const char *first, size_t n, va_list *ap)
{
    argv[0] = (char *)first;
    for (size_t k = 1; k < n; k++)
        argv[k] = va_arg(*ap, char *);
    argv[n] = NULL;
    if (opaque(first))
        (void)va_arg(*ap, char *);
}

/* In an execl form: declares `va_list ap`, started after `first`, and `char *argv[]`
 * holding `first` and the arguments after it; ap is left after the terminating
 * NULL (where execle's envp is), for the caller to va_end. */
#define IOL_ARGV_FROM_VA(argv, first)                                           \
    va_list ap;                                                                 \
    va_start(ap, first);                                                        \
    size_t argv##_n = count_args(first, &ap);                                   \
    char *argv[argv##_n + 1];                                                   \
    fill_args(argv, first, argv##_n, &ap)

int execl(const char *path, const char *arg, ...)
{
    IOL_ARGV_FROM_VA(argv, arg);
    va_end(ap);
    before_exec();
    return after_exec(IOL_REAL(execv)(path, argv));
}

int execlp(const char *file, const char *arg, ...)
{
    IOL_ARGV_FROM_VA(argv, arg);
    va_end(ap);
    before_exec();
    return after_exec(IOL_REAL(execvp)(file, argv));
}

int execle(const char *path, const char *arg, ...)
{
    IOL_ARGV_FROM_VA(argv, arg);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    before_exec();
    return after_exec(IOL_REAL(execve)(path, argv, envp));
}
