/* Name region (log-format 5.1, 5.2): parse both encodings, deduplicate (keep the
 * first name of an id unless it is empty and a later one is not), and index by id.
 *
 * The region is decompressed as a stream and copied into one compact store in a
 * single layout (host-order u64 id, NUL-terminated name) whatever the log's
 * version and byte order; the index is a u32 (or u64) offset per distinct id in
 * first-occurrence order plus a hash table of u32 slots, so a million names cost
 * their own bytes plus about 12 bytes each.  A lazy open only checks the region
 * (the same stream, nothing kept) and loads it on the first lookup. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "log_impl.h"

/* Growable store of the converted entries; its failures are recorded on log. */
typedef struct sink {
    iolens_log *log;
    uint8_t *p;
    size_t len, cap, max;
} sink;

static int sink_put(sink *s, const void *data, size_t n)
{
    if (!s)
        return IOLENS_OK;
    if (n > s->max - s->len)
        return iol_log_fail(s->log, IOLENS_E_DECOMPRESS,
                            "name record region [off %llu, len %llu]: decompressed size "
                            "exceeds the safety limit (possible decompression bomb)",
                            (unsigned long long)s->log->hdr.names.off,
                            (unsigned long long)s->log->hdr.names.len);
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : (size_t)64 << 10;
        while (cap < s->len + n)
            cap = cap > s->max / 2 ? s->max : cap * 2;
        uint8_t *np = realloc(s->p, cap);
        if (!np)
            return iol_log_fail(s->log, IOLENS_E_NOMEM, "out of memory reading names");
        s->p = np;
        s->cap = cap;
    }
    memcpy(s->p + s->len, data, n);
    s->len += n;
    return IOLENS_OK;
}

/* Pass the name bytes of one entry to the sink until the NUL (new layout) or for
 * `len` bytes (3.00).  *ok = 0 when the payload ends first; *pos advances. */
static int copy_name(iol_zs *z, sink *s, int old, uint32_t len, size_t *pos, int *ok)
{
    size_t left = len;
    int cut = 0;                      /* 3.00: a NUL inside the name ends the string */
    *ok = 0;
    while (!old || left) {
        const uint8_t *p;
        size_t avail, n;
        int rc = iol_zs_fill(z, 1, &p, &avail);
        if (rc)
            return rc;
        if (!avail)
            return IOLENS_OK;
        const uint8_t *nul = NULL;
        size_t keep;
        if (old) {
            n = avail < left ? avail : left;
            const uint8_t *z0 = cut ? p : memchr(p, 0, n);
            keep = cut ? 0 : z0 ? (size_t)(z0 - p) : n;
            cut |= z0 != NULL;
        } else {
            nul = memchr(p, 0, avail);
            n = keep = nul ? (size_t)(nul - p) + 1 : avail;
        }
        if ((rc = sink_put(s, p, keep)))
            return rc;
        iol_zs_consume(z, n);
        *pos += n;
        left -= old ? n : 0;
        if (old ? left == 0 : nul != NULL)
            break;
    }
    *ok = 1;
    return old ? sink_put(s, "", 1) : IOLENS_OK;
}

/* Walk every entry, checking it; with a sink, store it.  *count = entries. */
static int scan(iolens_log *log, sink *s, size_t *count)
{
    iol_zs *z;
    int old = log->hdr.minor == 0, rc;
    size_t head = old ? 12 : 9, pos = 0, c = 0;
    if ((rc = iol_zs_open(log, log->hdr.names, "name record", &z)))
        return rc;
    for (;;) {
        const uint8_t *p;
        size_t avail;
        if ((rc = iol_zs_fill(z, head, &p, &avail)) || avail < head)
            break;
        uint64_t id = iol_get_u64(p, log->swap);
        uint32_t len = old ? iol_get_u32(p + 8, log->swap) : 0;
        size_t at = pos;
        iol_zs_consume(z, old ? 12 : 8);
        pos += old ? 12 : 8;
        int ok;
        if ((rc = sink_put(s, &id, 8)) || (rc = copy_name(z, s, old, len, &pos, &ok)))
            break;
        if (!ok) {
            /* the payload ended inside this entry: how long was it? */
            for (size_t a = 1; !(rc = iol_zs_fill(z, 1, &p, &a)) && a; pos += a)
                iol_zs_consume(z, a);
            if (!rc)
                rc = old ? iol_log_fail(log, IOLENS_E_BAD_NAMES,
                                        "name record %zu at payload byte %zu: length %u runs past "
                                        "the end of the name region (%zu bytes)", c, at, len, pos)
                         : iol_log_fail(log, IOLENS_E_BAD_NAMES,
                                        "name record %zu at payload byte %zu has no terminating "
                                        "NUL before the end of the name region (%zu bytes)",
                                        c, at, pos);
            break;
        }
        c++;
    }
    iol_zs_close(z);
    *count = c;
    return rc;
}

