/* The program's process group, its terminal and the signals run passes on
 * (run_wait.h).
 *
 * Signals are taken synchronously: run blocks the ones it passes on and SIGCHLD
 * before it forks, and waits for them with sigtimedwait, so none is lost between
 * a check and a wait, and none interrupts the job log's write afterwards (a
 * signal still pending when run exits dies with it).  The child restores the
 * signal mask and SIGCHLD's disposition that run was given before it execs.
 *
 * Two cases:
 *  - run is not in the foreground of its terminal (a batch job, a workflow
 *    engine, a background job): the program gets a process group of its own, and
 *    every signal run gets is passed on to that group, once;
 *  - run is in the foreground of its terminal (a user at a shell): the program
 *    stays in run's group, as without run.  The terminal's own signals (^C, ^Z,
 *    ^\, a hangup; sent by the kernel) reach the program directly and are not
 *    passed on; run stops and continues with its job.  A signal someone sends to
 *    run (kill PID) is passed on to the program.  Handing the terminal to a group
 *    of the program's own would stop the other members of a pipeline that read it
 *    (`iolens run -- prog | less`). */
#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_wait.h"

static const int FORWARDED[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static sigset_t waited;          /* what sigtimedwait takes: the forwarded ones, SIGCHLD */
static sigset_t mask_given;      /* run's mask when it started: the program's too */
static struct sigaction chld_given;
static int tty = -1;             /* our controlling terminal among fds 0-2, or -1 */
static int own_group;            /* the program has a process group of its own */

static int terminating(int sig)
{
    return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

/* Block what run waits for; a signal run was started ignoring stays ignored
 * (nohup) and is not passed on.  SIGCHLD at its default, so children are
 * never reaped behind run's back (a SIG_IGN given to run would). */
static void take_signals(void)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL}, cur;
    sigemptyset(&waited);
    sigaddset(&waited, SIGCHLD);
    for (size_t i = 0; i < sizeof FORWARDED / sizeof *FORWARDED; i++)
        if (sigaction(FORWARDED[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
            sigaddset(&waited, FORWARDED[i]);
    sigset_t block = waited;
    sigaddset(&block, SIGTTOU);   /* tcsetpgrp from a background group */
    sigprocmask(SIG_BLOCK, &block, &mask_given);
    sigaction(SIGCHLD, &dfl, &chld_given);
}

/* Our controlling terminal among fds 0-2 (a terminal with a foreground group
 * we can ask for: not another session's), or -1. */
static int find_tty(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (isatty(fd) && tcgetpgrp(fd) > 0)
            return fd;
    return -1;
}

static int holds_terminal(void)
{
    return tty >= 0 && tcgetpgrp(tty) == getpgrp();
}

pid_t iol_run_start(char **cmd, int *exec_errno)
{
    int fds[2];
    *exec_errno = 0;
    take_signals();
    tty = find_tty();
    own_group = !holds_terminal();
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *exec_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *exec_errno = errno;
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (own_group)
            setpgid(0, 0);
        sigaction(SIGCHLD, &chld_given, NULL);
        sigprocmask(SIG_SETMASK, &mask_given, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(IOL_EXIT_NOT_STARTED);
    }
    close(fds[1]);
    if (own_group)
        setpgid(pid, pid);               /* EACCES once it has exec'd: done already */
    /* It closes unread exactly when exec works. */
    int e = 0;
    ssize_t r;
    while ((r = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (r == (ssize_t)sizeof e) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        *exec_errno = e;
        return -1;
    }
    return pid;
}

/* The program, in a group of its own, stopped (a read from the terminal in the
 * background, or a stop signal passed on): stop run too, so that the shell sees
 * its job stopped; when continued, give the program the terminal if run is in
 * the foreground now (`fg`), and continue it.  Without a terminal nobody does job
 * control: wait on.  (In run's group, run stops with it by itself.) */
static void stop_with(pid_t group)
{
    if (tty < 0 || !own_group)
        return;
    if (tcgetpgrp(tty) == group)
        tcsetpgrp(tty, getpgrp());       /* given at an earlier `fg` */
    raise(SIGSTOP);
    if (holds_terminal())
        tcsetpgrp(tty, group);
    kill(-group, SIGCONT);
}

/* Pass sig on; 0 when it is the terminal's own, which reached the program. */
static int pass_on(pid_t root, int sig, const siginfo_t *info)
{
    if (own_group)
        return kill(-root, sig), 1;
    if (info->si_code == SI_KERNEL)
        return 0;
    kill(root, sig);
    return 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Reap what has ended; the program's status into *end.  0, or -1 when no
 * child is left (the whole tree has ended). */
static int reap(pid_t root, iol_run_end *end, int *root_status)
{
    int st;
    pid_t r;
    while ((r = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
        if (r != root)
            continue;
        if (WIFSTOPPED(st))
            stop_with(root);
        else if (!end->program_ended) {
            end->program_ended = 1;
            *root_status = st;
        }
    }
    return r < 0 && errno == ECHILD ? -1 : 0;
}

iol_run_end iol_run_wait(pid_t root, double wait_s)
{
    iol_run_end end = {0, 0, 0};
    int root_status = 0;
    double deadline = INFINITY;
    for (;;) {
        int none_left = reap(root, &end, &root_status) != 0;
        if (none_left)
            break;                            /* the whole tree has ended */
        if (end.program_ended && isinf(deadline))
            deadline = now_s() + wait_s;      /* then the processes it left */
        double left = deadline - now_s();
        if (left <= 0)
            break;
        siginfo_t info;
        int sig;
        if (isinf(left)) {
            sig = sigwaitinfo(&waited, &info);
        } else {
            struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
            sig = sigtimedwait(&waited, &info, &ts);
        }
        if (sig <= 0 || sig == SIGCHLD || !pass_on(root, sig, &info))
            continue;
        if (terminating(sig) && !end.signal) {
            end.signal = sig;
            if (now_s() + wait_s < deadline)
                deadline = now_s() + wait_s;
        }
    }
    if (tty >= 0 && tcgetpgrp(tty) == root)
        tcsetpgrp(tty, getpgrp());
    if (end.program_ended)
        end.status = WIFEXITED(root_status) ? WEXITSTATUS(root_status)
                   : WIFSIGNALED(root_status) ? 128 + WTERMSIG(root_status) : 1;
    else
        end.status = 128 + end.signal;
    return end;
}
