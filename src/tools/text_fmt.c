/* Buffered text output and the number formats darshan-parser uses (%PRId64,
 * %PRIu64, %f).  Numbers are formatted by hand on the hot path because a large
 * log prints tens of millions of them; the results equal glibc printf's. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

#define IOL_TEXT_CAP (1u << 20)

int iol_text_init(iol_text *t, FILE *fp)
{
    t->fp = fp;
    t->len = 0;
    t->err = 0;
    t->cap = IOL_TEXT_CAP;
    t->buf = malloc(t->cap);
    return t->buf ? 0 : -1;
}

void iol_text_flush(iol_text *t)
{
    if (t->len && fwrite(t->buf, 1, t->len, t->fp) != t->len)
        t->err = 1;
    t->len = 0;
    if (fflush(t->fp) != 0)
        t->err = 1;
}

void iol_text_free(iol_text *t)
{
    if (!t->buf)
        return;
    iol_text_flush(t);
    free(t->buf);
    t->buf = NULL;
}

/* Make room for n bytes; a block larger than the buffer goes straight out. */
static int reserve(iol_text *t, size_t n)
{
    if (t->cap - t->len >= n)
        return 1;
    if (t->len && fwrite(t->buf, 1, t->len, t->fp) != t->len)
        t->err = 1;
    t->len = 0;
    return n <= t->cap;
}

void iol_text_put(iol_text *t, const char *s, size_t n)
{
    if (!reserve(t, n)) {
        if (fwrite(s, 1, n, t->fp) != n)
            t->err = 1;
        return;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

void iol_text_puts(iol_text *t, const char *s)
{
    iol_text_put(t, s, strlen(s));
}

void iol_text_putc(iol_text *t, char c)
{
    if (t->len == t->cap)
        reserve(t, 1);
    t->buf[t->len++] = c;
}

/* Decimal digits of v ending at `end`, two at a time; returns the first digit. */
static char *utoa(uint64_t v, char *end)
{
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char *p = end;
    while (v >= 100) {
        const char *d = pairs + 2 * (v % 100);
        v /= 100;
        *--p = d[1];
        *--p = d[0];
    }
    if (v >= 10) {
        *--p = pairs[2 * v + 1];
        *--p = pairs[2 * v];
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

size_t iol_fmt_u64(char *out, uint64_t v)
{
    char tmp[24], *end = tmp + sizeof tmp;
    char *p = utoa(v, end);
    memcpy(out, p, (size_t)(end - p));
    return (size_t)(end - p);
}

size_t iol_fmt_i64(char *out, int64_t v)
{
    char tmp[24], *end = tmp + sizeof tmp;
    /* negate in unsigned arithmetic: INT64_MIN has no positive counterpart */
    char *p = utoa(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, end);
    if (v < 0)
        *--p = '-';
    memcpy(out, p, (size_t)(end - p));
    return (size_t)(end - p);
}

void iol_text_u64(iol_text *t, uint64_t v)
{
    char tmp[24];
    iol_text_put(t, tmp, iol_fmt_u64(tmp, v));
}

void iol_text_i64(iol_text *t, int64_t v)
{
    char tmp[24];
    iol_text_put(t, tmp, iol_fmt_i64(tmp, v));
}

/* %.Nf (N = 4 or 6) of |v| < 1e6 without printf, rounded as glibc rounds: the
 * exact decimal value to nearest, ties to even.  y = |v|*10^N is within 2^-53
 * relative of the exact product p; away from a .5 tie its nearest integer is
 * the answer.  Near a tie, p = y + e exactly, with e from fma (the product's
 * rounding error), and y - floor(y) - 0.5 is exact, so comparing it with -e
 * decides exactly, ties included.  Everything else goes to snprintf. */
static int fast_fixed(double v, int prec, char *out, size_t *n)
{
    if (!(fabs(v) < 1e6))
        return 0;
    uint64_t scale = prec == 4 ? 10000 : 1000000;
    double a = fabs(v), y = a * (double)scale;
    double fl = floor(y);
    double t = (y - fl) - 0.5;
    uint64_t r = (uint64_t)fl;
    if (t > 1e-3) {
        r++;
    } else if (t >= -1e-3) {
        double e = fma(a, (double)scale, -y);
        if (t > -e || (t == -e && (r & 1)))
            r++;
    }
    char tmp[32], *end = tmp + sizeof tmp;
    char *p = end;
    uint64_t ip = r / scale, fp = r % scale;
    for (int i = 0; i < prec; i++) {
        *--p = (char)('0' + fp % 10);
        fp /= 10;
    }
    *--p = '.';
    p = utoa(ip, p);
    if (signbit(v))
        *--p = '-';
    *n = (size_t)(end - p);
    memcpy(out, p, *n);
    return 1;
}

/* %.<prec>f, by hand when fast_fixed can, else by snprintf. */
static size_t fmt_fixed(char *out, double v, int prec)
{
    size_t n;
    if (!fast_fixed(v, prec, out, &n)) {
        int k = snprintf(out, IOL_FMT_F6_MAX, "%.*f", prec, v);
        n = k < 0 ? 0 : (size_t)k < IOL_FMT_F6_MAX ? (size_t)k : IOL_FMT_F6_MAX - 1;
    }
    return n;
}

size_t iol_fmt_f6(char *out, double v) { return fmt_fixed(out, v, 6); }
size_t iol_fmt_f4(char *out, double v) { return fmt_fixed(out, v, 4); }

void iol_text_f6(iol_text *t, double v)
{
    char tmp[IOL_FMT_F6_MAX];
    iol_text_put(t, tmp, iol_fmt_f6(tmp, v));
}

char *iol_text_reserve(iol_text *t, size_t n)
{
    return reserve(t, n) ? t->buf + t->len : NULL;
}

void iol_text_printf(iol_text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k < sizeof small) {
        iol_text_put(t, small, (size_t)k);
        return;
    }
    char *big = malloc((size_t)k + 1);
    if (!big) {
        t->err = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    iol_text_put(t, big, (size_t)k);
    free(big);
}
