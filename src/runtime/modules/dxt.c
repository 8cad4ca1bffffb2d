/* DXT tracing engine: stores, memory budget, triggers and the log payload (see
 * dxt.h for the contracts and runtime spec section 5 for the behaviour). */
#include "dxt.h"

#include <string.h>
#include <sys/utsname.h>

#define DXT_FILE_CHARGE 104          /* bytes upstream charges per traced file */
#define DXT_FIRST_SEGMENTS 64        /* first grant of a direction; then doubling */
#define DXT_DEFAULT_BUDGET (2u << 20)
#define DXT_REC_HEADER 104           /* id, rank, shared_record, hostname[64], counts */

struct iol_dxt_chunk {
    iol_dxt_chunk *next;
    int64_t n;                   /* segments in this chunk */
    iol_dxt_seg seg[];
};

struct iol_dxt {
    int modid;
    uint8_t *arena;
    size_t arena_len, used;
    int64_t remaining;           /* budget left, in upstream's accounting */
    iol_dxt_file *first, *last;
    char host[64];
    void *out;                   /* the payload built at shutdown */
    size_t out_len;
};

static iol_dxt stores[2];        /* DXT_POSIX, DXT_MPIIO */

static iol_dxt *store_of(int modid)
{
    return &stores[modid == IOL_MOD_DXT_MPIIO];
}

/* Bump allocation from the store's mapping (8-byte aligned); NULL when used up,
 * which the sizing in activate rules out while the budget holds. */
static void *take(iol_dxt *x, size_t len)
{
    len = (len + 7) & ~(size_t)7;
    if (!x->arena || x->arena_len - x->used < len)
        return NULL;
    void *p = x->arena + x->used;
    x->used += len;
    return p;
}

/* ------------------------------------------------------------ lifecycle */
/* The budget: MAX_RECORDS n <module> gives n KiB (as upstream), else 2 MiB. */
static int64_t budget_of(int modid)
{
    int64_t n = iol_cfg.max_records[modid];
    return n > 0 ? n * 1024 : (int64_t)DXT_DEFAULT_BUDGET;
}

void iol_dxt_activate(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    memset(x, 0, sizeof *x);
    x->modid = m->d->id;
    x->remaining = budget_of(x->modid);
    /* Files cost 88 bytes here for 104 charged, and each chunk's 16-byte header
     * comes with at least one 32-byte segment charged: twice the budget always
     * holds what the budget admits. */
    x->arena_len = 2 * (size_t)x->remaining + 4096;
    x->arena = iol_map(x->arena_len);
    if (!x->arena) {
        iol_fail(IOL_FAIL_MEMORY);
        m->state = -1;
        return;
    }
    /* The node name as upstream stores it: up to 64 bytes, NUL-padded. */
    struct utsname u;
    if (uname(&u) == 0)
        memcpy(x->host, u.nodename, strnlen(u.nodename, sizeof x->host));
}

iol_dxt *iol_dxt_attach(int modid)
{
    iol_module *m = iol_mod(modid);
    if (!iol_mod_enter(m))
        return NULL;
    iol_dxt *x = store_of(modid);
    iol_mod_leave(m);
    return x->arena ? x : NULL;
}

void iol_dxt_reset(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    iol_unmap(x->arena, x->arena_len);
    iol_unmap(x->out, x->out_len);
    memset(x, 0, sizeof *x);
}

/* ------------------------------------------------------------ data path (slow parts) */
iol_dxt_file *iol_dxt_file_new(iol_dxt *x, uint64_t id)
{
    const char *name = iol_name_of(id);
    if (name && iol_name_excluded(x->modid, name))
        return IOL_DXT_NONE;
    iol_dxt_file *f = x->remaining >= DXT_FILE_CHARGE ? take(x, sizeof *f) : NULL;
    if (!f) {
        iol_partial_set(x->modid);
        return IOL_DXT_NONE;
    }
    x->remaining -= DXT_FILE_CHARGE;
    memset(f, 0, sizeof *f);
    f->id = id;
    if (x->last)
        x->last->next = f;
    else
        x->first = f;
    x->last = f;
    return f;
}

int iol_dxt_grow(iol_dxt *x, iol_dxt_lane *l)
{
    int64_t want = l->room ? l->room : DXT_FIRST_SEGMENTS;
    int64_t seg = (int64_t)sizeof(iol_dxt_seg);
    if (want * seg > x->remaining)
        want = x->remaining / seg;
    x->remaining -= want * seg;
    iol_dxt_chunk *c = want > 0 ? take(x, sizeof *c + (size_t)want * sizeof(iol_dxt_seg)) : NULL;
    if (!c) {
        iol_partial_set(x->modid);
        return 0;
    }
    c->next = NULL;
    c->n = want;
    if (l->last)
        l->last->next = c;
    else
        l->first = c;
    l->last = c;
    l->room += want;
    l->pos = c->seg;
    l->end = c->seg + want;
    return 1;
}

