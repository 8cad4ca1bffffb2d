/* A test-only liblustreapi.so.1 (tests/runtime/test_runtime_lustre_api.py): the
 * llapi_layout_* functions the LUSTRE module uses, with lustreapi.h's signatures
 * and return conventions, answering from synthetic layouts instead of Lustre.
 *
 * llapi_layout_get_by_fd(fd) of a file in $IOLENS_TEST_LUSTRE_DIR reads
 * $IOLENS_TEST_LUSTRE_LAYOUTS/<file name>.api (from the second query of the same
 * file on, <file name>.api.2 when it exists; else default.api there); any other
 * file: NULL, ENOTTY (not Lustre); no description: NULL, ENODATA.  The runtime
 * calls it under its LUSTRE lock, one thread at a time.  A description is text:
 *
 *     plain | composite
 *     <comp id> <flags> <start> <end|eof> <stripe size> <count|default|wide>
 *         <pattern> <pool|-> <ost,ost,...|->        (one line per component)
 *
 * The OSTs listed are the component's objects: llapi_layout_ost_index_get of a
 * stripe beyond them fails with EINVAL, as the real one does for a component
 * without objects.  $IOLENS_TEST_LLAPI_FAIL names one function that then always
 * fails (-1 or NULL, EIO).  Like the real library, the layout is malloc'd and the
 * constructor seeds random() (the runtime must keep the application's sequence).
 * Built with FAKE_LLAPI_BEFORE_2_11 it lacks llapi_layout_mirror_id_get, as
 * libraries before Lustre 2.11 do. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define DEFAULT_VAL 0x1000000000000002ULL
#define WIDE_VAL (DEFAULT_VAL + 1)
#define MAX_COMPS 16
#define MAX_OBJS 64

struct comp {
    uint32_t id, flags;
    uint64_t start, end, size, count, pattern;
    char pool[16];
    int nobj;
    uint64_t obj[MAX_OBJS];
};

struct llapi_layout {
    bool composite;
    int n, cur;
    struct comp c[MAX_COMPS];
};

__attribute__((constructor)) static void seed(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    srandom((unsigned)getpid() ^ (unsigned)tv.tv_usec);
}

static int failing(const char *fn)
{
    const char *f = getenv("IOLENS_TEST_LLAPI_FAIL");
    if (f && strcmp(f, fn) == 0) {
        errno = EIO;
        return 1;
    }
    return 0;
}

static const struct comp *cur(const struct llapi_layout *l)
{
    if (!l || l->cur < 0 || l->cur >= l->n) {
        errno = EINVAL;
        return NULL;
    }
    return &l->c[l->cur];
}

/* ------------------------------------------------------------ descriptions */
static uint64_t count_value(const char *t)
{
    return strcmp(t, "default") == 0 ? DEFAULT_VAL
         : strcmp(t, "wide") == 0 ? WIDE_VAL : strtoull(t, NULL, 0);
}

static int parse_comp(const char *line, struct comp *c)
{
    char end[32], count[32], pool[64], osts[1024];
    memset(c, 0, sizeof *c);
    if (sscanf(line, "%u %u %lu %31s %lu %31s %lu %63s %1023s", &c->id, &c->flags, &c->start,
               end, &c->size, count, &c->pattern, pool, osts) != 9)
        return -1;
    c->end = strcmp(end, "eof") == 0 ? UINT64_MAX : strtoull(end, NULL, 0);
    c->count = count_value(count);
    if (strcmp(pool, "-") != 0)
        snprintf(c->pool, sizeof c->pool, "%.15s", pool);
    for (char *s = NULL, *t = strcmp(osts, "-") ? strtok_r(osts, ",", &s) : NULL;
         t && c->nobj < MAX_OBJS; t = strtok_r(NULL, ",", &s))
        c->obj[c->nobj++] = strtoull(t, NULL, 0);
    return 0;
}

static struct llapi_layout *read_description(FILE *f)
{
    char line[2048];
    struct llapi_layout *l = calloc(1, sizeof *l);
    if (!l || !fgets(line, sizeof line, f)) {
        free(l);
        errno = EIO;
        return NULL;
    }
    l->composite = strncmp(line, "composite", 9) == 0;
    while (l->n < MAX_COMPS && fgets(line, sizeof line, f))
        if (line[0] != '\n' && parse_comp(line, &l->c[l->n]) == 0)
            l->n++;
    return l;
}

