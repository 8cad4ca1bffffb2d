/* Decoding of counter-kind module regions (log-format spec sections 7.1-7.8,
 * 7.12-7.14, 8.3-8.5): every stored record version of NULL, POSIX, MPI-IO, H5F,
 * H5D, PNETCDF_FILE, PNETCDF_VAR, BG/Q, STDIO, MDHIM, DFS and DAOS, in either
 * byte order, upgraded to the current layout.
 *
 * Values are correct, not upstream-compatible where upstream loses data: every
 * field is byte-swapped for big-endian logs (upstream leaves three POSIX float
 * counters and the H5D file_rec_id unswapped in some cases), the POSIX v2/v3
 * upgrade keeps all float counters (upstream zeroes the last two or four), and
 * DFS/DAOS uuids are kept as the byte strings they are.  See docs/deviations.md. */
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

typedef void (*upgrade_fn)(const int64_t *oi, const double *of, int64_t *ni, double *nf);

/* One stored record version of a counter module. */
struct rec_layout {
    int module;
    uint32_t version;
    size_t size;        /* fixed record size in bytes (MDHIM: incl. first histogram value) */
    size_t skip;        /* padding after the base record (BG/Q v1) */
    int file_rec;       /* a u64 file_rec_id follows the base record */
    size_t n_int, n_flt;/* stored counters */
    size_t aux;         /* bytes after the float counters (DFS, DAOS) */
    upgrade_fn upgrade; /* NULL: stored layout is current */
};

/* ---------------------------------------------------------------- upgrades (8.4) */

/* Float counters of POSIX/MPI-IO v1/v2 (15 values) to the 17 of the current layout:
 * CLOSE_START and OPEN_END are inserted at 3 and 4. */
static void upgrade_times15(const double *of, double *nf)
{
    for (int k = 0; k < 3; k++) nf[k] = of[k];
    nf[3] = -1.0;
    nf[4] = -1.0;
    for (int k = 3; k < 15; k++) nf[k + 2] = of[k];
}

/* POSIX v2/v3 counters (64) to v4 (69). */
static void upgrade_posix_ints(const int64_t *oi, int64_t *ni)
{
    ni[POSIX_OPENS] = oi[0];
    ni[POSIX_FILENOS] = -1;
    ni[POSIX_DUPS] = -1;
    for (int k = 1; k <= 7; k++) ni[POSIX_READS + k - 1] = oi[k];
    ni[POSIX_RENAME_SOURCES] = -1;
    ni[POSIX_RENAME_TARGETS] = -1;
    ni[POSIX_RENAMED_FROM] = 0;
    for (int k = 8; k < 64; k++) ni[POSIX_MODE + k - 8] = oi[k];
}

static void upgrade_posix_v3(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    upgrade_posix_ints(oi, ni);
    for (int k = 0; k < POSIX_F_NUM_INDICES; k++) nf[k] = of[k];
}

static void upgrade_posix_v2(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    upgrade_posix_ints(oi, ni);
    upgrade_times15(of, nf);
}

/* v1 has FOPENS FREADS FWRITES FSEEKS at 6..9; removing them gives v2.  Records
 * with FOPENS > 0 never reach here (dropped by the caller, as upstream does). */
static void upgrade_posix_v1(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    int64_t v2[64];
    for (int k = 0; k < 6; k++) v2[k] = oi[k];
    for (int k = 10; k < 68; k++) v2[k - 4] = oi[k];
    upgrade_posix_v2(v2, of, ni, nf);
}

static void upgrade_mpiio_v2(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    for (int k = 0; k < MPIIO_NUM_INDICES; k++) ni[k] = oi[k];
    upgrade_times15(of, nf);
}

static void upgrade_stdio_v1(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    ni[STDIO_OPENS] = oi[0];
    ni[STDIO_FDOPENS] = -1;
    for (int k = 1; k < 13; k++) ni[k + 1] = oi[k];
    for (int k = 0; k < STDIO_F_NUM_INDICES; k++) nf[k] = of[k];
}

