/* The runtime smoke program of scripts/cross-test.sh: the same POSIX and STDIO
 * I/O, fixed in size and order, run under the preloaded runtime natively and
 * under qemu-user, so that the two logs agree in every non-timing counter.
 * usage: smoke DIR (DIR exists; the program makes DIR/smoke.dat and DIR/smoke.txt). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char path[4096], text[4096], buf[4096];
    snprintf(path, sizeof path, "%s/smoke.dat", argv[1]);
    snprintf(text, sizeof text, "%s/smoke.txt", argv[1]);
    memset(buf, 'x', sizeof buf);

    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 8; i++)
        if (write(fd, buf, 1000) != 1000)
            return 1;
    if (pwrite(fd, buf, 4096, 65536) != 4096 || lseek(fd, 0, SEEK_SET) != 0)
        return 1;
    for (int i = 0; i < 4; i++)
        if (read(fd, buf, 2000) != 2000)
            return 1;
    struct stat st;
    if (fstat(fd, &st) != 0 || fsync(fd) != 0 || close(fd) != 0)
        return 1;

    FILE *f = fopen(text, "w");
    if (!f)
        return 1;
    for (int i = 0; i < 100; i++)
        fprintf(f, "line %d\n", i);
    if (fclose(f) != 0)
        return 1;
    f = fopen(text, "r");
    if (!f)
        return 1;
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return got > 0 ? 0 : 1;
}
