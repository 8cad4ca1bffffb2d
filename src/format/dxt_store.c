/* Reading a runtime DXT store (include/iolens/dxt_store.h) into a DXT region.
 * Used by the runtime at shutdown and by `iolens recover` on the file a killed
 * process left, which may be torn or damaged: every offset is checked against
 * the block, links must point forwards (the runtime allocates upwards), and the
 * whole decode is bounded by what the block can hold (each chunk belongs to one
 * lane and takes >= 24 bytes; each segment takes >= 4), so a hostile block costs
 * time and output linear in its size. */
#include <string.h>

#include "iolens/counters.h"
#include "iolens/dxt_region.h"
#include "iolens/dxt_store.h"

#define REC_HEADER 104

/* A segment as the log stores it: 32 bytes, or 40 with the thread id. */
typedef struct seg40 {
    int64_t offset, length;
    double start, end;
    uint64_t thread;
} seg40;

static const iolens_dxt_store_hdr *header(const uint8_t *base, size_t len)
{
    if (!base || len < IOLENS_DXT_STORE_HDR)
        return NULL;
    const iolens_dxt_store_hdr *h = (const iolens_dxt_store_hdr *)base;
    return memcmp(h->magic, IOLENS_DXT_STORE_MAGIC, 8) == 0 ? h : NULL;
}

static int has_threads(const iolens_dxt_store_hdr *h)
{
    return (h->flags & IOLENS_DXT_STORE_THREADS) != 0;
}

static int has_regions(const iolens_dxt_store_hdr *h)
{
    return (h->flags & IOLENS_DXT_STORE_REGIONS) != 0;
}

static size_t seg_bytes(const iolens_dxt_store_hdr *h)
{
    return has_threads(h) ? 40 : 32;
}

int iolens_dxt_store_version(const uint8_t *base, size_t len)
{
    const iolens_dxt_store_hdr *h = header(base, len);
    if (!h)
        return 0;
    /* DXT_MPIIO v1 had no valid offsets; v2 is the 3.5.0 layout, v3 adds threads. */
    return (h->modid == IOL_MOD_DXT_MPIIO ? 2 : 1) + has_threads(h);
}

/* The id of thread index t; 0 (unknown) past the table or what it holds. */
static uint64_t thread_of(const iolens_dxt_store_hdr *h, uint64_t t)
{
    uint32_t n = h->nthreads < IOLENS_DXT_MAX_THREADS ? h->nthreads : IOLENS_DXT_MAX_THREADS;
    return t < n ? h->threads[t] : 0;
}

/* The object of `size` bytes at off, or NULL if it is not inside the block. */
static const void *at(const uint8_t *base, size_t len, uint64_t off, size_t size)
{
    if (off < IOLENS_DXT_STORE_HDR || off % 8 || off > len || len - off < size)
        return NULL;
    return base + off;
}

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

/* Segments a lane claims, made safe to use as a count: each takes >= 4 bytes. */
static int64_t claimed(int64_t n, size_t len)
{
    return n < 0 ? 0 : (uint64_t)n > len / 4 ? (int64_t)(len / 4) : n;
}

/* What the whole decode may still spend: chunk visits and segments. */
typedef struct budget {
    size_t chunks;
    int64_t segs;
} budget;

static budget budget_of(size_t len)
{
    return (budget){len / sizeof(iolens_dxt_chunk), (int64_t)(len / 4)};
}

/* One DXT_REGION record's table being built (iolens/dxt_region.h): the store's
 * region indices met so far, renumbered in the order met. */
typedef struct region_map {
    uint8_t local[IOLENS_DXT_MAX_REGIONS + 1];      /* store index -> record index */
    uint64_t table[IOLENS_DXT_REGION_MAX_TABLE];
    uint32_t ntab;
    uint8_t *idx;                                   /* the record's indices, by segment */
} region_map;

/* The record's index of store index r. */
static uint8_t region_index(const iolens_dxt_store_hdr *h, region_map *m, uint64_t r)
{
    uint32_t have = h->nregions < IOLENS_DXT_MAX_REGIONS ? h->nregions : IOLENS_DXT_MAX_REGIONS;
    if (r == 0)
        return 0;
    if (r > have)
        return IOLENS_DXT_REGION_UNKNOWN;
    if (!m->local[r]) {
        m->table[m->ntab] = h->regions[r - 1];
        m->local[r] = (uint8_t)++m->ntab;
    }
    return m->local[r];
}

