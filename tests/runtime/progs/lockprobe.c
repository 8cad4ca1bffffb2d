/* Test driver for the record locks of STDIO and POSIX (tests/runtime/test_record_locks.py).
 *
 *   lockprobe streams DIR N
 *       N threads (at most 64), SPER rounds each, every thread with FILE*s of
 *       its own: a private stream (fwrite 64 bytes a round, fflush every 10th,
 *       fseek to the end every 100th, then rewind and SPER freads of 64), a
 *       stream of its own on one shared file (fwrite 16 bytes a round: one
 *       record updated through N streams), and every 50th round an fopen,
 *       fwrite of 10 and fclose of a third file (the stream table changes while
 *       the other threads use it).
 *
 *   lockprobe xsignal DIR fd|stream ITER
 *       Two threads, each writing its own file ITER times (1 byte, by write(2)
 *       or by fwrite), while the main thread sends both SIGUSR1 (pthread_kill,
 *       SA_RESTART) again and again; a thread's handler writes 1 byte to the
 *       *other* thread's file (through a descriptor or stream of its own).  A
 *       handler that interrupted its thread inside one record's update and waits
 *       for the other record, whose thread is in the same state, would never
 *       return.  Prints "loop0 loop1 handled0 handled1": the loop writes and the
 *       handler writes that succeeded, per file.
 *
 * Exits 0 when its own checks pass. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"

/* ------------------------------------------------------------ streams */
enum { SPER = 3000 };
static const char *tdir;

static void *stream_worker(void *arg)
{
    long t = (long)arg;
    char own[4096], shared[4096], extra[4096], buf[64];
    memset(buf, 's', sizeof buf);
    snprintf(own, sizeof own, "%s/stream-%ld.dat", tdir, t);
    snprintf(shared, sizeof shared, "%s/stream-shared.dat", tdir);
    snprintf(extra, sizeof extra, "%s/stream-extra-%ld.dat", tdir, t);
    FILE *f = fopen(own, "w+"), *s = fopen(shared, "a");
    EXPECT(f && s);
    for (int i = 0; i < SPER; i++) {
        EXPECT(fwrite(buf, 1, 64, f) == 64);
        EXPECT(fwrite(buf, 1, 16, s) == 16);
        if (i % 10 == 0)
            EXPECT(fflush(f) == 0);
        if (i % 100 == 0)
            EXPECT(fseek(f, 0, SEEK_END) == 0);
        if (i % 50 == 0) {
            FILE *x = fopen(extra, "a");
            EXPECT(x && fwrite(buf, 1, 10, x) == 10 && fclose(x) == 0);
        }
    }
    rewind(f);
    for (int i = 0; i < SPER; i++)
        EXPECT(fread(buf, 1, 64, f) == 64);
    EXPECT(fclose(f) == 0 && fclose(s) == 0);
    return NULL;
}

static int mode_streams(const char *dir, int n)
{
    pthread_t th[64];
    tdir = dir;
    EXPECT(n >= 1 && n <= 64);
    for (long t = 0; t < n; t++)
        EXPECT(pthread_create(&th[t], NULL, stream_worker, (void *)t) == 0);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    return 0;
}

/* ------------------------------------------------------------ xsignal */
static int use_stream;
static long iters;
static int loop_fd[2], hand_fd[2];         /* hand_fd[i]: file i, for the other thread's handler */
static FILE *loop_fp[2], *hand_fp[2];
static long loops[2], handled[2];
static int done[2];
static __thread int me = -1;               /* this thread's file; -1 on the main thread */

static void on_usr1(int sig)
{
    (void)sig;
    int e = errno, other = me ^ 1;
    if (me >= 0) {
        int ok = use_stream ? fwrite("h", 1, 1, hand_fp[other]) == 1
                            : write(hand_fd[other], "h", 1) == 1;
        if (ok)
            __atomic_add_fetch(&handled[other], 1, __ATOMIC_RELAXED);
    }
    errno = e;
}

static void *xsignal_worker(void *arg)
{
    me = (int)(long)arg;
    for (long i = 0; i < iters; i++) {
        int ok = use_stream ? fwrite("l", 1, 1, loop_fp[me]) == 1 : write(loop_fd[me], "l", 1) == 1;
        EXPECT(ok);
        loops[me]++;
    }
    __atomic_store_n(&done[me], 1, __ATOMIC_RELEASE);
    return NULL;
}

static char stream_buf[2][2][4096];

static int mode_xsignal(const char *dir, const char *how, long n)
{
    char p[4096];
    use_stream = strcmp(how, "stream") == 0;
    iters = n;
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/x-%d.dat", dir, i);
        if (use_stream) {
            loop_fp[i] = fopen(p, "w");
            hand_fp[i] = fopen(p, "a");
            EXPECT(loop_fp[i] && hand_fp[i]);
            /* Buffers of our own, so that no fwrite mallocs one: a handler whose
             * fwrite allocated while its thread was inside malloc would deadlock
             * in glibc, whatever the runtime does. */
            EXPECT(setvbuf(loop_fp[i], stream_buf[i][0], _IOFBF, sizeof stream_buf[i][0]) == 0);
            EXPECT(setvbuf(hand_fp[i], stream_buf[i][1], _IOFBF, sizeof stream_buf[i][1]) == 0);
        } else {
            loop_fd[i] = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            hand_fd[i] = open(p, O_WRONLY | O_APPEND);
            EXPECT(loop_fd[i] >= 0 && hand_fd[i] >= 0);
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    EXPECT(sigaction(SIGUSR1, &sa, NULL) == 0);
    pthread_t th[2];
    for (long t = 0; t < 2; t++)
        EXPECT(pthread_create(&th[t], NULL, xsignal_worker, (void *)t) == 0);
    /* Both threads at once, as often as they can take it. */
    while (!__atomic_load_n(&done[0], __ATOMIC_ACQUIRE) || !__atomic_load_n(&done[1], __ATOMIC_ACQUIRE)) {
        for (int t = 0; t < 2; t++)
            if (!__atomic_load_n(&done[t], __ATOMIC_ACQUIRE))
                pthread_kill(th[t], SIGUSR1);
        struct timespec d = {0, 1000};
        nanosleep(&d, NULL);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int i = 0; i < 2; i++) {
        if (use_stream)
            EXPECT(fclose(loop_fp[i]) == 0 && fclose(hand_fp[i]) == 0);
        else
            EXPECT(close(loop_fd[i]) == 0 && close(hand_fd[i]) == 0);
    }
    printf("%ld %ld %ld %ld\n", loops[0], loops[1], handled[0], handled[1]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    if (!strcmp(argv[1], "streams"))
        return mode_streams(argv[2], atoi(argv[3]));
    if (!strcmp(argv[1], "xsignal") && argc > 4)
        return mode_xsignal(argv[2], argv[3], atol(argv[4]));
    return 2;
}