/* ------------------------------------------------------------ which file */
#include "layout_query_count.h"

static FILE *open_description(const char *base)
{
    const char *dir = getenv("IOLENS_TEST_LUSTRE_LAYOUTS");
    char p[4400];
    FILE *f = NULL;
    if (!dir)
        return NULL;
    if (query_number(base) == 2) {
        snprintf(p, sizeof p, "%s/%s.api.2", dir, base);
        f = fopen(p, "r");
    }
    if (!f) {
        snprintf(p, sizeof p, "%s/%s.api", dir, base);
        f = fopen(p, "r");
    }
    if (!f) {
        snprintf(p, sizeof p, "%s/default.api", dir);
        f = fopen(p, "r");
    }
    return f;
}

struct llapi_layout *llapi_layout_get_by_fd(int fd, unsigned int flags)
{
    (void)flags;
    const char *dir = getenv("IOLENS_TEST_LUSTRE_DIR");
    char link[64], p[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, p, sizeof p - 1);
    if (failing("llapi_layout_get_by_fd"))
        return NULL;
    size_t dl = dir ? strlen(dir) : 0;
    if (n < 0 || !dir || (p[n] = '\0', strncmp(p, dir, dl) != 0) || p[dl] != '/') {
        errno = ENOTTY;
        return NULL;
    }
    FILE *f = open_description(strrchr(p, '/') + 1);
    if (!f) {
        errno = ENODATA;
        return NULL;
    }
    struct llapi_layout *l = read_description(f);
    fclose(f);
    return l;
}

void llapi_layout_free(struct llapi_layout *l)
{
    free(l);
}

/* 0 moved, 1 no component there (NEXT after the last), -1 error: as the real one. */
int llapi_layout_comp_use(struct llapi_layout *l, unsigned int pos)
{
    if (failing("llapi_layout_comp_use") || !cur(l))
        return -1;
    if (pos == 1) {                      /* FIRST */
        l->cur = 0;
        return 0;
    }
    if (pos == 3) {                      /* NEXT */
        if (l->cur + 1 >= l->n) {
            errno = ENOENT;
            return 1;
        }
        l->cur++;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

bool llapi_layout_is_composite(struct llapi_layout *l)
{
    return l && l->composite;
}

#define GETTER(name, type, expr)                              \
    int name(const struct llapi_layout *l, type *out)         \
    {                                                         \
        const struct comp *c = cur(l);                        \
        if (failing(#name) || !c || !out)                     \
            return -1;                                        \
        *out = (expr);                                        \
        return 0;                                             \
    }
GETTER(llapi_layout_stripe_count_get, uint64_t, c->pattern == 8 ? 0 : c->count)
GETTER(llapi_layout_stripe_size_get, uint64_t, c->size)
GETTER(llapi_layout_pattern_get, uint64_t, c->pattern)
GETTER(llapi_layout_comp_flags_get, uint32_t, c->flags)
GETTER(llapi_layout_comp_id_get, uint32_t, c->id)
#ifndef FAKE_LLAPI_BEFORE_2_11     /* Lustre 2.11 added it */
GETTER(llapi_layout_mirror_id_get, uint32_t, (c->id & 0x7FFF0000u) >> 16)
#endif

int llapi_layout_ost_index_get(const struct llapi_layout *l, uint64_t stripe, uint64_t *index)
{
    const struct comp *c = cur(l);
    if (failing("llapi_layout_ost_index_get") || !c || !index)
        return -1;
    if (stripe >= c->count || stripe >= (uint64_t)c->nobj) {
        errno = EINVAL;
        return -1;
    }
    *index = c->obj[stripe];
    return 0;
}

int llapi_layout_pool_name_get(const struct llapi_layout *l, char *dest, size_t n)
{
    const struct comp *c = cur(l);
    if (failing("llapi_layout_pool_name_get") || !c || !dest)
        return -1;
    snprintf(dest, n, "%s", c->pool);
    return 0;
}

int llapi_layout_comp_extent_get(const struct llapi_layout *l, uint64_t *start, uint64_t *end)
{
    const struct comp *c = cur(l);
    if (failing("llapi_layout_comp_extent_get") || !c || !start || !end)
        return -1;
    *start = c->start;
    *end = c->end;
    return 0;
}
