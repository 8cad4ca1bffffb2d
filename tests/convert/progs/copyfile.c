/* copyfile SRC DST APPEND [words...]: copy SRC to DST and append it to APPEND, in
 * one process (its words only end up in the log's command line). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static int copy(const char *src, const char *dst, int flags)
{
    char buf[4096];
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | flags, 0644);
    ssize_t n;
    if (in < 0 || out < 0)
        return 1;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            return 1;
    return close(in) | close(out) | (n < 0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: copyfile SRC DST APPEND [words...]\n");
        return 2;
    }
    return copy(argv[1], argv[2], O_TRUNC) || copy(argv[1], argv[3], O_APPEND);
}
