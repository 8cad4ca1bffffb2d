/* STDIO module: record layout and the record functions its wrappers call. */
#ifndef IOLENS_RUNTIME_STDIO_H
#define IOLENS_RUNTIME_STDIO_H

#include "../wrappers/real.h"
#include "../core/rt.h"

typedef struct stdio_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[STDIO_NUM_INDICES];
    double f[STDIO_F_NUM_INDICES];
} stdio_rec;

typedef struct stdio_aux {
    int64_t offset;          /* our own offset, shared by reads and writes */
    double last_meta_end, last_read_end, last_write_end;
} stdio_aux;

void iol_stdio_open(FILE *fp, const char *path, double t1, double t2);
void iol_stdio_fdopen(FILE *fp, int fd, double t1, double t2);
size_t iol_stdio_close_begin(FILE *fp);
void iol_stdio_close_end(size_t idx, double t1, double t2);
/* kind: 0 read, 1 write, 2 flush (a 0-byte write that counts as a flush). */
void iol_stdio_io(FILE *fp, int kind, int64_t bytes, double t1, double t2);
/* pos: the stream position after the seek (taken by the caller, outside the lock). */
void iol_stdio_seek(FILE *fp, int64_t pos, double t1, double t2);

extern const iol_module_desc iol_stdio_module;
#endif
