/* Header decoding (log-format 2, 8.2): version, magic and byte order, the two
 * header layouts, renumbering of old module slots, and the region checks. */
#include <stdio.h>
#include "internal.h"
#include "log_impl.h"

#define IOL_MAGIC 6567223ULL
#define IOL_OLD_SLOTS 16

/* Only the versions upstream writes are accepted (section 2.3). */
static int parse_version(iolens_log *log)
{
    static const char *const known[] = { "3.00", "3.10", "3.20", "3.21", "3.41" };
    iolens_header *h = &log->hdr;
    char v[9] = { 0 };
    memcpy(v, log->buf, 8);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (memcmp(log->buf, known[i], 4) == 0 && strlen(v) == 4) {
            memcpy(h->version, v, sizeof h->version);
            h->major = v[0] - '0';
            h->minor = (v[2] - '0') * 10 + (v[3] - '0');
            return IOLENS_OK;
        }
    }
    /* Render the bytes printably for the message. */
    char shown[33];
    size_t k = 0;
    for (size_t i = 0; i < 8 && v[i]; i++)
        k += (size_t)snprintf(shown + k, sizeof shown - k,
                              (v[i] >= 32 && v[i] < 127) ? "%c" : "\\x%02x", (unsigned char)v[i]);
    shown[k] = 0;
    if (memcmp(log->buf + 8, "\x37\x35\x64\0\0\0\0\0", 8) != 0 &&
        memcmp(log->buf + 8, "\0\0\0\0\0\x64\x35\x37", 8) != 0)
        return iol_log_fail(log, IOLENS_E_BAD_MAGIC,
                            "not a Darshan log: bad magic number and version string \"%s\"", shown);
    return iol_log_fail(log, IOLENS_E_BAD_VERSION,
                        "unsupported Darshan log version \"%s\" (supported: 3.00 3.10 3.20 3.21 3.41)",
                        shown);
}

static int parse_magic(iolens_log *log)
{
    uint64_t m = iol_get_u64(log->buf + 8, 0);
    if (m == IOL_MAGIC)
        log->swap = 0;
    else if (__builtin_bswap64(m) == IOL_MAGIC)
        log->swap = 1;
    else
        return iol_log_fail(log, IOLENS_E_BAD_MAGIC,
                            "not a Darshan log: bad magic number 0x%016llx at offset 8",
                            (unsigned long long)m);
    /* The writer's order: the host's own unless swapped (big-endian hosts too). */
    int host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    log->hdr.big_endian = log->swap ? !host_big : host_big;
    return IOLENS_OK;
}

/* Insert an empty module slot at `at` (section 8.2) in maps, versions and bits. */
static void insert_slot(iolens_header *h, int at)
{
    for (int i = IOL_MAX_MODULES - 1; i > at; i--) {
        h->mod[i] = h->mod[i - 1];
        h->mod_ver[i] = h->mod_ver[i - 1];
    }
    h->mod[at].off = h->mod[at].len = 0;
    h->mod_ver[at] = 0;
    uint64_t low = h->partial_flag & ((1ULL << at) - 1);
    uint64_t high = h->partial_flag & ~((1ULL << at) - 1);
    h->partial_flag = low | (high << 1);
}

static void read_maps(iolens_log *log, size_t name_at, size_t map_at, size_t ver_at, int slots)
{
    iolens_header *h = &log->hdr;
    const uint8_t *b = log->buf;
    h->names.off = iol_get_u64(b + name_at, log->swap);
    h->names.len = iol_get_u64(b + name_at + 8, log->swap);
    for (int i = 0; i < slots; i++) {
        h->mod[i].off = iol_get_u64(b + map_at + 16 * (size_t)i, log->swap);
        h->mod[i].len = iol_get_u64(b + map_at + 16 * (size_t)i + 8, log->swap);
        h->mod_ver[i] = iol_get_u32(b + ver_at + 4 * (size_t)i, log->swap);
    }
}