static void upgrade_h5f_v1(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    ni[H5F_OPENS] = oi[0];
    ni[H5F_FLUSHES] = -1;
    ni[H5F_USE_MPIIO] = -1;
    nf[H5F_F_OPEN_START_TIMESTAMP] = of[0];
    nf[H5F_F_CLOSE_START_TIMESTAMP] = -1.0;
    nf[H5F_F_OPEN_END_TIMESTAMP] = -1.0;
    nf[H5F_F_CLOSE_END_TIMESTAMP] = of[1];
    nf[H5F_F_META_TIME] = -1.0;
}

static void upgrade_h5f_v2(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    ni[H5F_OPENS] = oi[0];
    ni[H5F_FLUSHES] = -1;
    ni[H5F_USE_MPIIO] = -1;
    for (int k = 0; k < 4; k++) nf[k] = of[k];
    nf[H5F_F_META_TIME] = -1.0;
}

/* PNETCDF v2 (INDEP_OPENS, COLL_OPENS; OPEN_START CLOSE_START OPEN_END CLOSE_END). */
static void upgrade_pnetcdf_v2(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    for (int k = 0; k < PNETCDF_FILE_NUM_INDICES; k++) ni[k] = -1;
    ni[PNETCDF_FILE_OPENS] = (int64_t)((uint64_t)oi[0] + (uint64_t)oi[1]);   /* wraps, never UB */
    for (int k = 0; k < PNETCDF_FILE_F_NUM_INDICES; k++) nf[k] = -1.0;
    nf[PNETCDF_FILE_F_OPEN_START_TIMESTAMP] = of[0];
    nf[PNETCDF_FILE_F_CLOSE_START_TIMESTAMP] = of[1];
    nf[PNETCDF_FILE_F_OPEN_END_TIMESTAMP] = of[2];
    nf[PNETCDF_FILE_F_CLOSE_END_TIMESTAMP] = of[3];
}

/* PNETCDF v1 floats are OPEN_TIMESTAMP, CLOSE_TIMESTAMP (start of open, end of close). */
static void upgrade_pnetcdf_v1(const int64_t *oi, const double *of, int64_t *ni, double *nf)
{
    const double v2[4] = {of[0], -1.0, -1.0, of[1]};
    upgrade_pnetcdf_v2(oi, v2, ni, nf);
}

/* ---------------------------------------------------------------- layout table */

/* The current layout of a module is tied to its counter table: the version is the
 * one modules.def says we write, the counts are the table's (counters.h), and the
 * record size -- a fact of the format, written out -- must equal what they add up
 * to (16-byte base record, padding, file_rec_id, counters, trailing bytes), or
 * this file does not compile.  Older layouts carry their own stored counts. */
