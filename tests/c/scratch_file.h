/* Scratch files for the C tests that lay out a file byte by byte (the live
 * reader's safety copies): written at offsets, then closed and removed.  A
 * failed write is a failed CHECK (check.h). */
#ifndef IOLENS_TEST_SCRATCH_FILE_H
#define IOLENS_TEST_SCRATCH_FILE_H
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"

static inline void scratch_put(int fd, uint64_t off, const void *v, size_t len)
{
    CHECK(pwrite(fd, v, len, (off_t)off) == (ssize_t)len, "pwrite at %llu",
          (unsigned long long)off);
}

static inline void scratch_drop(int fd, const char *path)
{
    close(fd);
    unlink(path);
}

#endif
