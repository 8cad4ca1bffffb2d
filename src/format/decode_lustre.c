/* Decoding of LUSTRE regions (log-format spec 7.9, 8.4).
 *
 * v2 record: base record, num_comps, num_stripes, num_comps components of
 * 72 bytes (7 i64 counters + char[16] pool name), num_stripes OST ids.
 * v1 record: base record, OSTS, MDTS, STRIPE_OFFSET, STRIPE_SIZE, STRIPE_WIDTH,
 * then STRIPE_WIDTH OST ids; it becomes one component covering [0, EOF).
 *
 * Truncation rule (as upstream): components from the first one whose
 * STRIPE_SIZE is -1 on are dropped; num_stripes becomes the number of OST ids the
 * kept components own (the sum of their STRIPE_COUNTs, negative counts owning
 * none) and they own the first ids of the stored list.  Bytes are consumed with
 * the stored counts.  Unlike upstream we never read OST ids that are not stored:
 * kept components claiming more ids than stored is IOLENS_E_BAD_RECORD. */
#include <stdlib.h>
#include "internal.h"
#include "decode_util.h"

enum { COMP_BYTES = 72, POOL_LEN = 16, V1_FIXED = 56, V2_FIXED = 32 };

struct lustre_ctx {
    iolens_log *log;
    const uint8_t *p;
    size_t len;
    int swap;
    uint32_t version;
};

/* Stored shape of one record. */
struct lustre_shape {
    size_t size;          /* bytes consumed */
    size_t ncomp;         /* stored components (v1: 1) */
    size_t nost;          /* stored OST ids */
};

/* Shape of the record at pos; *end set when fewer bytes than the fixed part
 * remain (end of module). */
static int record_shape(const struct lustre_ctx *c, size_t pos, size_t index,
                        struct lustre_shape *sh, int *end)
{
    size_t left = c->len - pos;
    const uint8_t *q = c->p + pos;
    size_t fixed = c->version == 1 ? V1_FIXED : V2_FIXED;
    int64_t nc = 1, ns;
    *end = left < fixed;
    if (*end)
        return IOLENS_OK;
    left -= fixed;
    if (c->version == 1) {
        ns = iol_get_i64(q + 48, c->swap);
    } else {
        nc = iol_get_i64(q + 16, c->swap);
        ns = iol_get_i64(q + 24, c->swap);
        if (nc < 1)             /* nothing more is stored (upstream reads nothing) */
            nc = ns = 0;
    }
    size_t comp_bytes = c->version == 1 ? 0 : COMP_BYTES;   /* v1: stored in the fixed part */
    if (ns < 0 || (comp_bytes && (uint64_t)nc > left / comp_bytes) ||
        (uint64_t)ns > (left - (size_t)nc * comp_bytes) / 8)
        return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                            "LUSTRE record %zu: %" PRId64 " components and %" PRId64
                            " OST ids do not fit in the %zu bytes left",
                            index, nc, ns, left);
    sh->ncomp = (size_t)nc;
    sh->nost = (size_t)ns;
    sh->size = fixed + sh->ncomp * comp_bytes + sh->nost * 8;
    return IOLENS_OK;
}

/* Pass 1: bound the numbers of records, components and OST ids. */
static int count_lustre(const struct lustre_ctx *c, size_t *n, size_t *ncomp, size_t *nost)
{
    size_t pos = 0;
    *n = *ncomp = *nost = 0;
    for (;;) {
        struct lustre_shape sh;
        int end, rc = record_shape(c, pos, *n, &sh, &end);
        if (rc != IOLENS_OK || end)
            return rc;
        *ncomp += sh.ncomp;
        *nost += sh.nost;
        pos += sh.size;
        (*n)++;
    }
}

/* Component k of a v2 record into dst (counters) and pool. */
static void get_component(const struct lustre_ctx *c, const uint8_t *q, int64_t *dst, char *pool)
{
    for (int k = 0; k < LUSTRE_COMP_NUM_INDICES; k++)
        dst[k] = iol_get_i64(q + 8 * k, c->swap);
    memcpy(pool, q + 8 * LUSTRE_COMP_NUM_INDICES, POOL_LEN);
    pool[POOL_LEN] = '\0';
}

/* The single component of a v1 record. */
static void v1_component(const struct lustre_ctx *c, const uint8_t *q, int64_t *dst, char *pool)
{
    for (int k = 0; k < LUSTRE_COMP_NUM_INDICES; k++)
        dst[k] = -1;
    dst[LUSTRE_COMP_STRIPE_SIZE] = iol_get_i64(q + 40, c->swap);
    dst[LUSTRE_COMP_STRIPE_COUNT] = iol_get_i64(q + 48, c->swap);
    dst[LUSTRE_COMP_EXT_START] = 0;
    memset(pool, 0, POOL_LEN + 1);
}

struct lustre_fill {
    size_t comp, ost;     /* next free component / OST slot */
};

