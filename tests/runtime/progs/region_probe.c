/* Regions under test (tests/runtime/test_regions.py): a program annotated with
 * include/iolens/annotate.h, which runs with or without the runtime.
 *
 *   region_probe DIR nest     "outer" { 1 write of 100 B; "inner" { 2 writes of 10 B;
 *                             1 read of 10 B } ; 1 write of 1000 B }; "outer" again
 *                             with nothing; an end naming "nope" while "outer" is open
 *   region_probe DIR threads  T=4 threads, thread t in region "thread<t>" writes
 *                             (t+1)*3 times 64 B to its own file; the main thread
 *                             stays in "main" and writes 1 B
 *   region_probe DIR fork     "parent" { write 5 B; fork: the child writes 7 B
 *                             (inside the inherited "parent"), begins "child",
 *                             writes 9 B, ends "child", exits; wait }
 *   region_probe DIR signal   "work" { a SIGALRM handler that writes 3 B (counted in
 *                             "work": the interrupted thread's region) ... }
 *   region_probe DIR open     "left open" { write 4 B } and exit without the end
 *   region_probe DIR none     writes 8 B outside any region
 *   region_probe DIR contend  8 threads, each inside its own "shared" region, 2000
 *                             1-byte writes to a file of its own (one record, 8 writers)
 *   region_probe DIR kill     "before" { write 6 B }; "dying" { write 2 B; SIGKILL }
 * Every region's I/O is then checked against the POSIX counters of the files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iolens/annotate.h"

static const char *dir;

static int open_in(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
}

static void write_n(int fd, size_t n)
{
    static char buf[4096];
    if (write(fd, buf, n) != (ssize_t)n)
        exit(3);
}

static void nest(void)
{
    char b[10];
    errno = EDOM;                       /* the calls leave errno alone */
    iolens_region_begin("outer");
    if (errno != EDOM)
        exit(5);
    int fd = open_in("nest.dat");
    write_n(fd, 100);
    iolens_region_begin("inner");
    write_n(fd, 10);
    write_n(fd, 10);
    if (pread(fd, b, 10, 0) != 10)
        exit(3);
    errno = ERANGE;
    iolens_region_end("nope");          /* mismatched: counted, ignored */
    iolens_region_end("inner");
    if (errno != ERANGE)
        exit(5);
    write_n(fd, 1000);
    close(fd);
    iolens_region_end("outer");
    iolens_region_begin("outer");
    iolens_region_end("outer");
}

static void *thread_body(void *arg)
{
    int t = (int)(long)arg;
    char name[32];
    snprintf(name, sizeof name, "thread%d", t);
    iolens_region_begin(name);
    snprintf(name, sizeof name, "t%d.dat", t);
    int fd = open_in(name);
    for (int i = 0; i < (t + 1) * 3; i++)
        write_n(fd, 64);
    close(fd);
    snprintf(name, sizeof name, "thread%d", t);   /* another pointer, same name */
    iolens_region_end(name);
    return NULL;
}

static void *contend_body(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "c%ld.dat", (long)arg);
    int fd = open_in(name);
    iolens_region_begin("shared");
    for (int i = 0; i < 2000; i++)
        write_n(fd, 1);
    iolens_region_end("shared");
    close(fd);
    return NULL;
}

static void contend(void)
{
    pthread_t th[8];
    for (long t = 0; t < 8; t++)
        pthread_create(&th[t], NULL, contend_body, (void *)t);
    for (int t = 0; t < 8; t++)
        pthread_join(th[t], NULL);
}

static void threads(void)
{
    pthread_t th[4];
    iolens_region_begin("main");
    for (long t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, thread_body, (void *)t);
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    int fd = open_in("main.dat");
    write_n(fd, 1);
    close(fd);
    iolens_region_end("main");
}

static void forked(void)
{
    iolens_region_begin("parent");
    int fd = open_in("parent.dat");
    write_n(fd, 5);
    close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        fd = open_in("child.dat");
        write_n(fd, 7);
        iolens_region_begin("child");
        write_n(fd, 9);
        iolens_region_end("child");
        close(fd);
        iolens_region_end("parent");
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    iolens_region_end("parent");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        exit(4);
}

static int sig_fd = -1;
static volatile sig_atomic_t fired;
static void on_alarm(int sig)
{
    (void)sig;
    write_n(sig_fd, 3);
    fired = 1;
}

static void signalled(void)
{
    sig_fd = open_in("signal.dat");
    signal(SIGALRM, on_alarm);
    iolens_region_begin("work");
    alarm(1);
    while (!fired)
        pause();
    iolens_region_end("work");
    close(sig_fd);
}

static void left_open(void)
{
    iolens_region_begin("left open");
    int fd = open_in("open.dat");
    write_n(fd, 4);
    close(fd);
}

static void killed(void)
{
    int fd = open_in("kill.dat");
    iolens_region_begin("before");
    write_n(fd, 6);
    iolens_region_end("before");
    iolens_region_begin("dying");
    write_n(fd, 2);
    raise(SIGKILL);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    dir = argv[1];
    const char *mode = argv[2];
    if (strcmp(mode, "nest") == 0)
        nest();
    else if (strcmp(mode, "threads") == 0)
        threads();
    else if (strcmp(mode, "fork") == 0)
        forked();
    else if (strcmp(mode, "signal") == 0)
        signalled();
    else if (strcmp(mode, "contend") == 0)
        contend();
    else if (strcmp(mode, "kill") == 0)
        killed();
    else if (strcmp(mode, "open") == 0)
        left_open();
    else if (strcmp(mode, "none") == 0) {
        int fd = open_in("none.dat");
        write_n(fd, 8);
        close(fd);
    } else
        return 2;
    return 0;
}
