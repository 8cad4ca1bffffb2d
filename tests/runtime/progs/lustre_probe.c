/* Program of the Lustre end-to-end test (test_runtime_lustre.py): for each file
 * argument, write 4 KiB and close, twice (so a layout that changed between the
 * closes is read again); a name ending in ".stdio" is written through fopen/
 * fwrite/fclose instead.  Exit status 0 when every call succeeded. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int posix_file(const char *path, const char *data)
{
    for (int round = 0; round < 2; round++) {
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        if (fd < 0 || pwrite(fd, data, 4096, 4096 * round) != 4096 || close(fd) != 0)
            return 1;
    }
    return 0;
}

static int stdio_file(const char *path, const char *data)
{
    FILE *f = fopen(path, "w");
    return !f || fwrite(data, 1, 4096, f) != 4096 || fclose(f) != 0;
}

int main(int argc, char **argv)
{
    static char data[4096];
    memset(data, 'x', sizeof data);
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(argv[i]);
        int is_stdio = n > 6 && strcmp(argv[i] + n - 6, ".stdio") == 0;
        bad |= is_stdio ? stdio_file(argv[i], data) : posix_file(argv[i], data);
    }
    return bad;
}
