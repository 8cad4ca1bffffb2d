/* Test shim, preloaded before the runtime: just before a file named
 * *.iolens_partial is made read-only (the last step of the log write before its
 * final name is linked), append "<path> <mode in octal> <size> <regular 0/1>" to
 * the file IOLENS_TEST_OBSERVE.  The real chmod then runs unchanged: this only
 * looks at the partial file while it exists. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int chmod(const char *path, mode_t mode)
{
    static int (*real)(const char *, mode_t);
    const char *out = getenv("IOLENS_TEST_OBSERVE");
    size_t n = strlen(path);
    struct stat st;
    if (out && n > 15 && strcmp(path + n - 15, ".iolens_partial") == 0 && lstat(path, &st) == 0) {
        char line[4200];
        int len = snprintf(line, sizeof line, "%s %o %lld %d\n", path, (unsigned)(st.st_mode & 07777),
                           (long long)st.st_size, S_ISREG(st.st_mode) ? 1 : 0);
        int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, line, (size_t)len) != len)
                len = 0;
            close(fd);
        }
    }
    if (!real)
        real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "chmod");
    return real(path, mode);
}
