/* libFuzzer target: the record decoders on hostile payloads.  Mutating whole logs
 * mostly breaks the zlib streams, so this target wraps the input as one
 * uncompressed module region of an otherwise valid log and decodes it.
 * Input: byte 0 = module id (mod 18), byte 1 = stored version (0..4),
 * byte 2 bit 0 = big-endian log, bytes 3.. = the region payload. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "iolens/log.h"

static volatile uint64_t sink;

static void put64(uint8_t *p, uint64_t v, int be)
{
    if (be)
        v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}

static void put32(uint8_t *p, uint32_t v, int be)
{
    if (be)
        v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static void decode(iolens_log *log, int m)
{
    const iolens_module_info *mi = iolens_module_info_get(m);
    if (mi->kind == IOLENS_KIND_COUNTERS || mi->kind == IOLENS_KIND_MDHIM) {
        iolens_records *r;
        if (iolens_log_records(log, m, &r) == IOLENS_OK) {
            for (size_t i = 0; i < r->count * r->n_flt; i++)
                sink += r->flts[i] > 0;
            if (r->aux && r->count)
                sink += r->aux[r->count * r->aux_size - 1];
            if (r->tail_start && r->tail_start[r->count])
                sink += (uint64_t)r->tail[r->tail_start[r->count] - 1];
            iolens_records_free(r);
        }
    } else if (mi->kind == IOLENS_KIND_DXT) {
        iolens_dxt *d;
        if (iolens_log_dxt(log, m, &d) == IOLENS_OK) {
            for (size_t i = 0; i < d->count; i++)
                sink += d->hostname[i][64] + d->seg_start[i + 1] - d->seg_start[i];
            if (d->nseg)
                sink += (uint64_t)d->length[d->nseg - 1] + (d->thread_id ? d->thread_id[0] : 0);
            iolens_dxt_free(d);
        }
    } else if (mi->kind == IOLENS_KIND_HEATMAP) {
        iolens_heatmap *h;
        if (iolens_log_heatmap(log, &h) == IOLENS_OK) {
            size_t nb = h->bin_start[h->count];
            if (nb)
                sink += (uint64_t)h->read_bins[nb - 1];
            iolens_heatmap_free(h);
        }
    } else if (mi->kind == IOLENS_KIND_LUSTRE) {
        iolens_lustre *l;
        if (iolens_log_lustre(log, &l) == IOLENS_OK) {
            size_t nc = l->comp_start[l->count], no = l->ost_start[l->count];
            if (nc)
                sink += (uint64_t)l->comp[nc * LUSTRE_COMP_NUM_INDICES - 1] + l->pool_name[nc - 1][16];
            if (no)
                sink += (uint64_t)l->ost[no - 1];
            iolens_lustre_free(l);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    int m = data[0] % 18, be = data[2] & 1;
    uint32_t ver = data[1] % 5;
    size_t plen = size - 3, job = 1080 + 8, total = 1328 + job + plen;
    uint8_t *log_bytes = calloc(1, total);
    if (!log_bytes)
        return 0;
    memcpy(log_bytes, "3.41", 4);
    put64(log_bytes + 8, 6567223, be);
    log_bytes[16] = IOLENS_COMP_NONE;
    put64(log_bytes + 32, 1328 + job, be);              /* name region: empty */
    put64(log_bytes + 48 + 16 * m, 1328 + job, be);
    put64(log_bytes + 56 + 16 * m, plen, be);
    put32(log_bytes + 1072 + 4 * m, ver, be);
    put64(log_bytes + 1328 + 40, 1, be);                /* nprocs */
    memcpy(log_bytes + 1328 + 1080, "a\nb\tc", 5);       /* exe + one mount */
    memcpy(log_bytes + 1328 + job, data + 3, plen);
    iolens_log *log;
    if (iolens_log_open_mem(log_bytes, total, &log, NULL, 0) == IOLENS_OK) {
        const void *p;
        size_t n;
        if (iolens_log_region(log, m, &p, &n) == IOLENS_OK)
            decode(log, m);
        iolens_log_close(log);
    }
    free(log_bytes);
    return 0;
}