/* Segments filled in chunk c of lane l: all of them but in the last chunk.  The
 * log may be written from a signal handler that interrupted iol_dxt_grow on this
 * thread, so the fill is clamped to the chunk: the output never reads outside a
 * chunk whatever the lane's state. */
static int64_t chunk_fill(const iol_dxt_lane *l, const iol_dxt_chunk *c)
{
    if (c != l->last)
        return c->n;
    int64_t n = l->pos - c->seg;
    return n < 0 ? 0 : n > c->n ? c->n : n;
}

static int64_t lane_count(const iol_dxt_lane *l)
{
    int64_t n = 0;
    for (const iol_dxt_chunk *c = l->first; c; c = c->next)
        n += chunk_fill(l, c);
    return n;
}

/* ------------------------------------------------------------ shutdown */
/* The triggers of spec 5 on this process's own, unreduced POSIX counters.  A file
 * without a POSIX record has no operations: the ratio is NaN and fails. */
static int passes_triggers(uint64_t id)
{
    double small = iol_cfg.dxt_small_trigger, unaligned = iol_cfg.dxt_unaligned_trigger;
    if (small < 0 && unaligned < 0)
        return 1;
    iol_module *pm = iol_mod(IOL_MOD_POSIX);
    const uint8_t *rec = (pm->d && pm->state == 1) ? iol_rec_find(pm, id, NULL) : NULL;
    if (!rec)
        return 0;
    const int64_t *c = (const int64_t *)(rec + 16);
    double ops = (double)(c[POSIX_READS] + c[POSIX_WRITES]);
    if (small >= 0) {
        double n = (double)(c[POSIX_SIZE_READ_0_100] + c[POSIX_SIZE_READ_100_1K] +
                            c[POSIX_SIZE_READ_1K_10K] + c[POSIX_SIZE_WRITE_0_100] +
                            c[POSIX_SIZE_WRITE_100_1K] + c[POSIX_SIZE_WRITE_1K_10K]);
        if (!(n / ops >= small))
            return 0;
    }
    if (unaligned >= 0 && !((double)c[POSIX_FILE_NOT_ALIGNED] / ops >= unaligned))
        return 0;
    return 1;
}

void iol_dxt_finish(iol_module *m)
{
    iol_dxt *x = store_of(m->d->id);
    size_t kept = 0;
    for (iol_dxt_file *f = x->first; f; f = f->next) {
        f->dropped = !passes_triggers(f->id);
        if (!f->dropped && lane_count(&f->lane[0]) + lane_count(&f->lane[1]) > 0)
            kept++;
    }
    m->count = kept;
}

static uint8_t *put_lane(uint8_t *p, const iol_dxt_lane *l)
{
    for (const iol_dxt_chunk *c = l->first; c; c = c->next) {
        int64_t n = chunk_fill(l, c);
        memcpy(p, c->seg, (size_t)n * sizeof(iol_dxt_seg));
        p += (size_t)n * sizeof(iol_dxt_seg);
    }
    return p;
}

/* Each kept file: the 104-byte header, its write segments, then its reads. */
size_t iol_dxt_output(iol_module *m, void **payload)
{
    iol_dxt *x = store_of(m->d->id);
    size_t len = 0;
    for (iol_dxt_file *f = x->first; f; f = f->next) {
        int64_t n = lane_count(&f->lane[0]) + lane_count(&f->lane[1]);
        if (!f->dropped && n > 0)
            len += DXT_REC_HEADER + (size_t)n * sizeof(iol_dxt_seg);
    }
    *payload = NULL;
    if (len == 0 || !(x->out = iol_map(len)))
        return 0;
    x->out_len = len;
    uint8_t *p = x->out;
    for (iol_dxt_file *f = x->first; f; f = f->next) {
        int64_t nr = lane_count(&f->lane[0]), nw = lane_count(&f->lane[1]);
        if (f->dropped || nr + nw == 0)
            continue;
        int64_t rank = iol_rank, shared = 0;
        memcpy(p, &f->id, 8);
        memcpy(p + 8, &rank, 8);
        memcpy(p + 16, &shared, 8);
        memcpy(p + 24, x->host, 64);
        memcpy(p + 88, &nw, 8);
        memcpy(p + 96, &nr, 8);
        p = put_lane(put_lane(p + DXT_REC_HEADER, &f->lane[1]), &f->lane[0]);
    }
    *payload = x->out;
    return len;
}
