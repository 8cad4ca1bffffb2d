/* A small program with a typical I/O mix, used by the README's main command to
 * show what iolens records: a checkpoint written in 1 MiB blocks, read back,
 * small unaligned appends to a log file through stdio, and some metadata calls.
 * Usage: sample_io DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BLOCK = 1 << 20, BLOCKS = 16, LOG_LINES = 200 };

static int write_checkpoint(const char *path, char *buf)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0)
        return -1;
    for (int i = 0; i < BLOCKS; i++)
        if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK)
            return -1;
    fsync(fd);
    return close(fd);
}

static int read_checkpoint(const char *path, char *buf)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    while (read(fd, buf, BLOCK) > 0)
        ;
    return close(fd);
}

static int append_log(const char *path)
{
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    for (int i = 0; i < LOG_LINES; i++)
        fprintf(f, "step %d: residual %.6e\n", i, 1.0 / (i + 1));
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    char ckpt[4096], log[4096];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.dat", argv[1]);
    snprintf(log, sizeof log, "%s/run.log", argv[1]);
    char *buf = malloc(BLOCK);
    if (!buf)
        return 1;
    memset(buf, 'x', BLOCK);
    struct stat st;
    if (write_checkpoint(ckpt, buf) || stat(ckpt, &st) || read_checkpoint(ckpt, buf) ||
        append_log(log)) {
        perror("sample_io");
        return 1;
    }
    free(buf);
    printf("sample_io: wrote and read %d MiB, appended %d log lines\n", BLOCKS, LOG_LINES);
    return 0;
}
