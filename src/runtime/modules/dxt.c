/* DXT tracing engine: stores, memory budget, triggers and the log payload (see
 * dxt.h for the contracts and runtime spec section 5 for the behaviour). */
#include "dxt.h"

#include <string.h>
#include <sys/utsname.h>

#define DXT_FILE_CHARGE 104          /* bytes upstream charges per traced file */
#define DXT_FIRST_SEGMENTS 64        /* first grant of a direction; then doubling */
#define DXT_DEFAULT_BUDGET (2u << 20)
#define DXT_REC_HEADER 104           /* id, rank, shared_record, hostname[64], counts */

/* A chunk holds the encoded segments of one grant: room for the longest
 * encoding of each, of which only the pages written become resident. */
struct iol_dxt_chunk {
    iol_dxt_chunk *next;
    int64_t nseg;                /* segments, once the chunk is sealed (not the last) */
    uint8_t *end;                /* end of its bytes, once sealed */
    uint8_t data[];
};

struct iol_dxt {
    int modid;
    uint8_t *arena;
    size_t arena_len, used;
    int64_t remaining;           /* budget left, in upstream's accounting */
    int cut;                     /* a segment was dropped: partial bit set */
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
    /* A file costs sizeof(iol_dxt_file) <= 2 x 104 bytes here, and a chunk of k
     * segments 24 + 40k <= 2 x 32k: twice the budget always holds what the budget
     * admits. */
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
    int64_t seg = (int64_t)sizeof(iol_dxt_seg);       /* what upstream charges */
    if (x->remaining < seg) {    /* spent: every later segment of this lane is dropped */
        if (!x->cut) {
            x->cut = 1;
            iol_partial_set(x->modid);
        }
        return 0;
    }
    if (want * seg > x->remaining)
        want = x->remaining / seg;
    x->remaining -= want * seg;
    iol_dxt_chunk *c = want > 0 ? take(x, sizeof *c + (size_t)want * IOL_DXT_MAX_ENC) : NULL;
    if (!c) {
        x->cut = 1;
        iol_partial_set(x->modid);
        return 0;
    }
    /* Every step leaves a state the output decodes correctly (a signal handler may
     * write the log between any two of them): the new chunk is linked empty, the
     * full one sealed before it stops being the last, and the new one only gets
     * its position and count once it is the last. */
    c->next = NULL;
    c->nseg = 0;
    c->end = c->data;
    if (l->last) {
        l->last->nseg = l->n - l->sealed;
        l->last->end = l->pos;
        __atomic_signal_fence(__ATOMIC_RELEASE);
        l->last->next = c;
    } else {
        l->first = c;
    }
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->last = c;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->pos = c->data;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->sealed = l->n;
    l->room += want;
    return 1;
}

/* Decode up to n segments from [p, end) into out, continuing the lane's delta
 * state *st (prev end offset, prev length, prev end ns); returns how many.  Stops
 * at the end of the bytes or at a truncated varint: the log may be written by a
 * signal handler that interrupted iol_dxt_add or iol_dxt_grow on this thread. */
static int get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t r = 0;
    for (int shift = 0; p < end && shift < 70; shift += 7) {
        uint8_t b = *p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            *pp = p;
            return 1;
        }
    }
    return 0;
}
static uint64_t undelta(uint64_t z, uint64_t base)
{
    return base + ((z >> 1) ^ (0 - (z & 1)));
}
static int64_t decode(const uint8_t *p, const uint8_t *end, int64_t n, uint64_t st[3],
                      iol_dxt_seg *out)
{
    int64_t k = 0;
    for (; k < n; k++) {
        uint64_t a, b, c, d;
        if (!get(&p, end, &a) || !get(&p, end, &b) || !get(&p, end, &c) || !get(&p, end, &d))
            break;
        uint64_t off = undelta(a, st[0]), len = undelta(b, st[1]);
        uint64_t start = undelta(c, st[2]), stop = undelta(d, start);
        if (out) {
            out[k].offset = (int64_t)off;
            out[k].length = (int64_t)len;
            out[k].start = (double)(int64_t)start * 1e-9;   /* as iol_ts_sec */
            out[k].end = (double)(int64_t)stop * 1e-9;
        }
        st[0] = off + len;
        st[1] = len;
        st[2] = stop;
    }
    return k;
}

/* The lane's segments into out (NULL: count only); returns how many. */
static int64_t lane_decode(const iol_dxt_lane *l, iol_dxt_seg *out)
{
    uint64_t st[3] = {0, 0, 0};
    int64_t total = 0;
    for (const iol_dxt_chunk *c = l->first; c; c = c->next) {
        int last = c == l->last;
        int64_t n = last ? l->n - l->sealed : c->nseg;
        const uint8_t *end = last ? l->pos : c->end;
        int64_t got = decode(c->data, end, n, st, out ? out + total : NULL);
        total += got;
        if (got < n)
            break;
    }
    return total;
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
        if (!f->dropped && f->lane[0].n + f->lane[1].n > 0)
            kept++;
    }
    m->count = kept;
}

/* Each kept file: the 104-byte header, its write segments, then its reads. */
size_t iol_dxt_output(iol_module *m, void **payload)
{
    iol_dxt *x = store_of(m->d->id);
    size_t cap = 0;
    for (iol_dxt_file *f = x->first; f; f = f->next) {
        int64_t n = f->lane[0].n + f->lane[1].n;
        if (!f->dropped && n > 0)
            cap += DXT_REC_HEADER + (size_t)n * sizeof(iol_dxt_seg);
    }
    *payload = NULL;
    if (cap == 0 || !(x->out = iol_map(cap)))
        return 0;
    x->out_len = cap;
    uint8_t *p = x->out;
    for (iol_dxt_file *f = x->first; f; f = f->next) {
        if (f->dropped || f->lane[0].n + f->lane[1].n == 0)
            continue;
        uint8_t *hdr = p;
        iol_dxt_seg *segs = (iol_dxt_seg *)(hdr + DXT_REC_HEADER);
        int64_t nw = lane_decode(&f->lane[1], segs);
        int64_t nr = lane_decode(&f->lane[0], segs + nw);
        if (nw + nr == 0)
            continue;
        int64_t rank = iol_rank, shared = 0;
        memcpy(hdr, &f->id, 8);
        memcpy(hdr + 8, &rank, 8);
        memcpy(hdr + 16, &shared, 8);
        memcpy(hdr + 24, x->host, 64);
        memcpy(hdr + 88, &nw, 8);
        memcpy(hdr + 96, &nr, 8);
        p = (uint8_t *)(segs + nw + nr);
    }
    *payload = x->out;
    return (size_t)(p - (uint8_t *)x->out);
}
