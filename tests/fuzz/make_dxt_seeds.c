/* Seeds for fuzz_dxt_store: small valid store images (include/iolens/dxt_store.h)
 * with a few files, both directions, several chunks, written with the store's
 * own encoder (iolens_dxt_put / iolens_dxt_delta).  usage: make_dxt_seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/dxt_store.h"

static uint8_t img[IOLENS_DXT_STORE_HDR + 65536];
static uint64_t used;

static uint64_t take(size_t len)
{
    uint64_t off = used;
    used += (len + 7) & ~(size_t)7;
    return off;
}

/* A lane of n segments in chunks of `per` segments. */
static void lane(iolens_dxt_lane *l, int n, int per, int64_t step)
{
    iolens_dxt_chunk *c = NULL;
    for (int i = 0; i < n; i++) {
        if (i % per == 0) {
            uint64_t off = take(sizeof *c + (size_t)per * IOLENS_DXT_MAX_ENC);
            if (c) {
                c->nseg = l->n - l->sealed;
                c->end = l->pos;
                c->next = off;
            } else {
                l->first = off;
            }
            c = (iolens_dxt_chunk *)(img + off);
            c->end = off + sizeof *c;
            l->last = off;
            l->pos = off + sizeof *c;
            l->sealed = l->n;
            l->room += per;
        }
        uint64_t o = (uint64_t)(i * step), len = 100 + (uint64_t)(i % 3), t1 = 1000 + 500 * (uint64_t)i,
                 t2 = t1 + 200;
        uint8_t *p = img + l->pos;
        p = iolens_dxt_put(p, iolens_dxt_delta(o, l->prev_end_off));
        p = iolens_dxt_put(p, iolens_dxt_delta(len, l->prev_len));
        p = iolens_dxt_put(p, iolens_dxt_delta(t1, l->prev_end_ns));
        p = iolens_dxt_put(p, iolens_dxt_delta(t2, t1));
        l->prev_end_off = o + len;
        l->prev_len = len;
        l->prev_end_ns = t2;
        l->pos = (uint64_t)(p - img);
        l->n++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    for (int seed = 0; seed < 3; seed++) {
        memset(img, 0, sizeof img);
        used = IOLENS_DXT_STORE_HDR;
        iolens_dxt_store_hdr *h = (iolens_dxt_store_hdr *)img;
        memcpy(h->magic, IOLENS_DXT_STORE_MAGIC, 8);
        h->modid = 10;
        strcpy(h->host, "seed-host");
        uint64_t prev = 0;
        for (int f = 0; f < 2 + seed; f++) {
            uint64_t off = take(sizeof(iolens_dxt_file));
            iolens_dxt_file *fp = (iolens_dxt_file *)(img + off);
            fp->id = 1000 + (uint64_t)f;
            lane(&fp->lane[1], 5 + 7 * f, 4 + seed, 4096);
            lane(&fp->lane[0], 3 * f, 3, -7);
            if (prev)
                ((iolens_dxt_file *)(img + prev))->next = off;
            else
                h->first = off;
            h->last = prev = off;
        }
        h->used = used;
        h->len = used;
        char path[4096];
        snprintf(path, sizeof path, "%s/store-%d", argv[1], seed);
        FILE *out = fopen(path, "wb");
        if (!out || fwrite(img, 1, used, out) != used)
            return 1;
        fclose(out);
    }
    return 0;
}
