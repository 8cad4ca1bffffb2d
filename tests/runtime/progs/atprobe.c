/* *at calls relative to directory descriptors the runtime has no record for
 * (tests/runtime/test_runtime_names.py checks the names in the log).
 *   atprobe opendir DIR   DIR/in and DIR/other are created; then
 *                         openat(dirfd(opendir(DIR/in)), "x") + write 5 bytes,
 *                         fstatat(d, "x"), openat(d, "./y"), openat(d, "."),
 *                         statx(d, "x"); closedir; opendir(DIR/other), which
 *                         gets the same descriptor number, and openat(d2, "q");
 *                         open(DIR/in, O_DIRECTORY) (a record) + openat(it, ".")
 *   atprobe inherited FD  openat(FD, "inh.dat") + write 3 bytes (FD inherited)
 *   atprobe fileno        fileno(stdin) as the first and only stdio call
 * Exits non-zero when a call fails. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void must(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

static void write_at(int dfd, const char *name, int n)
{
    int fd = openat(dfd, name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    must(fd >= 0, name);
    must(write(fd, "hello", (size_t)n) == n, "write");
    must(close(fd) == 0, "close");
}

static void run_opendir(const char *dir)
{
    char in[4096], other[4096];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    must(mkdir(in, 0755) == 0 && mkdir(other, 0755) == 0, "mkdir");
    DIR *dp = opendir(in);
    must(dp != NULL, "opendir");
    int d = dirfd(dp);
    write_at(d, "x", 5);
    struct stat st;
    must(fstatat(d, "x", &st, 0) == 0, "fstatat");
    write_at(d, "./y", 1);
    int fd = openat(d, ".", O_RDONLY | O_DIRECTORY);
    must(fd >= 0 && close(fd) == 0, "openat .");
    struct statx stx;
    must(statx(d, "x", 0, STATX_TYPE, &stx) == 0, "statx");
    must(closedir(dp) == 0, "closedir");      /* glibc closes d inside: not seen */
    DIR *dp2 = opendir(other);
    must(dp2 != NULL, "opendir other");
    must(dirfd(dp2) == d, "the second opendir reuses the descriptor number");
    write_at(dirfd(dp2), "q", 2);
    must(closedir(dp2) == 0, "closedir other");
    int rd = open(in, O_RDONLY | O_DIRECTORY);    /* a record of its own */
    must(rd >= 0, "open in");
    fd = openat(rd, ".", O_RDONLY | O_DIRECTORY);
    must(fd >= 0 && close(fd) == 0 && close(rd) == 0, "openat record .");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "opendir") == 0)
        run_opendir(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "inherited") == 0)
        write_at(atoi(argv[2]), "inh.dat", 3);
    else if (argc == 2 && strcmp(argv[1], "fileno") == 0)
        return fileno(stdin) == 0 ? 0 : 1;
    else
        return 2;
    return 0;
}