#define CHECKED_SIZE(size, bytes) (sizeof(char[(size) == (bytes) ? 1 : -1]) * (size))
#define CURRENT(sym, size, skip, file_rec, aux)                                        \
    {IOL_MOD_##sym, IOL_MOD_##sym##_VERSION,                                           \
     CHECKED_SIZE(size, 16 + (skip) + 8 * (file_rec)                                   \
                  + 8 * (sym##_NUM_INDICES + sym##_F_NUM_INDICES) + (aux)),            \
     skip, file_rec, sym##_NUM_INDICES, sym##_F_NUM_INDICES, aux, NULL}

static const struct rec_layout layouts[] = {
    CURRENT(NULL, 48, 0, 0, 0),
    {IOL_MOD_POSIX, 1, 680, 0, 0, 68, 15, 0, upgrade_posix_v1},
    {IOL_MOD_POSIX, 2, 648, 0, 0, 64, 15, 0, upgrade_posix_v2},
    {IOL_MOD_POSIX, 3, 664, 0, 0, 64, 17, 0, upgrade_posix_v3},
    CURRENT(POSIX, 704, 0, 0, 0),
    {IOL_MOD_MPIIO, 1, 544, 0, 0, 51, 15, 0, upgrade_mpiio_v2},
    {IOL_MOD_MPIIO, 2, 544, 0, 0, 51, 15, 0, upgrade_mpiio_v2},
    CURRENT(MPIIO, 560, 0, 0, 0),
    {IOL_MOD_H5F, 1, 40, 0, 0, 1, 2, 0, upgrade_h5f_v1},
    {IOL_MOD_H5F, 2, 56, 0, 0, 1, 4, 0, upgrade_h5f_v2},
    CURRENT(H5F, 80, 0, 0, 0),
    {IOL_MOD_H5D, 1, 904, 0, 0, 94, 17, 0, NULL},
    CURRENT(H5D, 912, 0, 1, 0),
    {IOL_MOD_PNETCDF_FILE, 1, 48, 0, 0, 2, 2, 0, upgrade_pnetcdf_v1},
    {IOL_MOD_PNETCDF_FILE, 2, 64, 0, 0, 2, 4, 0, upgrade_pnetcdf_v2},
    CURRENT(PNETCDF_FILE, 152, 0, 0, 0),
    CURRENT(PNETCDF_VAR, 1120, 0, 1, 0),
    {IOL_MOD_BGQ, 1, 120, 8, 0, 11, 1, 0, NULL},
    CURRENT(BGQ, 112, 0, 0, 0),
    {IOL_MOD_STDIO, 1, 240, 0, 0, 13, 15, 0, upgrade_stdio_v1},
    CURRENT(STDIO, 248, 0, 0, 0),
    /* MDHIM's fixed part includes the first MDHIM_SERVERS histogram value. */
    {IOL_MOD_MDHIM, IOL_MOD_MDHIM_VERSION,
     CHECKED_SIZE(96, 16 + 8 * (MDHIM_NUM_INDICES + MDHIM_F_NUM_INDICES) + 8), 0, 0,
     MDHIM_NUM_INDICES, MDHIM_F_NUM_INDICES, 0, NULL},
    CURRENT(DFS, 584, 0, 0, 32),
    CURRENT(DAOS, 696, 0, 0, 48),
};

/* The current layout of every counters-kind module, derived from its counter
 * table alone (16-byte base record, then the table's counters): a new module
 * needs no row above unless its records hold more (a file_rec_id, trailing
 * bytes) or it has older versions.  The rows above come first and state
 * upstream's sizes as facts (checked at compile time). */
#define DERIVED_COUNTERS(id, ver, n_int, n_flt)                                        \
    {id, ver, 16 + 8 * (n_int + n_flt), 0, 0, n_int, n_flt, 0, NULL},
#define DERIVED_LUSTRE(id, ver, n_int, n_flt)
#define DERIVED_DXT(id, ver, n_int, n_flt)
#define DERIVED_HEATMAP(id, ver, n_int, n_flt)
#define DERIVED_MDHIM(id, ver, n_int, n_flt)
#define DERIVED_OPAQUE(id, ver, n_int, n_flt)
/* (pasted here, so that the NULL module's symbol is never expanded as a macro) */
#define MODULE(id, sym, name, ver, kind, role, summary, layer, depth, runtime, tbl) \
    DERIVED_##kind(IOL_MOD_##sym, IOL_MOD_##sym##_VERSION, sym##_NUM_INDICES,           \
                   sym##_F_NUM_INDICES)
static const struct rec_layout derived_layouts[] = {
#include "modules.def"
};
#undef MODULE

static const struct rec_layout *find_layout(int module, uint32_t version)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].module == module && layouts[i].version == version)
            return &layouts[i];
    for (size_t i = 0; i < sizeof derived_layouts / sizeof derived_layouts[0]; i++)
        if (derived_layouts[i].module == module && derived_layouts[i].version == version)
            return &derived_layouts[i];
    return NULL;
}

size_t iolens_module_record_size(int module)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    const struct rec_layout *lay = mi ? find_layout(module, mi->version) : NULL;
    return lay ? lay->size : 0;
}