static int parse_layout(iolens_log *log)
{
    iolens_header *h = &log->hdr;
    int current = h->minor >= 41;
    h->header_size = current ? 1328 : 360;
    if (log->size < h->header_size)
        return iol_log_fail(log, IOLENS_E_TRUNCATED,
                            "file is %zu bytes, shorter than the %zu-byte header of a %s log",
                            log->size, h->header_size, h->version);
    h->comp_type = log->buf[16];
    if (current) {
        h->partial_flag = iol_get_u64(log->buf + 24, log->swap);
        read_maps(log, 32, 48, 1072, IOL_MAX_MODULES);
    } else {
        h->partial_flag = iol_get_u32(log->buf + 20, log->swap);
        read_maps(log, 24, 40, 296, IOL_OLD_SLOTS);
        if (h->minor < 20)
            insert_slot(h, IOL_MOD_H5D);
        insert_slot(h, IOL_MOD_PNETCDF_VAR);
    }
    if (h->comp_type > IOLENS_COMP_NONE)
        return iol_log_fail(log, IOLENS_E_BAD_COMPRESSION,
                            "invalid compression type %d in header (0 zlib, 1 bzip2, 2 none)",
                            h->comp_type);
    return IOLENS_OK;
}

static uint64_t region_end(iolens_region r)
{
    return r.off > UINT64_MAX - r.len ? UINT64_MAX : r.off + r.len;
}

static int check_region(iolens_log *log, const char *what, iolens_region r)
{
    size_t hs = log->hdr.header_size;
    if (r.off > log->size || r.len > log->size - r.off)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "%s region [off %llu, len %llu] extends past end of file (size %zu)",
                            what, (unsigned long long)r.off, (unsigned long long)r.len, log->size);
    if (r.off < hs)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "%s region [off %llu, len %llu] starts inside the %zu-byte header",
                            what, (unsigned long long)r.off, (unsigned long long)r.len, hs);
    return IOLENS_OK;
}

/* Job region extent (section 1): from the header end to the name region, else to
 * the first module region, else to end of file. */
static int job_extent(iolens_log *log)
{
    iolens_header *h = &log->hdr;
    uint64_t end = log->size;
    if (h->names.off) {
        end = h->names.off;
    } else {
        for (int i = 0; i < IOL_MAX_MODULES; i++)
            if (h->mod[i].off) { end = h->mod[i].off; break; }
    }
    if (end < h->header_size || end > log->size)
        return iol_log_fail(log, IOLENS_E_BAD_REGION,
                            "job region would end at offset %llu, outside [%zu, %zu] (file size %zu)",
                            (unsigned long long)end, h->header_size, log->size, log->size);
    h->job.off = h->header_size;
    h->job.len = end - h->header_size;
    return IOLENS_OK;
}

static int check_regions(iolens_log *log)
{
    iolens_header *h = &log->hdr;
    int rc;
    if (h->names.len && (rc = check_region(log, "name record", h->names)))
        return rc;
    for (int i = 0; i < IOL_MAX_MODULES; i++) {
        if (!h->mod[i].len)
            continue;
        const iolens_module_info *mi = iolens_module_info_get(i);
        char what[48];
        if (mi)
            snprintf(what, sizeof what, "%s module", mi->name);
        else
            snprintf(what, sizeof what, "module %d", i);
        if ((rc = check_region(log, what, h->mod[i])))
            return rc;
    }
    return job_extent(log);
}

/* (log_impl.h) The bytes a log read from a stream can use: the end of the last
 * region its header names. */
int iol_header_span(iolens_log *log, uint64_t *end)
{
    int rc;
    *end = 0;
    if (log->size < 16)
        return IOLENS_OK;
    if ((rc = parse_version(log)) || (rc = parse_magic(log)))
        return rc;
    if ((rc = parse_layout(log)))
        return rc == IOLENS_E_TRUNCATED ? IOLENS_OK : rc;   /* open will say it */
    const iolens_header *h = &log->hdr;
    uint64_t last = h->names.len ? region_end(h->names) : 0;
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (h->mod[i].len && region_end(h->mod[i]) > last)
            last = region_end(h->mod[i]);
    *end = last;
    return IOLENS_OK;
}

int iol_header_parse(iolens_log *log)
{
    int rc;
    if (log->size < 16)
        return iol_log_fail(log, IOLENS_E_TRUNCATED,
                            "file is %zu bytes, too short for a Darshan log header", log->size);
    if ((rc = parse_version(log)) || (rc = parse_magic(log)) || (rc = parse_layout(log)))
        return rc;
    return check_regions(log);
}
