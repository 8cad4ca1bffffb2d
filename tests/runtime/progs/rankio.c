/* One rank of a job without MPI (tests/runtime/test_run_job.py): the rank comes
 * from a launcher's RANK variable, as torchrun sets it.  Each rank writes 100
 * bytes at offset 100*rank of DIR/shared (every rank opens it: a shared file)
 * and 1000 bytes to its own DIR/own<rank>.  With "fork", it then forks a worker
 * (which inherits the rank variables, as a data-loader worker does) that writes
 * 10 bytes to DIR/forked<rank>.
 *
 *     RANK=r WORLD_SIZE=n rankio DIR [fork] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *r = getenv("RANK");
    if (argc < 2 || argc > 3 || !r)
        return 2;
    int rank = atoi(r);
    char path[4096], buf[1000];
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || pwrite(fd, buf, 100, 100 * (off_t)rank) != 100 || close(fd) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/own%d", argv[1], rank);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd) != 0)
        return 1;
    if (argc == 3 && !strcmp(argv[2], "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            snprintf(path, sizeof path, "%s/forked%d", argv[1], rank);
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            exit(fd < 0 || write(fd, buf, 10) != 10 || close(fd) != 0);
        }
        int status = 1;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
            return 1;
    }
    return 0;
}
