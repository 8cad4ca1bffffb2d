/* What iolens_log_open opens (log.h): regular files by any name; FIFOs, devices and
 * sockets only as a stream asked for by name ("-", /dev/stdin, /dev/fd/N), and a
 * stream no further than the log its header describes.  Everything here must
 * finish at once: a FIFO with no writer must not block the open, /dev/zero must
 * not be read until memory runs out (ctest's timeout catches a hang). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "iolens/log.h"
#include "check.h"
#include "logbuild.h"

static char dir[4096];

static lb_log small_log(void)
{
    uint8_t job[4096], names[256];
    size_t lj = lb_job(job, 1, "lib_ver=3.4.1\n", "/bin/app");
    size_t ln = lb_name(names, 0, 1234, "/scratch/file");
    return lb_posix_log(job, lj, names, ln);
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static int open_status(const char *path, int flags, char *err, size_t errlen)
{
    iolens_log *log = NULL;
    int rc = iolens_log_open_ex(path, flags, &log, err, errlen);
    CHECK((rc == IOLENS_OK) == (log != NULL), "%s: handle/status mismatch", path);
    iolens_log_close(log);
    return rc;
}

static void expect(const char *path, int flags, int want, const char *needle)
{
    char err[512] = "";
    int rc = open_status(path, flags, err, sizeof err);
    CHECK(rc == want, "%s: got %d (%s), want %d", path, rc, err, want);
    CHECK(!needle || strstr(err, needle), "%s: message \"%s\" lacks \"%s\"", path, err, needle);
}

static void test_named_kinds(const lb_log *l)
{
    char log[4200], fifo[4200], zero[4200], loop1[4200], loop2[4200], link[4200], sock[4200];
    path_of(log, sizeof log, "good.darshan");
    path_of(fifo, sizeof fifo, "fifo.darshan");
    path_of(zero, sizeof zero, "zero.darshan");
    path_of(loop1, sizeof loop1, "loop1.darshan");
    path_of(loop2, sizeof loop2, "loop2.darshan");
    path_of(link, sizeof link, "link.darshan");
    path_of(sock, sizeof sock, "sock.darshan");
    FILE *f = fopen(log, "wb");
    fwrite(l->buf, 1, l->len, f);
    fclose(f);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    CHECK(symlink("/dev/zero", zero) == 0, "symlink");
    CHECK(symlink(loop2, loop1) == 0 && symlink(loop1, loop2) == 0, "symlink loop");
    CHECK(symlink(log, link) == 0, "symlink");

    expect(log, 0, IOLENS_OK, NULL);
    expect(link, 0, IOLENS_OK, NULL);                   /* links are followed ... */
    expect(link, IOLENS_OPEN_NOFOLLOW, IOLENS_E_NOT_REGULAR, "is a symbolic link");
    expect(log, IOLENS_OPEN_NOFOLLOW, IOLENS_OK, NULL);
    /* ... but lead only to regular files */
    expect(fifo, 0, IOLENS_E_NOT_REGULAR, "is a FIFO (named pipe)");
    expect(zero, 0, IOLENS_E_NOT_REGULAR, "is a character device");
    expect("/dev/zero", 0, IOLENS_E_NOT_REGULAR, "is a character device");
    expect("/dev/null", 0, IOLENS_E_NOT_REGULAR, "is a character device");
    expect(zero, IOLENS_OPEN_NOFOLLOW, IOLENS_E_NOT_REGULAR, "is a symbolic link");
    expect(loop1, 0, IOLENS_E_IO, "cannot open");
    expect(dir, 0, IOLENS_E_IO, "is a directory");

    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (s >= 0 && strlen(sock) < sizeof a.sun_path) {
        snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
        if (bind(s, (struct sockaddr *)&a, sizeof a) == 0)
            expect(sock, 0, IOLENS_E_NOT_REGULAR, "is a socket");
    }
    if (s >= 0)
        close(s);
    CHECK(!strcmp(iolens_strerror(IOLENS_E_NOT_REGULAR), "not a regular file"), "strerror");
    unlink(sock);
    unlink(link);
    unlink(loop1);
    unlink(loop2);
    unlink(zero);
    unlink(fifo);
    unlink(log);
}

/* Regions are read later through a reopen by path: a FIFO put in the log's place
 * after the open is an error at once, not a read that blocks. */
static void test_replaced_by_fifo(const lb_log *l)
{
    char log[4200];
    path_of(log, sizeof log, "replaced.darshan");
    FILE *f = fopen(log, "wb");
    fwrite(l->buf, 1, l->len, f);
    fclose(f);
    iolens_log *h = NULL;
    char err[512] = "";
    CHECK(iolens_log_open(log, &h, err, sizeof err) == IOLENS_OK, "open: %s", err);
    unlink(log);
    CHECK(mkfifo(log, 0600) == 0, "mkfifo: %s", strerror(errno));
    const void *p;
    size_t len;
    int rc = h ? iolens_log_region(h, IOL_MOD_POSIX, &p, &len) : IOLENS_E_IO;
    CHECK(rc == IOLENS_E_IO && strstr(iolens_log_error(h), "replaced"),
          "region after replacement: %d (%s)", rc, h ? iolens_log_error(h) : "");
    iolens_log_close(h);
    unlink(log);
}

/* A child writing `head` and then `tail_bytes` of `fill` (or forever, when < 0)
 * into a pipe; returns the read end. */
static int pipe_from_child(const lb_log *head, int fill, long tail_bytes, pid_t *pid)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    *pid = fork();
    if (*pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        close(p[0]);
        if (head && write(p[1], head->buf, head->len) != (ssize_t)head->len)
            _exit(1);
        char chunk[65536];
        memset(chunk, fill, sizeof chunk);
        for (long sent = 0; tail_bytes < 0 || sent < tail_bytes; sent += sizeof chunk)
            if (write(p[1], chunk, sizeof chunk) < 0)
                _exit(0);
        _exit(0);
    }
    close(p[1]);
    return p[0];
}

static void open_pipe(const lb_log *head, int fill, long tail, int want, const char *needle,
                      const char *what)
{
    pid_t pid;
    int fd = pipe_from_child(head, fill, tail, &pid);
    char name[64], err[512] = "";
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    int rc = open_status(name, 0, err, sizeof err);
    CHECK(rc == want, "%s: got %d (%s), want %d", what, rc, err, want);
    CHECK(!needle || strstr(err, needle), "%s: message \"%s\" lacks \"%s\"", what, err, needle);
    close(fd);                          /* an endless writer now dies of SIGPIPE */
    waitpid(pid, NULL, 0);
}

static void test_streams(const lb_log *l)
{
    /* endless zeros behind a stream name: refused at the header, not read on */
    open_pipe(NULL, 0, -1, IOLENS_E_BAD_MAGIC, "not a Darshan log", "endless zeros");
    /* a log followed by endless bytes: read up to its last region, then opened */
    open_pipe(l, 0x5a, -1, IOLENS_OK, NULL, "log + endless tail");
    open_pipe(l, 0, 0, IOLENS_OK, NULL, "log alone");
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s/open_kinds.XXXXXX", argc > 1 ? argv[1] : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    lb_log l = small_log();
    test_named_kinds(&l);
    test_replaced_by_fifo(&l);
    test_streams(&l);
    free(l.buf);
    rmdir(dir);
    return check_result("test_open_kinds");
}
