/* Programs at the edges of their limits, for issue #34.  Usage:
 *   limitprobe MODE OUTDIR
 * Modes:
 *   io          opens, writes 10 bytes to and closes OUTDIR/data.<i>, i < 16;
 *               returns 0
 *   io_exit     the same, then _exit(0) (the log is written by a forked copy)
 *   bigwrite    io, then writes 2 MiB to OUTDIR/big in 64 KiB pieces (under a
 *               smaller RLIMIT_FSIZE the program's own write is killed by
 *               SIGXFSZ, as without the runtime)
 *   aslimit     lowers its RLIMIT_AS (soft) to the address space it has now, does
 *               the I/O of io (which must succeed: it needs no memory), raises
 *               the limit back and returns 0
 *   sigchld     installs a SIGCHLD handler that reaps every child it can
 *               (waitpid(-1, WNOHANG) in a loop) and prints "reaped <pid>
 *               <status>" for each; forks a child of its own that exits 7, waits
 *               (bounded) until the handler has reaped it and prints "child
 *               <pid>"; then does the I/O of io and calls _exit(0)
 *   sigchld_term  the same, but instead of _exit it prints "ready" and waits
 *               for SIGTERM (default action)
 * The program's own I/O goes through raw system calls where it must not be
 * recorded or must not allocate (reading /proc/self/statm). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/progs/expect.h"

static const char *outdir;

static void do_io(void)
{
    char p[4096];
    for (int i = 0; i < 16; i++) {
        snprintf(p, sizeof p, "%s/data.%d", outdir, i);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        EXPECT(fd >= 0);
        EXPECT(write(fd, "0123456789", 10) == 10);
        EXPECT(close(fd) == 0);
    }
}

static void big_write(void)
{
    static char buf[65536];
    char p[4096];
    snprintf(p, sizeof p, "%s/big", outdir);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    EXPECT(fd >= 0);
    for (int i = 0; i < 32; i++)
        EXPECT(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
    close(fd);
}

/* Bytes of address space in use, from /proc/self/statm (first field, pages),
 * read with raw system calls: no runtime wrapper, no allocation. */
static unsigned long vm_bytes(void)
{
    char buf[256];
    long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/statm", O_RDONLY);
    EXPECT(fd >= 0);
    long n = syscall(SYS_read, fd, buf, sizeof buf - 1);
    syscall(SYS_close, fd);
    EXPECT(n > 0);
    buf[n] = '\0';
    return strtoul(buf, NULL, 10) * (unsigned long)sysconf(_SC_PAGESIZE);
}

static void at_as_limit(void)
{
    struct rlimit old, low;
    EXPECT(getrlimit(RLIMIT_AS, &old) == 0);
    low = old;
    low.rlim_cur = vm_bytes();
    EXPECT(setrlimit(RLIMIT_AS, &low) == 0);
    do_io();
    EXPECT(setrlimit(RLIMIT_AS, &old) == 0);
}

static volatile sig_atomic_t reaped_own;
static pid_t own_child;

/* Async-signal-safe: formats by hand and writes once. */
static void say(const char *what, long a, long b)
{
    char line[64];
    size_t n = strlen(what);
    memcpy(line, what, n);
    long v[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        char d[24];
        int m = 0;
        unsigned long u = (unsigned long)(v[k] < 0 ? -v[k] : v[k]);
        do
            d[m++] = (char)('0' + u % 10);
        while (u /= 10);
        line[n++] = ' ';
        if (v[k] < 0)
            line[n++] = '-';
        while (m)
            line[n++] = d[--m];
    }
    line[n++] = '\n';
    ssize_t w = write(1, line, n);
    (void)w;
}

static void on_sigchld(int sig)
{
    (void)sig;
    int e = errno, st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
        say("reaped", p, st);
        if (p == own_child)
            reaped_own = 1;
    }
    errno = e;
}

static void with_sigchld_handler(int term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    EXPECT(sigaction(SIGCHLD, &sa, NULL) == 0);
    own_child = fork();
    EXPECT(own_child >= 0);
    if (own_child == 0)
        _exit(7);
    for (int i = 0; i < 6000 && !reaped_own; i++) {      /* at most 60 s */
        struct timespec d = {0, 10000000};
        nanosleep(&d, NULL);
    }
    EXPECT(reaped_own);
    say("child", own_child, 0);
    do_io();
    if (!term)
        _exit(0);
    EXPECT(write(1, "ready\n", 6) == 6);
    sleep(60);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: limitprobe MODE OUTDIR\n");
        return 2;
    }
    const char *mode = argv[1];
    outdir = argv[2];
    if (strcmp(mode, "io") == 0) {
        do_io();
    } else if (strcmp(mode, "io_exit") == 0) {
        do_io();
        _exit(0);
    } else if (strcmp(mode, "bigwrite") == 0) {
        do_io();
        big_write();
    } else if (strcmp(mode, "aslimit") == 0) {
        at_as_limit();
    } else if (strcmp(mode, "sigchld") == 0 || strcmp(mode, "sigchld_term") == 0) {
        with_sigchld_handler(strcmp(mode, "sigchld_term") == 0);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
