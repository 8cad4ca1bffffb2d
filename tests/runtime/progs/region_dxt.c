/* Traced I/O in known regions (tests/runtime/test_regions_dxt.py): every write and
 * read goes to an offset band that says which region it ran in, so the test can
 * check each DXT segment's region from its offset alone.
 *   0..999     outside every region (main thread, and a thread without regions)
 *   1000..1999 "outer"         2000..2999 "inner" (nested in outer)
 *   3000..3999 "worker" (a thread's own region)
 *   5000..5999 "child" (a fork child, nested in the inherited "outer")
 * usage: region_dxt DIR [fork|kill]   (kill: SIGKILL itself inside "inner", after
 * its threads) */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iolens/annotate.h>

static int fd;
static char buf[10] = "0123456789";

static void put(off_t at) { (void)!pwrite(fd, buf, sizeof buf, at); }
static void get(off_t at) { (void)!pread(fd, buf, sizeof buf, at); }

static void *worker(void *arg)
{
    if (arg) {
        iolens_region_begin("worker");
        put(3000);
        get(3000);
        iolens_region_end("worker");
    } else {
        put(500);            /* a new thread is in no region */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    if (argc < 2)
        return 2;
    snprintf(path, sizeof path, "%s/traced", argv[1]);
    if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
        return 1;
    put(0);
    iolens_region_begin("outer");
    put(1000);
    iolens_region_begin("inner");
    put(2000);
    get(2000);
    pthread_t t[2];
    pthread_create(&t[0], NULL, worker, (void *)1);
    pthread_create(&t[1], NULL, worker, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    if (argc > 2 && strcmp(argv[2], "kill") == 0)
        raise(SIGKILL);
    iolens_region_end("inner");
    put(1010);
    get(1000);
    if (argc > 2 && strcmp(argv[2], "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            close(fd);           /* (a fork child's log knows only the files it opens) */
            fd = open(path, O_RDWR);
            put(1500);           /* the inherited "outer" */
            iolens_region_begin("child");
            put(5000);
            iolens_region_end("child");
            _exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    iolens_region_end("outer");
    put(10);
    get(0);
    close(fd);
    return 0;
}
