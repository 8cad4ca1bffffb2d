/* The name and id a path is recorded under: the path cleaned as upstream cleans
 * it (runtime spec 2.0.1), and its record id.  The id itself is the format
 * library's iolens_record_id() (one implementation, src/format/record_id.c);
 * iol_hash only keeps the core's name for it.  iol_path_name is the wrapper
 * path: an already clean path (nearly every path an application opens) is hashed
 * in place instead of being copied and cleaned. */
#include "rt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iolens/log.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

uint64_t iol_hash(const char *name, size_t len) { return iolens_record_id(name, len); }

uint64_t iol_name_id(const char *name) { return iol_hash(name, strlen(name)); }

/* Does s[0..len) contain "//" or "/./"?  (s[len] is readable: the terminator.) */
static int has_dirty_bytes(const char *s, size_t len)
{
#if defined(__SSE2__)
    if (len >= 16) {
        /* Windows of 16 bytes, 14 apart (the last one ends at len): every pattern
         * of at most 3 bytes lies inside one window.  Bit i of a mask = byte i. */
        const __m128i slash = _mm_set1_epi8('/'), dot = _mm_set1_epi8('.');
        for (size_t i = 0;; i += 14) {
            if (i + 16 > len)
                i = len - 16;
            __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
            unsigned sl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, slash));
            unsigned dt = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, dot));
            if ((sl & (sl >> 1)) | (sl & (dt >> 1) & (sl >> 2)))
                return 1;
            if (i + 16 == len)
                return 0;
        }
    }
#endif
    for (size_t i = 0; i < len; i++)
        if (s[i] == '/' && (s[i + 1] == '/' || (s[i + 1] == '.' && s[i + 2] == '/')))
            return 1;
    return 0;
}

const char *iol_path_name_n(const char *path, size_t n, char *buf, size_t *len)
{
    if (path && path[0] == '/' && n < IOL_PATH_LEN && !has_dirty_bytes(path, n)) {
        *len = n;
        return path;
    }
    iol_clean_path(path, buf, IOL_PATH_LEN);
    *len = strlen(buf);
    return buf;
}

const char *iol_path_name(const char *path, char *buf, size_t *len)
{
    return iol_path_name_n(path, (path && path[0] == '/') ? strlen(path) : 0, buf, len);
}

char *iol_clean_path(const char *path, char *out, size_t len)
{
    if (!path || !path[0] || path[0] == '<') {
        snprintf(out, len, "%s", path ? path : "");
        return out;
    }
    size_t plen = strlen(path);
    if (path[0] == '/' && plen < len && !strstr(path, "//") && !strstr(path, "/./")) {
        memcpy(out, path, plen + 1);           /* the common case: already clean */
        return out;
    }
    char raw[IOL_PATH_LEN * 2];
    size_t n = 0;
    if (path[0] != '/' && getcwd(raw, IOL_PATH_LEN)) {
        n = strlen(raw);
        raw[n++] = '/';
    }
    if (plen >= sizeof raw - n)
        plen = sizeof raw - n - 1;
    memcpy(raw + n, path, plen);
    raw[n + plen] = '\0';
    /* One pass equals upstream's repeated "//" -> "/" then "/./" -> "/". */
    size_t o = 0;
    const char *p = raw;
    for (; *p && o + 1 < len; p++) {
        if (*p == '/' && o && out[o - 1] == '/')
            continue;
        if (*p == '.' && o && out[o - 1] == '/' && p[1] == '/')
            continue;
        out[o++] = *p;
    }
    out[o] = '\0';
    if (*p)
        iol_fail(IOL_FAIL_PATH);      /* recorded under a truncated name */
    return out;
}