int iolens_module_layout_extras(int module, int *file_rec_id, size_t *trailing_bytes)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    const struct rec_layout *lay = mi ? find_layout(module, mi->version) : NULL;
    if (!lay)
        return -1;
    *file_rec_id = lay->file_rec;
    *trailing_bytes = lay->aux;
    return 0;
}

/* Largest stored counter arrays of any layout (POSIX v1: 68 ints; PNETCDF_VAR: 120). */
enum { MAX_STORED_INT = 128, MAX_STORED_FLT = 32 };

/* ---------------------------------------------------------------- decoding */

struct rec_ctx {
    iolens_log *log;
    const struct rec_layout *lay;
    const uint8_t *p;       /* payload */
    size_t len;
    int swap;
    iolens_records *r;
};

/* MDHIM records carry MDHIM_SERVERS histogram values; the first is part of the
 * fixed 96 bytes.  Returns the number of values stored for the record at pos,
 * or 0 if the tail is cut short. */
static size_t mdhim_tail_len(const struct rec_ctx *c, size_t pos)
{
    int64_t servers = iol_get_i64(c->p + pos + 16 + 8 * MDHIM_SERVERS, c->swap);
    size_t left = (c->len - pos - c->lay->size) / 8;
    if (servers <= 1)
        return 1;
    if ((uint64_t)(servers - 1) > left)
        return 0;
    return (size_t)servers;
}

/* Pass 1: number of records (upper bound for POSIX v1) and histogram values. */
static int count_records(struct rec_ctx *c, size_t *nrec, size_t *ntail)
{
    size_t pos = 0, n = 0, tail = 0;
    while (c->len - pos >= c->lay->size) {
        size_t t = 1;
        if (c->lay->module == IOL_MOD_MDHIM) {
            t = mdhim_tail_len(c, pos);
            if (t == 0)
                return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                                    "MDHIM record %zu: server histogram of %" PRId64
                                    " values is cut short (%zu bytes left in the region)",
                                    n, iol_get_i64(c->p + pos + 16 + 8 * MDHIM_SERVERS, c->swap),
                                    c->len - pos);
            tail += t;
        }
        pos += c->lay->size + 8 * (t - 1);
        n++;
    }
    *nrec = n;
    *ntail = tail;
    return IOLENS_OK;
}

/* DFS: pool and container uuid as stored (byte strings, never swapped).
 * DAOS: the same, then oid_hi and oid_lo converted to host u64. */
static void decode_aux(const struct rec_layout *lay, int swap, const uint8_t *src, uint8_t *dst)
{
    memcpy(dst, src, 32);
    if (lay->aux == 48) {
        iol_put_u64(dst + 32, iol_get_u64(src + 32, swap));
        iol_put_u64(dst + 40, iol_get_u64(src + 40, swap));
    }
}

/* Decode the fixed part of the record at q (lay->size bytes) into id, rank, the
 * file_rec_id (frid may be NULL), the current-layout counters ni/nf and aux (may
 * be NULL when the layout has none).  Returns the bytes read, or 0 when the
 * record is dropped (POSIX v1 with stdio counters).  The one decoder of a record,
 * shared by iolens_log_records and the streaming iterator. */
size_t iol_rec_decode(const struct rec_layout *lay, const uint8_t *q, int swap, uint64_t *id,
                      int64_t *rank, uint64_t *frid, int64_t *ni, double *nf, uint8_t *aux)
{
    int64_t oi[MAX_STORED_INT];
    double of[MAX_STORED_FLT];
    size_t off = 16 + lay->skip + (lay->file_rec ? 8 : 0);

    for (size_t k = 0; k < lay->n_int; k++, off += 8)
        oi[k] = iol_get_i64(q + off, swap);
    for (size_t k = 0; k < lay->n_flt; k++, off += 8)
        of[k] = iol_get_f64(q + off, swap);
    if (lay->module == IOL_MOD_POSIX && lay->version == 1 && oi[6] > 0)
        return 0;

    *id = iol_get_u64(q, swap);
    *rank = iol_get_i64(q + 8, swap);
    if (frid)
        *frid = lay->file_rec ? iol_get_u64(q + 16, swap) : 0;
    if (lay->upgrade) {
        lay->upgrade(oi, of, ni, nf);
    } else {
        memcpy(ni, oi, lay->n_int * sizeof *ni);
        memcpy(nf, of, lay->n_flt * sizeof *nf);
    }
    if (lay->aux)
        decode_aux(lay, swap, q + off, aux);
    off += lay->aux;
    return off;
}

