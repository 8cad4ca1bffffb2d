/* STDIO wrappers (runtime spec 1.2 and 2.2): time the real call, then record
 * through stdio.c.  The success test of each call is upstream's.  The record
 * functions keep errno; the wrappers that call ftell themselves save it. */
#include <errno.h>
#include <string.h>

#include "stdio.h"

/* ------------------------------------------------------------ open, close */
#define FOPEN_BODY(call, path) TIMED_BODY(FILE *, call, ret, iol_stdio_open(ret, path, &sp))

FILE *fopen(const char *path, const char *mode) { FOPEN_BODY(IOL_REAL(fopen)(path, mode), path); }
FILE *fopen64(const char *path, const char *mode) { FOPEN_BODY(IOL_REAL(fopen64)(path, mode), path); }
FILE *freopen(const char *path, const char *mode, FILE *fp)
{
    FOPEN_BODY(IOL_REAL(freopen)(path, mode, fp), path);
}
FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
    FOPEN_BODY(IOL_REAL(freopen64)(path, mode, fp), path);
}

FILE *fdopen(int fd, const char *mode)
{
    TIMED_BODY(FILE *, IOL_REAL(fdopen)(fd, mode), ret, iol_stdio_fdopen(ret, fd, &sp));
}

/* Recorded whatever the real call returns; unmapped first (iol_stdio_close_begin). */
int fclose(FILE *fp)
{
    if (!iol_on())
        return IOL_REAL(fclose)(fp);
    uintptr_t rec = iol_stdio_close_begin_fn(fp);   /* and the LUSTRE query (stdio.h) */
    iol_span sp;
    iol_span_begin(&sp);
    int ret = IOL_REAL(fclose)(fp);
    iol_span_end(&sp);
    if (rec)
        iol_stdio_close_end(rec, &sp);
    return ret;
}

int fflush(FILE *fp) { TIMED_BODY(int, IOL_REAL(fflush)(fp), fp && ret >= 0, iol_stdio_flush(fp, &sp)); }

/* ------------------------------------------------------------ reads */
#define READ_BODY(type, call, fp, ok, bytes) \
    TIMED_BODY(type, call, ok, iol_stdio_io(fp, 0, (int64_t)(bytes), &sp))

size_t fread(void *p, size_t size, size_t n, FILE *fp)
{
    READ_BODY(size_t, IOL_REAL(fread)(p, size, n, fp), fp, ret > 0, size * ret);
}
int fgetc(FILE *fp) { READ_BODY(int, IOL_REAL(fgetc)(fp), fp, ret != EOF, 1); }
int _IO_getc(FILE *fp) { READ_BODY(int, IOL_REAL(_IO_getc)(fp), fp, ret != EOF, 1); }
int getw(FILE *fp) { READ_BODY(int, IOL_REAL(getw)(fp), fp, ret != EOF || !ferror(fp), sizeof(int)); }
char *fgets(char *s, int n, FILE *fp) { READ_BODY(char *, IOL_REAL(fgets)(s, n, fp), fp, ret != NULL, strlen(ret)); }

size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp)
{
    READ_BODY(size_t, IOL_REAL(__fread_chk)(p, plen, size, n, fp), fp, ret > 0, size * ret);
}
char *__fgets_chk(char *s, size_t size, int n, FILE *fp)
{
    READ_BODY(char *, IOL_REAL(__fgets_chk)(s, size, n, fp), fp, ret != NULL, strlen(ret));
}

/* scanf family: bytes = how far the stream moved; counted unless ret == 0. */
static int do_vfscanf(int (*real)(FILE *, const char *, va_list), FILE *fp, const char *fmt, va_list ap)
{
    if (!iol_on())
        return real(fp, fmt, ap);
    int e = errno;
    long before = ftell(fp);
    errno = e;
    iol_span sp;
    iol_span_begin(&sp);
    int ret = real(fp, fmt, ap);
    iol_span_end(&sp);
    if (ret != 0)
        KEEP_ERRNO(iol_stdio_io(fp, 0, ftell(fp) - before, &sp));
    return ret;
}

/* <stdio.h> maps the C names fscanf/vfscanf onto the __isoc99_ symbols, so the
 * plain symbols (used by programs built in pre-C99 modes) get their own C names. */
