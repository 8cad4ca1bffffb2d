/* POSIX module: record layout and the record functions its wrappers call
 * (posix_wrap.c).  Each function takes the module lock itself. */
#ifndef IOLENS_RUNTIME_POSIX_H
#define IOLENS_RUNTIME_POSIX_H

#include "../wrappers/real.h"
#include "../core/rt.h"
#include "../core/stats.h"

typedef struct posix_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[POSIX_NUM_INDICES];
    double f[POSIX_F_NUM_INDICES];
} posix_rec;

/* Per-record state of the offset model (runtime spec 2.0.7); shared by every fd
 * of the path, as upstream's is. */
typedef struct posix_aux {
    int64_t offset, last_byte_read, last_byte_written;
    int last_io;             /* 0 none, 1 read, 2 write */
    double last_meta_end, last_read_end, last_write_end;
    iol_cv access, stride;
} posix_aux;

void iol_posix_open(int fd, const char *path, int mode, double t1, double t2);
void iol_posix_dup(int oldfd, int newfd, double t1, double t2);
void iol_posix_fileno(FILE *fp, int fd, double t1, double t2);
/* off is used when explicit_off, else the tracked offset. */
void iol_posix_io(int fd, int wr, int64_t off, int explicit_off, int64_t n, int unaligned,
                  double t1, double t2);
void iol_posix_seek(int fd, int64_t pos, double t1, double t2);
void iol_posix_sync(int fd, int data_only, double t1, double t2);
size_t iol_posix_close_begin(int fd);
void iol_posix_close_end(size_t idx, double t1, double t2);
void iol_posix_stat(const char *path, int fd, double t1, double t2);
void iol_posix_mmap(int fd);
void iol_posix_rename(const char *oldpath, const char *newpath, double t1, double t2);
void iol_posix_aio_submit(int fd, const void *cb, double t1);
int iol_posix_aio_take(int fd, const void *cb, double *t1);
/* Name for openat-style (dirfd, path) pairs, per runtime spec 2.0.1. */
const char *iol_posix_at_path(int dirfd, const char *path, char *buf, size_t len);

extern const iol_module_desc iol_posix_module;
#endif