/* Decode the record at pos into slot i (see iol_rec_decode). */
static size_t decode_one(struct rec_ctx *c, size_t pos, size_t i)
{
    iolens_records *r = c->r;
    return iol_rec_decode(c->lay, c->p + pos, c->swap, &r->id[i], &r->rank[i],
                          r->file_rec_id ? &r->file_rec_id[i] : NULL, r->ints + i * r->n_int,
                          r->flts + i * r->n_flt, r->aux ? r->aux + i * r->aux_size : NULL);
}

/* MDHIM: copy the histogram of the record at pos (already validated by pass 1). */
static size_t decode_mdhim_tail(struct rec_ctx *c, size_t pos, size_t i, size_t *tpos)
{
    size_t t = mdhim_tail_len(c, pos);
    const uint8_t *q = c->p + pos + 88;
    c->r->tail_start[i] = *tpos;
    for (size_t k = 0; k < t; k++)
        c->r->tail[(*tpos)++] = iol_get_i64(q + 8 * k, c->swap);
    c->r->tail_start[i + 1] = *tpos;
    return 96 + 8 * (t - 1);
}

static int alloc_records(iolens_records *r, size_t n, size_t ntail, int module)
{
    r->id = iol_alloc_array(n, sizeof *r->id);
    r->rank = iol_alloc_array(n, sizeof *r->rank);
    r->ints = iol_alloc_array2(n, r->n_int, sizeof *r->ints);
    r->flts = iol_alloc_array2(n, r->n_flt, sizeof *r->flts);
    int ok = r->id && r->rank && r->ints && r->flts;
    if (module == IOL_MOD_H5D || module == IOL_MOD_PNETCDF_VAR)
        ok = ok && (r->file_rec_id = iol_alloc_array(n, sizeof *r->file_rec_id));
    if (r->aux_size)
        ok = ok && (r->aux = iol_alloc_array2(n, r->aux_size, 1));
    if (module == IOL_MOD_MDHIM) {
        ok = ok && (r->tail_start = iol_alloc_array(n + 1, sizeof *r->tail_start));
        ok = ok && (r->tail = iol_alloc_array(ntail, sizeof *r->tail));
        if (ok)
            r->tail_start[0] = 0;
    }
    return ok ? IOLENS_OK : IOLENS_E_NOMEM;
}

/* Pass 2: decode every record; the counts were validated by pass 1. */
static void decode_all(struct rec_ctx *c, size_t nmax)
{
    size_t pos = 0, tpos = 0, n = 0;
    for (size_t k = 0; k < nmax; k++) {
        size_t used = decode_one(c, pos, n);
        if (c->lay->module == IOL_MOD_MDHIM)
            used = decode_mdhim_tail(c, pos, n, &tpos);
        if (used == 0) {
            c->r->dropped++;
            used = c->lay->size;
        } else {
            n++;
        }
        pos += c->lay->size > used ? c->lay->size : used;
    }
    c->r->count = n;
}

/* The module must exist and hold counter (or MDHIM) records. */
static int check_kind(iolens_log *log, int module)
{
    const iolens_module_info *info = iolens_module_info_get(module);
    if (!info)
        return iol_log_fail(log, IOLENS_E_UNKNOWN_MODULE, "module id %d is unknown", module);
    if (info->kind != IOLENS_KIND_COUNTERS && info->kind != IOLENS_KIND_MDHIM)
        return iol_log_fail(log, info->kind == IOLENS_KIND_OPAQUE ? IOLENS_E_UNKNOWN_MODULE
                                                                  : IOLENS_E_INVALID_ARG,
                            "module %s has no counter records", info->name);
    return IOLENS_OK;
}