int iol_plain_vfscanf(FILE *fp, const char *fmt, va_list ap) __asm__("vfscanf");
int iol_plain_fscanf(FILE *fp, const char *fmt, ...) __asm__("fscanf");

int iol_plain_vfscanf(FILE *fp, const char *fmt, va_list ap)
{
    return do_vfscanf(IOL_REAL(vfscanf), fp, fmt, ap);
}
int __isoc99_vfscanf(FILE *fp, const char *fmt, va_list ap)
{
    return do_vfscanf(IOL_REAL(__isoc99_vfscanf), fp, fmt, ap);
}

int iol_plain_fscanf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = do_vfscanf(IOL_REAL(vfscanf), fp, fmt, ap);
    va_end(ap);
    return ret;
}

int __isoc99_fscanf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = do_vfscanf(IOL_REAL(__isoc99_vfscanf), fp, fmt, ap);
    va_end(ap);
    return ret;
}

/* ------------------------------------------------------------ writes */
#define WRITE_BODY(type, call, fp, ok, bytes) \
    TIMED_BODY(type, call, ok, iol_stdio_io(fp, 1, (int64_t)(bytes), &sp))

size_t fwrite(const void *p, size_t size, size_t n, FILE *fp)
{
    WRITE_BODY(size_t, IOL_REAL(fwrite)(p, size, n, fp), fp, ret > 0, size * ret);
}
int fputc(int ch, FILE *fp) { WRITE_BODY(int, IOL_REAL(fputc)(ch, fp), fp, ret != EOF, 1); }
int _IO_putc(int ch, FILE *fp) { WRITE_BODY(int, IOL_REAL(_IO_putc)(ch, fp), fp, ret != EOF, 1); }
int putw(int w, FILE *fp) { WRITE_BODY(int, IOL_REAL(putw)(w, fp), fp, ret != EOF, sizeof(int)); }
int fputs(const char *s, FILE *fp) { WRITE_BODY(int, IOL_REAL(fputs)(s, fp), fp, ret > 0, strlen(s)); }

int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    WRITE_BODY(int, IOL_REAL(vfprintf)(fp, fmt, ap), fp, ret > 0, ret);
}

int vprintf(const char *fmt, va_list ap)
{
    WRITE_BODY(int, IOL_REAL(vfprintf)(stdout, fmt, ap), stdout, ret > 0, ret);
}

int fprintf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = vfprintf(fp, fmt, ap);
    va_end(ap);
    return ret;
}

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = vprintf(fmt, ap);
    va_end(ap);
    return ret;
}

int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
    WRITE_BODY(int, IOL_REAL(__vfprintf_chk)(fp, flag, fmt, ap), fp, ret > 0, ret);
}

int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
    WRITE_BODY(int, IOL_REAL(__vfprintf_chk)(stdout, flag, fmt, ap), stdout, ret > 0, ret);
}

int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = __vfprintf_chk(fp, flag, fmt, ap);
    va_end(ap);
    return ret;
}

int __printf_chk(int flag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int ret = __vprintf_chk(flag, fmt, ap);
    va_end(ap);
    return ret;
}

/* ------------------------------------------------------------ seeks */
#define SEEK_BODY(call, fp) \
    TIMED_BODY(int, call, ret >= 0, KEEP_ERRNO(iol_stdio_seek(fp, ftell(fp), &sp)))

int fseek(FILE *fp, long off, int whence) { SEEK_BODY(IOL_REAL(fseek)(fp, off, whence), fp); }
int fseeko(FILE *fp, off_t off, int whence) { SEEK_BODY(IOL_REAL(fseeko)(fp, off, whence), fp); }
int fseeko64(FILE *fp, off64_t off, int whence) { SEEK_BODY(IOL_REAL(fseeko64)(fp, off, whence), fp); }
int fsetpos(FILE *fp, const fpos_t *pos) { SEEK_BODY(IOL_REAL(fsetpos)(fp, pos), fp); }
int fsetpos64(FILE *fp, const fpos64_t *pos) { SEEK_BODY(IOL_REAL(fsetpos64)(fp, pos), fp); }

void rewind(FILE *fp)
{
    if (!iol_on()) {
        IOL_REAL(rewind)(fp);
        return;
    }
    iol_span sp;
    iol_span_begin(&sp);
    IOL_REAL(rewind)(fp);
    iol_span_end(&sp);
    iol_stdio_seek(fp, 0, &sp);
}