static size_t hash_id(uint64_t id)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdULL;
    id ^= id >> 33;
    return (size_t)id;
}

static size_t entry_off(const iol_names *n, size_t i)
{
    return n->off32 ? n->off32[i] : (size_t)n->off64[i];
}

static uint64_t entry_id(const iol_names *n, size_t off)
{
    uint64_t id;
    memcpy(&id, n->payload + off, 8);
    return id;
}

/* Dedup into first-occurrence order while filling the hash table. */
static int build_index(iolens_log *log, iol_names *n, size_t count)
{
    size_t cap = 16;
    while (cap < count + count / 2 + 1)
        cap <<= 1;
    int wide = n->len > UINT32_MAX;
    n->slot = calloc(cap, sizeof *n->slot);
    if (wide)
        n->off64 = malloc((count ? count : 1) * sizeof *n->off64);
    else
        n->off32 = malloc((count ? count : 1) * sizeof *n->off32);
    if (!n->slot || (!n->off32 && !n->off64))
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory indexing %zu names", count);
    n->mask = cap - 1;
    size_t pos = 0, distinct = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t id = entry_id(n, pos);
        const char *name = (const char *)n->payload + pos + 8;
        size_t h = hash_id(id) & n->mask;
        while (n->slot[h] && entry_id(n, entry_off(n, n->slot[h] - 1)) != id)
            h = (h + 1) & n->mask;
        if (!n->slot[h]) {
            if (wide)
                n->off64[distinct] = pos;
            else
                n->off32[distinct] = (uint32_t)pos;
            n->slot[h] = (uint32_t)++distinct;
        } else {
            size_t k = n->slot[h] - 1;
            if (!n->payload[entry_off(n, k) + 8] && name[0]) {   /* empty, then a name */
                if (wide)
                    n->off64[k] = pos;
                else
                    n->off32[k] = (uint32_t)pos;
            }
        }
        pos += 8 + strlen(name) + 1;
    }
    n->count = distinct;
    return IOLENS_OK;
}

int iol_names_parse(iolens_log *log)
{
    iol_names *n = &log->names;
    if (n->state)
        return n->state < 0 ? n->state : IOLENS_OK;
    size_t count = 0;
    int rc = IOLENS_OK;
    if (log->hdr.names.len) {
        sink s = {log, NULL, 0, 0, iol_region_cap(log->hdr.names.len)};
        rc = scan(log, &s, &count);
        n->payload = s.p;
        n->len = s.len;
    }
    if (!rc)
        rc = build_index(log, n, count);
    n->state = rc ? rc : 1;
    return rc;
}

int iol_names_check(iolens_log *log)
{
    size_t count;
    return log->hdr.names.len ? scan(log, NULL, &count) : IOLENS_OK;
}

void iol_lognames_free(iolens_log *log)
{
    iol_names *n = &log->names;
    free(n->payload);
    free(n->off32);
    free(n->off64);
    free(n->slot);
    memset(n, 0, sizeof *n);
}

/* Lazy opens load the names here; a failure is remembered (lookups find none). */
static const iol_names *loaded(const iolens_log *log)
{
    iolens_log *w = (iolens_log *)log;   /* loading is invisible to the caller */
    if (!w->names.state) {
        char keep[sizeof w->err];
        memcpy(keep, w->err, sizeof keep);
        iol_names_parse(w);
        memcpy(w->err, keep, sizeof keep);
    }
    return w->names.state == 1 ? &w->names : NULL;
}

const char *iolens_log_name(const iolens_log *log, uint64_t id)
{
    const iol_names *n = log ? loaded(log) : NULL;
    if (!n || !n->count)
        return NULL;
    for (size_t h = hash_id(id) & n->mask; n->slot[h]; h = (h + 1) & n->mask) {
        size_t off = entry_off(n, n->slot[h] - 1);
        if (entry_id(n, off) == id)
            return (const char *)n->payload + off + 8;
    }
    return NULL;
}

size_t iolens_log_name_count(const iolens_log *log)
{
    const iol_names *n = log ? loaded(log) : NULL;
    return n ? n->count : 0;
}

int iolens_log_name_at(const iolens_log *log, size_t i, uint64_t *id, const char **name)
{
    const iol_names *n = log ? loaded(log) : NULL;
    if (!n || i >= n->count)
        return IOLENS_E_INVALID_ARG;
    size_t off = entry_off(n, i);
    if (id)
        *id = entry_id(n, off);
    if (name)
        *name = (const char *)n->payload + off + 8;
    return IOLENS_OK;
}
