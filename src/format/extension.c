/* Our extension modules (ids from IOL_MOD_FIRST_EXTENSION on) live outside the
 * header's module map, which upstream's readers index by their own module table
 * (PyDarshan 3.5.0 refuses a log whose map names an id it does not know).  Their
 * regions follow the last module region and are located by one job metadata line:
 *
 *     iolens_ext=<id>:<version>:<offset>:<length>:<partial>[,<id>:...]\n
 *
 * decimal fields; offset counted from the start of the name region (so the job
 * record does not depend on its own compressed size); partial 0 or 1 (the
 * module's bit of the header's partial flag).  A writer that finds no room for
 * the line in the 1024-byte metadata leaves the modules out and writes
 * `iolens_ext=omitted` when that fits.  Readers install the regions as if the
 * map named them and hide the line from the metadata they show. */
#include <stdio.h>
#include "internal.h"
#include "log_impl.h"

#define EXT_KEY "iolens_ext="
#define EXT_KEY_LEN (sizeof EXT_KEY - 1)
#define EXT_FIELDS 5

/* The start of the metadata line that sets our key, or NULL. */
static char *find_line(char *md)
{
    for (char *p = md; *p;) {
        if (strncmp(p, EXT_KEY, EXT_KEY_LEN) == 0)
            return p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

static void remove_line(char *line)
{
    char *nl = strchr(line, '\n');
    char *rest = nl ? nl + 1 : line + strlen(line);
    memmove(line, rest, strlen(rest) + 1);
}

void iol_ext_strip(char *metadata)
{
    char *line;
    while ((line = find_line(metadata)))
        remove_line(line);
}

size_t iol_ext_format(const iolens_header *h, uint64_t names_off, char *dst, size_t cap)
{
    size_t n = (size_t)snprintf(dst, cap, "%s", EXT_KEY);
    int first = 1;
    for (int id = IOL_MOD_FIRST_EXTENSION; id < IOL_MAX_MODULES && n < cap; id++) {
        if (!h->mod[id].len)
            continue;
        n += (size_t)snprintf(dst + n, cap - n, "%s%d:%u:%llu:%llu:%d", first ? "" : ",", id,
                              h->mod_ver[id], (unsigned long long)(h->mod[id].off - names_off),
                              (unsigned long long)h->mod[id].len,
                              (int)((h->partial_flag >> id) & 1));
        first = 0;
    }
    if (first)
        return 0;
    if (n < cap)
        n += (size_t)snprintf(dst + n, cap - n, "\n");
    return n < cap ? n : cap;
}

/* ---------------------------------------------------------------- reading */

/* A decimal field of at most 20 digits that fits in 64 bits; *p moves past it. */
static int take_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *p = s;
    *v = x;
    return digits > 0 && digits <= 20;
}

static int overlaps(iolens_region a, uint64_t off, uint64_t len)
{
    return a.len && a.off < off + len && off < a.off + a.len;
}

/* The entry's region must lie inside the file, after the header, and touch no
 * region of the header, the job, or an entry installed before it. */
static int check_place(iolens_log *log, int id, uint64_t off, uint64_t len)
{
    const iolens_header *h = &log->hdr;
    if (!len || len > IOL_EXT_MAX_LEN || off < h->header_size || off > log->size ||
        len > log->size - off)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "extension module %d region [off %llu, len %llu] lies outside the "
                            "file (size %zu) or exceeds %llu bytes", id, (unsigned long long)off,
                            (unsigned long long)len, log->size,
                            (unsigned long long)IOL_EXT_MAX_LEN);
    int clash = overlaps(h->job, off, len) || overlaps(h->names, off, len) ? -2 : -1;
    for (int i = 0; i < IOL_MAX_MODULES && clash == -1; i++)
        if (overlaps(h->mod[i], off, len))
            clash = i;
    if (clash != -1)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "extension module %d region [off %llu, len %llu] overlaps the %s", id,
                            (unsigned long long)off, (unsigned long long)len,
                            clash == -2 ? "job or name region" : "region of another module");
    return IOLENS_OK;
}

/* One entry "<id>:<version>:<offset>:<length>:<partial>" at *p. */
static int install_entry(iolens_log *log, const char **p, int k)
{
    uint64_t f[EXT_FIELDS];
    for (int i = 0; i < EXT_FIELDS; i++)
        if (!take_u64(p, &f[i]) || (i + 1 < EXT_FIELDS && *(*p)++ != ':'))
            return iol_log_fail(log, IOLENS_E_BAD_JOB,
                                "metadata %s entry %d is not id:version:offset:length:partial",
                                EXT_KEY, k + 1);
    iolens_header *h = &log->hdr;
    if (f[0] < IOL_MOD_FIRST_EXTENSION || f[0] >= IOL_MAX_MODULES || !f[1] ||
        f[1] > UINT32_MAX || f[4] > 1)
        return iol_log_fail(log, IOLENS_E_BAD_JOB,
                            "metadata %s entry %d: module %llu, version %llu or partial %llu "
                            "out of range", EXT_KEY, k + 1, (unsigned long long)f[0],
                            (unsigned long long)f[1], (unsigned long long)f[4]);
    int id = (int)f[0];
    if (h->mod[id].len)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "extension module %d is named twice (header map or metadata)", id);
    if (!h->names.off || f[2] > UINT64_MAX - h->names.off)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "extension module %d: no name region offset to count from", id);
    int rc = check_place(log, id, h->names.off + f[2], f[3]);
    if (rc)
        return rc;
    h->mod[id].off = h->names.off + f[2];
    h->mod[id].len = f[3];
    h->mod_ver[id] = (uint32_t)f[1];
    if (f[4])
        h->partial_flag |= 1ULL << id;
    return IOLENS_OK;
}

int iol_ext_parse(iolens_log *log)
{
    char *line = find_line(log->job.metadata);
    if (!line)
        return IOLENS_OK;
    const char *p = line + EXT_KEY_LEN;
    if (strncmp(p, "omitted", 7) == 0 && (p[7] == '\n' || !p[7]))
        return IOLENS_OK;               /* the writer's note stays visible */
    for (int k = 0;; k++) {
        int rc = install_entry(log, &p, k);
        if (rc)
            return rc;
        if (*p != ',')
            break;
        p++;
    }
    if (*p != '\n' && *p)
        return iol_log_fail(log, IOLENS_E_BAD_JOB, "metadata %s: unexpected text after the "
                            "last entry", EXT_KEY);
    remove_line(line);
    return IOLENS_OK;
}
