/* What the adversarial probes share (harmprobe.c, edgeprobe.c): the 64 files
 * every mode writes first, so that a log has something to hold, and a thread
 * that keeps malloc's locks busy. */
#ifndef IOLENS_PROBE_IO_H
#define IOLENS_PROBE_IO_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* OUTDIR of the probe's command line. */
static const char *outdir;

/* Open, write 10 bytes to and close OUTDIR/data.<i> for i < n. */
static void do_io(int n)
{
    char p[4096];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/data.%d", outdir, i);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd >= 0) {
            if (write(fd, "0123456789", 10) != 10)
                abort();
            close(fd);
        }
    }
}

/* A thread body: malloc and free in a loop, for ever. */
static void *hammer_malloc(void *arg)
{
    (void)arg;
    for (;;) {
        void *v[64];
        for (int i = 0; i < 64; i++)
            v[i] = malloc((size_t)(16 + 97 * i));
        for (int i = 0; i < 64; i++)
            free(v[i]);
    }
    return NULL;
}

#endif
