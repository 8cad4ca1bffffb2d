/* Name region (log-format 5.1, 5.2): parse both encodings, deduplicate (keep the
 * first name of an id unless it is empty and a later one is not), and index by id
 * for O(log n) lookup. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "log_impl.h"

/* Raw entries before dedup: `first` is the record's position in the region. */
static int cmp_id_pos(const void *a, const void *b)
{
    const iol_name *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Count records so the entry array is allocated once. */
static int scan_count(iolens_log *log, const uint8_t *p, size_t n, size_t *count)
{
    size_t pos = 0, c = 0;
    int old = log->hdr.minor == 0;
    while (n - pos >= (old ? 12u : 9u)) {
        if (old) {
            uint32_t len = iol_get_u32(p + pos + 8, log->swap);
            if (len > n - pos - 12)
                return iol_log_fail(log, IOLENS_E_BAD_NAMES,
                                    "name record %zu at payload byte %zu: length %u runs past the "
                                    "end of the name region (%zu bytes)", c, pos, len, n);
            pos += 12 + (size_t)len;
        } else {
            const uint8_t *z = memchr(p + pos + 8, 0, n - pos - 8);
            if (!z)
                return iol_log_fail(log, IOLENS_E_BAD_NAMES,
                                    "name record %zu at payload byte %zu has no terminating NUL "
                                    "before the end of the name region (%zu bytes)", c, pos, n);
            pos = (size_t)(z - p) + 1;
        }
        c++;
    }
    *count = c;
    return IOLENS_OK;
}

/* Fill entries; for 3.00 logs copy names into a NUL-terminated store. */
static int fill(iolens_log *log, const uint8_t *p, size_t n, iol_name *e, size_t count)
{
    int old = log->hdr.minor == 0;
    char *store = NULL;
    if (old && !(store = log->names_copy = malloc(n + 1)))
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory reading names");
    size_t pos = 0;
    for (size_t i = 0; i < count; i++) {
        e[i].id = iol_get_u64(p + pos, log->swap);
        e[i].first = i;
        if (old) {
            uint32_t len = iol_get_u32(p + pos + 8, log->swap);
            memcpy(store, p + pos + 12, len);
            store[len] = 0;
            e[i].name = store;
            store += len + 1;
            pos += 12 + (size_t)len;
        } else {
            e[i].name = (const char *)p + pos + 8;
            pos += 8 + strlen(e[i].name) + 1;
        }
    }
    return IOLENS_OK;
}

/* Sort by (id, position) and collapse each id group to one entry. */
static size_t dedup(iol_name *e, size_t count)
{
    qsort(e, count, sizeof *e, cmp_id_pos);
    size_t out = 0;
    for (size_t i = 0; i < count;) {
        size_t k = i;
        const char *name = e[i].name;
        for (; k < count && e[k].id == e[i].id; k++)
            if (!name[0] && e[k].name[0])
                name = e[k].name;
        e[out] = e[i];
        e[out].name = name;
        out++;
        i = k;
    }
    return out;
}

/* Iteration order = first occurrence.  First positions are unique and below the
 * raw record count, so scatter into a table of that size and compact: O(n). */
static int build_order(iolens_log *log, size_t raw_count)
{
    size_t n = log->nnames, none = (size_t)-1;
    size_t *slot = malloc((raw_count ? raw_count : 1) * sizeof *slot);
    if (!slot)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory indexing names");
    for (size_t i = 0; i < raw_count; i++)
        slot[i] = none;
    for (size_t i = 0; i < n; i++)
        slot[log->names[i].first] = i;
    size_t k = 0;
    for (size_t i = 0; i < raw_count; i++)
        if (slot[i] != none)
            slot[k++] = slot[i];
    log->name_order = slot;
    return IOLENS_OK;
}

int iol_names_parse(iolens_log *log)
{
    iolens_region r = log->hdr.names;
    if (!r.len)
        return build_order(log, 0);
    char detail[160];
    size_t n = 0, count = 0;
    void *p = NULL;
    int rc = iol_inflate(log->hdr.comp_type, log->buf + r.off, (size_t)r.len,
                         iol_region_cap(r.len), 0, &p, &n, detail, sizeof detail);
    if (rc)
        return iol_log_fail(log, rc, "name record region [off %llu, len %llu]: %s",
                            (unsigned long long)r.off, (unsigned long long)r.len, detail);
    log->names_payload = p;
    if ((rc = scan_count(log, p, n, &count)))
        return rc;
    log->names = malloc((count ? count : 1) * sizeof *log->names);
    if (!log->names)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory reading %zu names", count);
    if ((rc = fill(log, p, n, log->names, count)))
        return rc;
    log->nnames = dedup(log->names, count);
    return build_order(log, count);
}

const char *iolens_log_name(const iolens_log *log, uint64_t id)
{
    if (!log)
        return NULL;
    size_t lo = 0, hi = log->nnames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->names[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < log->nnames && log->names[lo].id == id ? log->names[lo].name : NULL;
}

size_t iolens_log_name_count(const iolens_log *log)
{
    return log ? log->nnames : 0;
}

int iolens_log_name_at(const iolens_log *log, size_t i, uint64_t *id, const char **name)
{
    if (!log || i >= log->nnames)
        return IOLENS_E_INVALID_ARG;
    const iol_name *e = &log->names[log->name_order[i]];
    if (id)
        *id = e->id;
    if (name)
        *name = e->name;
    return IOLENS_OK;
}