/* The stored version's layout, checked against our counter tables; sets *lay. */
static int check_layout(iolens_log *log, int module, const struct rec_layout **lay)
{
    const iolens_module_info *info = iolens_module_info_get(module);
    uint32_t ver = iolens_log_header(log)->mod_ver[module];
    *lay = find_layout(module, ver);
    if (!*lay)
        return iol_log_fail(log, IOLENS_E_BAD_MODULE_VERSION,
                            "%s module: record version %u is not supported", info->name, ver);
    const struct rec_layout *cur = find_layout(module, info->version);
    if (!cur || cur->n_int != info->n_int || cur->n_flt != info->n_flt)
        return iol_log_fail(log, IOLENS_E_UNSUPPORTED,
                            "%s module: counter table does not match record version %u",
                            info->name, info->version);
    return IOLENS_OK;
}

/* Kind and stored layout of `module`, for both readers; the region is asked for
 * first, so absent modules give IOLENS_E_NOT_PRESENT. */
int iol_rec_layout_of(iolens_log *log, int module, const struct rec_layout **lay)
{
    if (module < 0 || module >= IOL_MAX_MODULES)
        return iol_log_fail(log, IOLENS_E_INVALID_ARG, "module id %d out of range", module);
    int rc = check_kind(log, module);
    if (rc == IOLENS_OK && !iolens_log_header(log)->mod[module].len)
        rc = iol_log_fail(log, IOLENS_E_NOT_PRESENT, "%s module has no region in this log",
                          iolens_module_info_get(module)->name);
    if (rc == IOLENS_OK)
        rc = check_layout(log, module, lay);
    return rc;
}

size_t iol_rec_size(const struct rec_layout *lay) { return lay->size; }
size_t iol_rec_aux(const struct rec_layout *lay) { return lay->aux; }
uint32_t iol_rec_version(const struct rec_layout *lay) { return lay->version; }

int iolens_log_records(iolens_log *log, int module, iolens_records **out)
{
    const struct rec_layout *lay;
    const void *payload;
    size_t len = 0, nmax = 0, ntail = 0;
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log || module < 0 || module >= IOL_MAX_MODULES)
        return log ? iol_log_fail(log, IOLENS_E_INVALID_ARG, "module id %d out of range", module)
                   : IOLENS_E_INVALID_ARG;
    int rc = check_kind(log, module);
    if (rc == IOLENS_OK)   /* the region first: absent modules give IOLENS_E_NOT_PRESENT */
        rc = iolens_log_region(log, module, &payload, &len);
    if (rc == IOLENS_OK)
        rc = check_layout(log, module, &lay);
    if (rc != IOLENS_OK)
        return rc;

    const iolens_module_info *info = iolens_module_info_get(module);
    iolens_records *r = calloc(1, sizeof *r);
    if (!r)
        return iol_log_fail(log, IOLENS_E_NOMEM, "out of memory");
    r->module = module;
    r->stored_version = lay->version;
    r->n_int = info->n_int;
    r->n_flt = info->n_flt;
    r->aux_size = lay->aux;
    struct rec_ctx c = {log, lay, payload, len, iol_decode_swap(iolens_log_header(log)), r};
    rc = count_records(&c, &nmax, &ntail);
    if (rc == IOLENS_OK && alloc_records(r, nmax, ntail, module) != IOLENS_OK)
        rc = iol_log_fail(log, IOLENS_E_NOMEM, "%s module: out of memory for %zu records",
                          info->name, nmax);
    if (rc != IOLENS_OK) {
        iolens_records_free(r);
        return rc;
    }
    decode_all(&c, nmax);
    *out = r;
    return IOLENS_OK;
}

void iolens_records_free(iolens_records *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->rank);
    free(r->file_rec_id);
    free(r->ints);
    free(r->flts);
    free(r->aux);
    free(r->tail_start);
    free(r->tail);
    free(r);
}
