/* A layout into a LUSTRE record (log-format spec 7.9; lustre_layout.h).
 *
 * Record: u64 id, i64 rank, i64 num_comps, i64 num_stripes, then num_comps
 * components of 72 bytes (the 7 counters of lustre.def, a 16-byte pool name),
 * then num_stripes OST ids, component c owning the next STRIPE_COUNT of them.
 *
 * Only kept components are written, in layout order.  Upstream sizes its record
 * for every component, marks the ones it could not fill and cuts the record at
 * the first of them, which drops the instantiated components of a later mirror
 * behind an uninstantiated one; leaving out just the unfilled ones keeps those
 * (docs/deviations.md).  Readers see the same thing either way: a record whose
 * every component is filled. */
#include <string.h>

#include "iolens/counters.h"
#include "iolens/lustre_store.h"
#include "lustre_layout.h"

enum { REC_HEAD = 32, COMP_BYTES = 8 * LUSTRE_COMP_NUM_INDICES + 16 };
_Static_assert(COMP_BYTES == 72, "a LUSTRE component is 72 bytes (log-format spec 7.9)");

int iol_lustre_add_comp(iol_lustre_layout *l, const iol_lustre_comp *c, const int64_t *osts)
{
    size_t n = c->stripe_count > 0 ? (size_t)c->stripe_count : 0;
    if (l->ncomps == IOL_LUSTRE_MAX_COMPS || n > IOL_LUSTRE_MAX_OSTS - l->nosts)
        return -1;
    iol_lustre_comp *d = &l->comps[l->ncomps++];
    *d = *c;
    d->pool[sizeof d->pool - 1] = '\0';
    d->first_ost = l->nosts;
    if (n)
        memcpy(&l->osts[l->nosts], osts, n * sizeof *osts);
    l->nosts += n;
    return 0;
}

int iol_lustre_comp_kept(const iol_lustre_layout *l, const iol_lustre_comp *c)
{
    return c->complete && c->stripe_count >= 0 &&
           c->first_ost + (size_t)c->stripe_count <= l->nosts &&
           (!l->composite || (c->flags & IOL_LUSTRE_FL_INIT));
}

size_t iol_lustre_record_size(const iol_lustre_layout *l)
{
    size_t comps = 0, osts = 0;
    for (size_t i = 0; i < l->ncomps; i++)
        if (iol_lustre_comp_kept(l, &l->comps[i])) {
            comps++;
            osts += (size_t)l->comps[i].stripe_count;
        }
    return comps ? REC_HEAD + COMP_BYTES * comps + 8 * osts : 0;
}

size_t iol_lustre_record_build(const iol_lustre_layout *l, uint64_t id, int64_t rank, void *out,
                               size_t cap)
{
    size_t len = iol_lustre_record_size(l);
    if (!len || len > cap)
        return 0;
    uint8_t *p = out;
    int64_t head[2] = {0, 0};
    for (size_t i = 0; i < l->ncomps; i++)
        if (iol_lustre_comp_kept(l, &l->comps[i])) {
            head[0]++;
            head[1] += l->comps[i].stripe_count;
        }
    memcpy(p, &id, 8);
    memcpy(p + 8, &rank, 8);
    memcpy(p + 16, head, 16);
    uint8_t *comp = p + REC_HEAD, *ost = comp + COMP_BYTES * (size_t)head[0];
    for (size_t i = 0; i < l->ncomps; i++) {
        const iol_lustre_comp *c = &l->comps[i];
        if (!iol_lustre_comp_kept(l, c))
            continue;
        int64_t v[LUSTRE_COMP_NUM_INDICES];
        v[LUSTRE_COMP_STRIPE_SIZE] = c->stripe_size;
        v[LUSTRE_COMP_STRIPE_COUNT] = c->stripe_count;
        v[LUSTRE_COMP_STRIPE_PATTERN] = c->pattern;
        v[LUSTRE_COMP_FLAGS] = c->flags;
        v[LUSTRE_COMP_EXT_START] = c->ext_start;
        v[LUSTRE_COMP_EXT_END] = c->ext_end;
        v[LUSTRE_COMP_MIRROR_ID] = c->mirror_id;
        memcpy(comp, v, sizeof v);
        memset(comp + sizeof v, 0, 16);
        memcpy(comp + sizeof v, c->pool, strnlen(c->pool, 15));
        comp += COMP_BYTES;
        size_t n = (size_t)c->stripe_count * 8;
        memcpy(ost, &l->osts[c->first_ost], n);
        ost += n;
    }
    return len;
}

size_t iol_lustre_record_len(const void *rec, size_t avail)
{
    return iolens_lustre_record_len(rec, avail);   /* the store's decoder checks the same */
}
