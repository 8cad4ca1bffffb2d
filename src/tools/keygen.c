/* `iolens keygen KEYFILE`: a new anonymisation key for `iolens convert --anonymize`:
 * 32 random bytes from getrandom(2), written as 64 hex digits to a new file of
 * mode 0600 (an existing file is never replaced: safe_output.h).  Exit 0, 1 on
 * failure, 2 usage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cli.h"
#include "safe_output.h"
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

/* The key, 64 hex digits and a newline, into the new file at PATH. */
static int write_key(const char *path, const char *hex)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t len = strlen(hex);
    int ok = write(fd, hex, len) == (ssize_t)len && fsync(fd) == 0;
    return (close(fd) == 0 && ok) ? 0 : -1;
}

int iol_cmd_keygen(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        iol_cli_usage_error("keygen", argc < 2 ? "no key file given"
                                  : argc > 2 ? "one key file only" : "unknown option '%s'",
                            argv[argc < 2 ? 0 : 1]);
        fputs(usage_text, stderr);
        return 2;
    }
    unsigned char key[32];
    char hex[2 * sizeof key + 2], err[PATH_MAX + 256];
    if (random_bytes(key, sizeof key)) {
        fprintf(stderr, "iolens keygen: no random bytes: %s\n", strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < sizeof key; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    strcat(hex, "\n");
    memset(key, 0, sizeof key);
    iol_output o;       /* never replaces a file; never a half-written key (safe_output.h) */
    int rc = iol_output_begin(&o, argv[1], NULL, 0, IOL_OUT_NO_REPLACE, err, sizeof err);
    if (!rc && write_key(o.path, hex) != 0) {
        snprintf(err, sizeof err, "%s: cannot write the key: %s", argv[1], strerror(errno));
        rc = 1;
    }
    if (!rc)
        rc = iol_output_commit(&o, err, sizeof err);
    iol_output_discard(&o);
    memset(hex, 0, sizeof hex);
    if (rc)
        fprintf(stderr, "iolens keygen: %s\n", err);
    return rc;
}
