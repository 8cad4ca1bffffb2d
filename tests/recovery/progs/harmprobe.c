/* Adversarial exits for issue #21 ("never harm the job").  Usage:
 *   harmprobe MODE OUTDIR
 * Every mode first opens, writes and closes OUTDIR/data.<i> for i < 64 (so the
 * log has something to hold), prints "ready" on stdout, then:
 *   exit_handler  a SIGTERM handler calls _exit(3); another thread hammers
 *                 malloc/free; the test sends SIGTERM (expects status 3)
 *   malloc_term   SIGTERM at its default action while another thread hammers
 *                 malloc/free; SIGALRM blocked in every thread (expects -15)
 *   two_threads   a second thread opens files in a loop; the test sends SIGTERM
 *                 to the process and again to the other thread (expects -15)
 *   io            returns from main at once
 *   badexec       execvp of a program that does not exist (must fail with
 *                 ENOENT), then writes OUTDIR/after and returns
 *   closerange    OUTDIR/cr.a written once, closed by close_range(fd, ~0U, 0);
 *                 a pipe's read end then reuses the number and is read;
 *                 OUTDIR/cr.b marked by CLOSE_RANGE_CLOEXEC, then written
 *                 again (it is still open)
 *   vfork         OUTDIR/vf.keep opened and written once; a vfork child dup2()s
 *                 /dev/null over its descriptor, closes it, opens OUTDIR/vf.child
 *                 (same number) and execs /bin/true; the parent then writes
 *                 vf.keep 5 more times (6 writes of 10 bytes in all)
 *   vfork_term    the same, but the vfork child is ended by SIGTERM (default
 *                 action) before it can exec
 *   wait          sleeps until killed (SIGTERM at its default action)
 *   many          reads a line from stdin, then opens 500 new files (new
 *                 records in pages of the safety copy not touched so far)
 * Bounded: each mode gives up after 60 s. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe_io.h"

static volatile long other_tid;

static void *hammer_open(void *arg)
{
    (void)arg;
    other_tid = gettid();
    char p[4096];
    snprintf(p, sizeof p, "%s/loop", outdir);
    for (;;) {
        int fd = open(p, O_CREAT | O_RDWR, 0644);
        if (fd >= 0)
            close(fd);
    }
    return NULL;
}

/* The parent's descriptor must keep naming vf.keep whatever the vfork child did
 * to the shared number before it exec'd or died. */
static int vfork_mode(int die_by_term)
{
    char keep[4096], child[4096];
    snprintf(keep, sizeof keep, "%s/vf.keep", outdir);
    snprintf(child, sizeof child, "%s/vf.child", outdir);
    int k = open(keep, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    int nul = open("/dev/null", O_WRONLY);
    if (k < 0 || nul < 0 || write(k, "0123456789", 10) != 10)
        return 2;
    pid_t pid = vfork();
    if (pid == 0) {
        if (dup2(nul, k) != k || close(k) != 0 || open(child, O_CREAT | O_WRONLY, 0644) != k)
            _exit(20);
        if (die_by_term)
            kill(getpid(), SIGTERM);
        execl("/bin/true", "true", (char *)NULL);
        _exit(21);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 3;
    if (die_by_term ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
                    : !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        return 4;
    for (int i = 0; i < 5; i++)
        if (write(k, "0123456789", 10) != 10)
            return 5;
    close(k);
    return 0;
}

static void on_term_exit(int sig)
{
    (void)sig;
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    outdir = argv[2];
    pthread_t t;
    if (!strcmp(mode, "malloc_term")) {   /* before any thread: inherited by all */
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &s, NULL);
    }
    if (!strcmp(mode, "exit_handler")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term_exit;
        sigaction(SIGTERM, &sa, NULL);
    }
    do_io(64);
    if (!strcmp(mode, "io"))
        return 0;
    if (!strcmp(mode, "badexec")) {
        char *args[] = { "iolens-no-such-program-21", NULL };
        errno = 0;
        if (execvp(args[0], args) != -1 || errno != ENOENT)
            return 6;
        char p[4096];
        snprintf(p, sizeof p, "%s/after", outdir);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || write(fd, "after", 5) != 5)
            return 7;
        close(fd);
        return 0;
    }
    if (!strcmp(mode, "closerange")) {
        char p[4096];
        snprintf(p, sizeof p, "%s/cr.a", outdir);
        int a = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (a < 0 || write(a, "0123456789", 10) != 10 || close_range((unsigned)a, ~0U, 0) != 0)
            return 2;
        int pfd[2];
        if (pipe(pfd) != 0 || pfd[0] != a)      /* the lowest free number: a's */
            return 3;
        char got[5];
        if (write(pfd[1], "xxxxx", 5) != 5 || read(pfd[0], got, 5) != 5)
            return 4;
        snprintf(p, sizeof p, "%s/cr.b", outdir);
        int b = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (b < 0 || write(b, "01234", 5) != 5 ||
            close_range((unsigned)b, (unsigned)b, CLOSE_RANGE_CLOEXEC) != 0 ||
            write(b, "56789", 5) != 5)
            return 5;
        return 0;
    }
    if (!strcmp(mode, "vfork") || !strcmp(mode, "vfork_term"))
        return vfork_mode(!strcmp(mode, "vfork_term"));
    if (!strcmp(mode, "exit_handler") || !strcmp(mode, "malloc_term")) {
        pthread_create(&t, NULL, hammer_malloc, NULL);
        /* this thread hammers too: the signal may land in either */
        printf("ready\n");
        fflush(stdout);
        hammer_malloc(NULL);
    } else if (!strcmp(mode, "two_threads")) {
        pthread_create(&t, NULL, hammer_open, NULL);
        while (!other_tid)
            usleep(100);
        printf("ready %ld\n", other_tid);
        fflush(stdout);
        sleep(60);
    } else if (!strcmp(mode, "many")) {
        printf("ready\n");
        fflush(stdout);
        char line[16];
        if (!fgets(line, sizeof line, stdin))
            return 2;
        char p[4096];
        for (int i = 0; i < 500; i++) {
            snprintf(p, sizeof p, "%s/many.%d", outdir, i);
            int fd = open(p, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
        }
        return 0;
    } else {
        printf("ready\n");
        fflush(stdout);
        sleep(60);
    }
    return 0;
}