/* Decode up to `limit` segments of a lane into out (NULL: not kept), each
 * seg_bytes(h) long, and their regions into regs (NULL: not kept). */
static int64_t lane_decode(const uint8_t *base, size_t len, const iolens_dxt_lane *l,
                           uint8_t *out, region_map *regs, int64_t limit, budget *b)
{
    const iolens_dxt_store_hdr *h = (const iolens_dxt_store_hdr *)base;
    const int threads = has_threads(h), regions = has_regions(h);
    const size_t size = seg_bytes(h);
    uint64_t st[3] = {0, 0, 0};     /* previous end offset, length, end ns */
    int64_t total = 0;
    if (limit > b->segs)
        limit = b->segs;
    uint64_t off = l->first;
    while (off && b->chunks) {
        const iolens_dxt_chunk *c = at(base, len, off, sizeof *c);
        if (!c)
            break;
        b->chunks--;
        int last = off == l->last;
        int64_t n = last ? (l->sealed >= 0 && l->n >= l->sealed ? l->n - l->sealed : 0) : c->nseg;
        n = claimed(n, len);
        uint64_t data = off + sizeof *c, end = last ? l->pos : c->end;
        if (end > len)
            end = len;
        const uint8_t *p = base + data, *stop = end > data ? base + end : p;
        int64_t k = 0;
        for (; k < n && total < limit; k++, total++) {
            uint64_t a, b, s, d, t = 0, r = 0;
            if (!get(&p, stop, &a) || !get(&p, stop, &b) || !get(&p, stop, &s) ||
                !get(&p, stop, &d) || (threads && !get(&p, stop, &t)) ||
                (regions && !get(&p, stop, &r)))
                break;
            if (regs)
                regs->idx[total] = region_index(h, regs, r);
            uint64_t o = undelta(a, st[0]), ln = undelta(b, st[1]);
            uint64_t t1 = undelta(s, st[2]), t2 = undelta(d, t1);
            if (out) {
                /* seconds as the runtime computes them: (double)ns * 1e-9 */
                seg40 g = {(int64_t)o, (int64_t)ln, (double)(int64_t)t1 * 1e-9,
                           (double)(int64_t)t2 * 1e-9, threads ? thread_of(h, t) : 0};
                memcpy(out + (size_t)total * size, &g, size);
            }
            st[0] = o + ln;
            st[1] = ln;
            st[2] = t2;
        }
        if (k < n || total >= limit || last || c->next <= off)
            break;
        off = c->next;
    }
    b->segs -= total;
    return total;
}

/* Walk the files in list order; links must point forwards, so the walk ends. */
#define FOR_EACH_FILE(h, base, len, fvar)                                                 \
    for (uint64_t off_ = (h)->first;                                                     \
         off_ && ((fvar) = at(base, len, off_, sizeof(iolens_dxt_file))) != NULL;        \
         off_ = (fvar)->next > off_ ? (fvar)->next : 0)

size_t iolens_dxt_store_bound(const uint8_t *base, size_t len)
{
    const iolens_dxt_store_hdr *h = header(base, len);
    if (!h)
        return 0;
    const iolens_dxt_file *f;
    size_t records = 0;
    int64_t segs = 0, most = (int64_t)(len / 4);
    FOR_EACH_FILE(h, base, len, f) {
        if (f->dropped)
            continue;
        int64_t n = claimed(f->lane[0].n, len) + claimed(f->lane[1].n, len);
        if (n > 0) {
            records++;
            segs = segs + n > most ? most : segs + n;
        }
    }
    return records * REC_HEADER + (size_t)segs * seg_bytes(h);
}

