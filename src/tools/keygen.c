/* `iolens keygen KEYFILE`: a new anonymisation key for `iolens convert --anonymize`:
 * 32 random bytes from getrandom(2), written as 64 hex digits to a new file of
 * mode 0600 (an existing file is never replaced).  Exit 0, 1 on failure, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "tools.h"

static const char usage_text[] =
    "usage: iolens keygen KEYFILE\n"
    "Write a new random key (256 bits, hex) for `iolens convert --anonymize` to\n"
    "KEYFILE, created with mode 0600; an existing file is not replaced.\n";

static int random_bytes(unsigned char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int iol_cmd_keygen(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fputs(usage_text, stderr);
        return 2;
    }
    unsigned char key[32];
    char hex[2 * sizeof key + 2];
    if (random_bytes(key, sizeof key)) {
        fprintf(stderr, "iolens keygen: no random bytes: %s\n", strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < sizeof key; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    strcat(hex, "\n");
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "iolens keygen: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    size_t len = strlen(hex);
    int ok = write(fd, hex, len) == (ssize_t)len && fsync(fd) == 0;
    ok = (close(fd) == 0) && ok;
    memset(key, 0, sizeof key);
    if (!ok) {
        fprintf(stderr, "iolens keygen: %s: cannot write the key\n", argv[1]);
        unlink(argv[1]);
        return 1;
    }
    return 0;
}
