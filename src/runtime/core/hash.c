/* Record names and ids on the wrapper path.  The id itself is the format
 * library's iolens_record_id() (one implementation, src/format/record_id.c);
 * iol_hash only keeps the core's name for it.  What is here is the test that
 * lets an already clean path (nearly every path an application opens) be hashed
 * in place instead of being copied and cleaned. */
#include "rt.h"

#include <string.h>

#include "iolens/log.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

uint64_t iol_hash(const char *name, size_t len) { return iolens_record_id(name, len); }

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
