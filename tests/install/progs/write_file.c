/* The instrumented program of tests/install: writes 3 x 4096 bytes to the file
 * named on the command line with POSIX calls, so its log has one POSIX record with
 * 12288 bytes written. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            return 1;
    return close(fd) == 0 ? 0 : 1;
}