size_t iolens_dxt_store_region(const uint8_t *base, size_t len, int64_t rank, uint8_t *out,
                               size_t cap)
{
    const iolens_dxt_store_hdr *h = header(base, len);
    if (!h || !out)
        return 0;
    if (rank < 0)
        rank = h->rank;
    const iolens_dxt_file *f;
    const size_t size = seg_bytes(h);
    size_t used = 0;
    budget b = budget_of(len);
    FOR_EACH_FILE(h, base, len, f) {
        if (f->dropped || cap - used < REC_HEADER + size)
            continue;
        uint8_t *rec = out + used;
        uint8_t *segs = rec + REC_HEADER;
        int64_t room = (int64_t)((cap - used - REC_HEADER) / size);
        int64_t nw = lane_decode(base, len, &f->lane[1], segs, NULL, room, &b);
        int64_t nr = lane_decode(base, len, &f->lane[0], segs + (size_t)nw * size, NULL,
                                 room - nw, &b);
        if (nw + nr == 0)
            continue;
        int64_t shared = 0;
        char host[64];
        memcpy(host, h->host, sizeof host);
        memcpy(rec, &f->id, 8);
        memcpy(rec + 8, &rank, 8);
        memcpy(rec + 16, &shared, 8);
        memcpy(rec + 24, host, 64);
        memcpy(rec + 88, &nw, 8);
        memcpy(rec + 96, &nr, 8);
        used += REC_HEADER + (size_t)(nw + nr) * size;
    }
    return used;
}

/* ------------------------------------------------------------ DXT_REGION */
/* A record before its table is known: the indices are written after room for
 * the largest table, then moved down. */
#define REGION_REC_MAX(nseg) iolens_dxt_region_size(IOLENS_DXT_REGION_MAX_TABLE, (nseg))

/* A store whose table is empty had no segment inside a recorded region: it gives
 * no records (every segment reads as <NA> either way), so a process that never
 * opened a region writes the log it wrote before regions existed. */
static int regions_met(const iolens_dxt_store_hdr *h)
{
    return has_regions(h) && h->nregions > 0;
}

size_t iolens_dxt_store_regions_bound(const uint8_t *base, size_t len)
{
    const iolens_dxt_store_hdr *h = header(base, len);
    if (!h || !regions_met(h))
        return 0;
    const iolens_dxt_file *f;
    size_t bound = 0;
    int64_t segs = 0, most = (int64_t)(len / 4);
    FOR_EACH_FILE(h, base, len, f) {
        int64_t n = f->dropped ? 0 : claimed(f->lane[0].n, len) + claimed(f->lane[1].n, len);
        if (n > 0) {
            n = segs + n > most ? most - segs : n;
            segs += n;
            bound += (size_t)REGION_REC_MAX((uint64_t)n);
        }
    }
    return bound;
}

size_t iolens_dxt_store_regions(const uint8_t *base, size_t len, int64_t rank, uint8_t *out,
                                size_t cap)
{
    const iolens_dxt_store_hdr *h = header(base, len);
    if (!h || !out || !regions_met(h))
        return 0;
    if (rank < 0)
        rank = h->rank;
    const iolens_dxt_file *f;
    size_t used = 0;
    budget b = budget_of(len);
    FOR_EACH_FILE(h, base, len, f) {
        if (f->dropped || cap - used < REGION_REC_MAX(1))
            continue;
        uint8_t *rec = out + used;
        region_map m = {.ntab = 0};
        m.idx = rec + (size_t)REGION_REC_MAX(0);
        int64_t room = (int64_t)(cap - used - REGION_REC_MAX(0));
        int64_t nw = lane_decode(base, len, &f->lane[1], NULL, &m, room, &b);
        m.idx += nw;
        int64_t nr = lane_decode(base, len, &f->lane[0], NULL, &m, room - nw, &b);
        int64_t n = nw + nr;
        if (n == 0)
            continue;
        uint8_t *idx = rec + IOLENS_DXT_REGION_HDR + 8 * (size_t)m.ntab;
        memmove(idx, rec + (size_t)REGION_REC_MAX(0), (size_t)n);
        size_t size = (size_t)iolens_dxt_region_size(m.ntab, (uint64_t)n);
        memset(idx + n, 0, size - (size_t)(idx + n - rec));
        memcpy(rec + IOLENS_DXT_REGION_HDR, m.table, 8 * (size_t)m.ntab);
        iolens_dxt_region_hdr rh = {f->id, rank, h->modid, (uint32_t)n, m.ntab, 0};
        memcpy(rec, &rh, sizeof rh);
        used += size;
    }
    return used;
}