/* Decode record i at pos, truncate it, append to l. */
static int decode_record(const struct lustre_ctx *c, size_t pos, size_t i,
                         const struct lustre_shape *sh, iolens_lustre *l, struct lustre_fill *f)
{
    const uint8_t *q = c->p + pos;
    size_t kept = 0, owned = 0;
    l->id[i] = iol_get_u64(q, c->swap);
    l->rank[i] = iol_get_i64(q + 8, c->swap);
    l->comp_start[i] = f->comp;
    l->ost_start[i] = f->ost;
    for (size_t k = 0; k < sh->ncomp; k++) {
        int64_t *dst = l->comp + (f->comp + k) * LUSTRE_COMP_NUM_INDICES;
        if (c->version == 1)
            v1_component(c, q, dst, l->pool_name[f->comp + k]);
        else
            get_component(c, q + V2_FIXED + k * COMP_BYTES, dst, l->pool_name[f->comp + k]);
        if (dst[LUSTRE_COMP_STRIPE_SIZE] == -1)
            break;
        if (dst[LUSTRE_COMP_STRIPE_COUNT] > 0)
            owned += (size_t)dst[LUSTRE_COMP_STRIPE_COUNT];
        kept++;
        if (owned > sh->nost)
            return iol_log_fail(c->log, IOLENS_E_BAD_RECORD,
                                "LUSTRE record %zu: its components own %zu OST ids but only "
                                "%zu are stored", i, owned, sh->nost);
    }
    const uint8_t *ids = q + (c->version == 1 ? V1_FIXED : V2_FIXED + sh->ncomp * COMP_BYTES);
    for (size_t k = 0; k < owned; k++)
        l->ost[f->ost + k] = iol_get_i64(ids + 8 * k, c->swap);
    l->num_comps[i] = (int64_t)kept;
    l->num_stripes[i] = (int64_t)owned;
    f->comp += kept;
    f->ost += owned;
    l->comp_start[i + 1] = f->comp;
    l->ost_start[i + 1] = f->ost;
    return IOLENS_OK;
}

static int alloc_lustre(iolens_lustre *l, size_t n, size_t nc, size_t no)
{
    l->id = iol_alloc_array(n, sizeof *l->id);
    l->rank = iol_alloc_array(n, sizeof *l->rank);
    l->num_comps = iol_alloc_array(n, sizeof *l->num_comps);
    l->num_stripes = iol_alloc_array(n, sizeof *l->num_stripes);
    l->comp_start = iol_alloc_array(n + 1, sizeof *l->comp_start);
    l->ost_start = iol_alloc_array(n + 1, sizeof *l->ost_start);
    l->comp = iol_alloc_array2(nc, LUSTRE_COMP_NUM_INDICES, sizeof *l->comp);
    l->pool_name = iol_alloc_array(nc, sizeof *l->pool_name);
    l->ost = iol_alloc_array(no, sizeof *l->ost);
    if (l->comp_start)
        l->comp_start[0] = 0;
    if (l->ost_start)
        l->ost_start[0] = 0;
    return l->id && l->rank && l->num_comps && l->num_stripes && l->comp_start &&
           l->ost_start && l->comp && l->pool_name && l->ost ? IOLENS_OK : IOLENS_E_NOMEM;
}

static int decode_lustre_all(const struct lustre_ctx *c, iolens_lustre *l, size_t n)
{
    struct lustre_fill f = {0, 0};
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        struct lustre_shape sh;
        int end, rc = record_shape(c, pos, i, &sh, &end);
        if (rc == IOLENS_OK)
            rc = decode_record(c, pos, i, &sh, l, &f);
        if (rc != IOLENS_OK)
            return rc;
        pos += sh.size;
    }
    l->count = n;
    return IOLENS_OK;
}

int iolens_log_lustre(iolens_log *log, iolens_lustre **out)
{
    const void *payload;
    size_t len, n, nc, no;
    if (!out)
        return IOLENS_E_INVALID_ARG;
    *out = NULL;
    if (!log)
        return IOLENS_E_INVALID_ARG;
    /* the region first: absent modules give IOLENS_E_NOT_PRESENT */
    int rc = iolens_log_region(log, IOL_MOD_LUSTRE, &payload, &len);
    if (rc != IOLENS_OK)
        return rc;
    uint32_t ver = iolens_log_header(log)->mod_ver[IOL_MOD_LUSTRE];
    if (ver != 1 && ver != 2)
        return iol_log_fail(log, IOLENS_E_BAD_MODULE_VERSION,
                            "LUSTRE module: record version %u is not supported", ver);
    struct lustre_ctx c = {log, payload, len, iol_decode_swap(iolens_log_header(log)), ver};
    rc = count_lustre(&c, &n, &nc, &no);
    if (rc != IOLENS_OK)
        return rc;
    iolens_lustre *l = calloc(1, sizeof *l);
    if (!l || alloc_lustre(l, n, nc, no) != IOLENS_OK)
        rc = iol_log_fail(log, IOLENS_E_NOMEM, "LUSTRE module: out of memory for %zu records", n);
    else
        rc = decode_lustre_all(&c, l, n);
    if (rc != IOLENS_OK) {
        iolens_lustre_free(l);
        return rc;
    }
    *out = l;
    return IOLENS_OK;
}

void iolens_lustre_free(iolens_lustre *l)
{
    if (!l)
        return;
    free(l->id);
    free(l->rank);
    free(l->num_comps);
    free(l->num_stripes);
    free(l->comp_start);
    free(l->comp);
    free(l->pool_name);
    free(l->ost_start);
    free(l->ost);
    free(l);
}
