/* Exits at the edges of the process (issue #34).  Usage:
 *   edgeprobe MODE OUTDIR [NTHREADS]
 * Every mode first opens, writes and closes OUTDIR/data.<i> for i < 64 (so the
 * log has something to hold), then:
 *   seccomp_exit  installs a seccomp filter that kills the process on fork,
 *                 vfork, clone and clone3, then _exit(0) (expects status 0)
 *   seccomp_term  the same filter, prints "ready", sleeps; the test sends
 *                 SIGTERM (expects -15)
 *   nodump_term   PR_SET_DUMPABLE 0, 4 threads hammer malloc/free (the test
 *                 sets MALLOC_ARENA_MAX=1), prints "ready"; SIGTERM (expects -15)
 *   exit_race     two threads call exit(0) at the same moment while the main
 *                 thread waits for them (expects status 0)
 *   busy_term     NTHREADS threads each pwrite 1 byte in a loop to their own
 *                 file OUTDIR/busy.<t>, and after each write returns add 1 to
 *                 their slot of OUTDIR/counts (a shared mapping: what the
 *                 program saw complete, readable after its death); prints
 *                 "ready"; SIGTERM (expects -15)
 * Bounded: each waiting mode gives up after 60 s. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe_io.h"

/* A filter that kills the whole process on any system call that makes a new
 * process: what a sandbox that forbids fork does (no libseccomp needed). */
#define KILL_ON(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

static void forbid_fork(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef SYS_fork
        KILL_ON(SYS_fork),
#endif
#ifdef SYS_vfork
        KILL_ON(SYS_vfork),
#endif
        KILL_ON(SYS_clone),
#ifdef SYS_clone3
        KILL_ON(SYS_clone3),
#endif
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof code / sizeof code[0], code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("seccomp");
        exit(99);
    }
}

static pthread_barrier_t race;

static void *exit_now(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&race);
    exit(0);
}

static volatile uint64_t *counts;

static void *busy_writer(void *arg)
{
    long t = (long)arg;
    char p[4096];
    snprintf(p, sizeof p, "%s/busy.%ld", outdir, t);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        abort();
    for (uint64_t i = 0;; i++) {
        if (pwrite(fd, "x", 1, (off_t)(i % 4096)) != 1)
            abort();
        __atomic_store_n(&counts[t], i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* The counters live in a file, so the test reads them after the death. */
static void map_counts(int n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/counts", outdir);
    int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 8 * (off_t)n) != 0)
        abort();
    counts = mmap(NULL, 8 * (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (counts == MAP_FAILED)
        abort();
    close(fd);
}

static void start_threads(int n, void *(*fn)(void *))
{
    for (long t = 0; t < n; t++) {
        pthread_t th;
        if (pthread_create(&th, NULL, fn, (void *)t) != 0)
            abort();
    }
}

static void ready_then_wait(void)
{
    printf("ready\n");
    fflush(stdout);
    sleep(60);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    outdir = argv[2];
    int nthreads = argc > 3 ? atoi(argv[3]) : 2;
    do_io(64);
    if (!strcmp(mode, "seccomp_exit")) {
        forbid_fork();
        _exit(0);
    } else if (!strcmp(mode, "seccomp_term")) {
        forbid_fork();
        ready_then_wait();
    } else if (!strcmp(mode, "nodump_term")) {
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        start_threads(4, hammer_malloc);
        ready_then_wait();
    } else if (!strcmp(mode, "exit_race")) {
        pthread_barrier_init(&race, NULL, 2);
        start_threads(2, exit_now);
        sleep(60);
    } else if (!strcmp(mode, "busy_term")) {
        map_counts(nthreads);
        start_threads(nthreads, busy_writer);
        ready_then_wait();
    }
    return 1;
}
