/* Builds small logs in memory for the unit tests, field by field from the format
 * spec (independent of the library's writer), so tests can corrupt any byte. */
#ifndef IOLENS_TEST_LOGBUILD_H
#define IOLENS_TEST_LOGBUILD_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "iolens/log.h"

typedef struct lb_region {
    int slot;                 /* module slot as stored in the header (old numbering for old logs) */
    uint32_t ver;
    const void *data;         /* stored (already compressed) bytes */
    size_t len;
} lb_region;

typedef struct lb_log {
    uint8_t *buf;
    size_t len;
    size_t names_off, mod_off[64];
} lb_log;

static inline void lb_put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void lb_put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* version "3.41" (1328-byte header) or an old one (360 bytes).  Regions are placed
 * back to back: job, names, then `nreg` module regions in the given order. */
static inline lb_log lb_build(const char *version, int comp, uint64_t partial,
                       const void *job, size_t joblen, const void *names, size_t nameslen,
                       const lb_region *reg, size_t nreg)
{
    int cur = strcmp(version, "3.41") == 0;
    size_t hs = cur ? 1328 : 360, total = hs + joblen + nameslen;
    for (size_t i = 0; i < nreg; i++)
        total += reg[i].len;
    lb_log l;
    memset(&l, 0, sizeof l);
    l.buf = calloc(1, total);
    l.len = total;
    memcpy(l.buf, version, strlen(version));
    lb_put64(l.buf + 8, 6567223);
    l.buf[16] = (uint8_t)comp;
    size_t pos = hs;
    if (joblen)
        memcpy(l.buf + pos, job, joblen);
    pos += joblen;
    l.names_off = pos;
    if (cur) {
        lb_put64(l.buf + 24, partial);
        lb_put64(l.buf + 32, pos);
        lb_put64(l.buf + 40, nameslen);
    } else {
        lb_put32(l.buf + 20, (uint32_t)partial);
        lb_put64(l.buf + 24, pos);
        lb_put64(l.buf + 32, nameslen);
    }
    if (nameslen)
        memcpy(l.buf + pos, names, nameslen);
    pos += nameslen;
    for (size_t i = 0; i < nreg; i++) {
        size_t m = cur ? 48 : 40, v = cur ? 1072 : 296;
        lb_put64(l.buf + m + 16 * reg[i].slot, pos);
        lb_put64(l.buf + m + 16 * reg[i].slot + 8, reg[i].len);
        lb_put32(l.buf + v + 4 * reg[i].slot, reg[i].ver);
        l.mod_off[reg[i].slot] = pos;
        memcpy(l.buf + pos, reg[i].data, reg[i].len);
        pos += reg[i].len;
    }
    return l;
}

/* An uncompressed job region: record of 1080 (3.41) or 1064 bytes, then `exe`. */
static inline size_t lb_job(uint8_t *out, int current, const char *metadata, const char *exe)
{
    size_t rec = current ? 1080 : 1064;
    memset(out, 0, rec);
    lb_put64(out, 1000);                         /* uid */
    lb_put64(out + 8, 1700000000);               /* start */
    if (current) {
        lb_put64(out + 16, 500000000);
        lb_put64(out + 24, 1700000010);
        lb_put64(out + 32, 250000000);
        lb_put64(out + 40, 4);
        lb_put64(out + 48, 4242);
    } else {
        lb_put64(out + 16, 1700000010);
        lb_put64(out + 24, 4);
        lb_put64(out + 32, 4242);
    }
    strcpy((char *)out + rec - 1024, metadata);
    strcpy((char *)out + rec, exe);
    return rec + strlen(exe) + 1;
}

/* Appends one 3.10+ name record; returns the new length. */
static inline size_t lb_name(uint8_t *out, size_t len, uint64_t id, const char *name)
{
    lb_put64(out + len, id);
    strcpy((char *)out + len + 8, name);
    return len + 8 + strlen(name) + 1;
}

/* A valid zlib 3.41 log of the given job and name payloads (as lb_job and lb_name
 * make them) and one POSIX region of two fake records. */
static inline lb_log lb_posix_log(const void *job, size_t joblen, const void *names,
                                  size_t nameslen)
{
    void *zj, *zn, *zp;
    size_t lj, ln, lp;
    uint8_t posix[2 * 704];
    memset(posix, 0x11, sizeof posix);
    iolens_compress(IOLENS_COMP_ZLIB, job, joblen, &zj, &lj);
    iolens_compress(IOLENS_COMP_ZLIB, names, nameslen, &zn, &ln);
    iolens_compress(IOLENS_COMP_ZLIB, posix, sizeof posix, &zp, &lp);
    lb_region r = { IOL_MOD_POSIX, 4, zp, lp };
    lb_log l = lb_build("3.41", IOLENS_COMP_ZLIB, 0, zj, lj, zn, ln, &r, 1);
    free(zj);
    free(zn);
    free(zp);
    return l;
}
#endif
