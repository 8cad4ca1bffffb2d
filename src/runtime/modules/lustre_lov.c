/* The `lustre.lov` extended attribute into an iol_lustre_layout (lustre_layout.h).
 *
 * The structures are Lustre's public user-space ABI (lustre_user.h), written
 * here from their published field lists, little-endian and packed:
 *
 *   lov_user_md v1 (32 bytes): u32 magic, u32 pattern, 16-byte object id,
 *       u32 stripe_size, u16 stripe_count, u16 layout_gen, then stripe_count
 *       24-byte objects (16-byte object id, u32 generation, u32 OST index);
 *   lov_user_md v3 (48 bytes): v1 plus a 16-byte pool name before the objects
 *       (also the form of "specific OST" layouts);
 *   lov_comp_md v1 (32 bytes): u32 magic, u32 size, u32 layout_gen, u16 flags,
 *       u16 entry_count, u16 mirror_count, padding; then entry_count 48-byte
 *       entries: u32 id (bits 16-30 the mirror id), u32 flags, u64 extent start,
 *       u64 extent end, u32 blob offset (from the start of lov_comp_md), u32 blob
 *       size, u32 layout_gen, u64 timestamp, 4 bytes; each blob a v1/v3 md.
 *
 * The pattern is given in liblustreapi's numbering, which the log stores (what
 * llapi_layout_pattern_get reports: RAID0 0, MDT 2, overstriping 4, foreign 8). */
#include <endian.h>
#include <string.h>

#include "lustre_layout.h"

enum {
    MAGIC_V1 = 0x0BD10BD0, MAGIC_V3 = 0x0BD30BD0, MAGIC_SPECIFIC = 0x0BD50BD0,
    MAGIC_COMP_V1 = 0x0BD60BD0, MAGIC_FOREIGN = 0x0BD70BD0,
    MD_V1_SIZE = 32, MD_V3_SIZE = 48, OBJ_SIZE = 24, COMP_HDR = 32, COMP_ENTRY = 48,
    LOV_RAID0 = 0x001, LOV_MDT = 0x100, LOV_OVERSTRIPING = 0x200, LOV_FOREIGN = 0x400,
    STRIPE_COUNT_ALL = 0xFFFF,
};

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return le32toh(v);
}

static uint16_t u16_at(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return le16toh(v);
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return le64toh(v);
}

int64_t iol_lov_pattern(uint32_t lov)
{
    switch (lov & 0xFFFF) {          /* the high half holds state flags (released) */
    case LOV_RAID0: return IOL_LUSTRE_PATTERN_RAID0;
    case LOV_MDT: return IOL_LUSTRE_PATTERN_MDT;
    case LOV_RAID0 | LOV_OVERSTRIPING:
    case LOV_OVERSTRIPING: return IOL_LUSTRE_PATTERN_OVERSTRIPING;
    case LOV_FOREIGN: return IOL_LUSTRE_PATTERN_FOREIGN;
    default: return -1;
    }
}

/* One v1/v3 md at p (len bytes) into c; its OST ids are appended to l when
 * `objects` (a plain layout, or an instantiated component): an id the blob does
 * not hold (a released file has none) is -1, as liblustreapi's getter fails. */
static int parse_md(iol_lustre_layout *l, iol_lustre_comp *c, const uint8_t *p, size_t len,
                    int objects)
{
    if (len < 4)
        return -1;
    uint32_t magic = u32_at(p);
    if (magic == MAGIC_FOREIGN) {    /* a foreign component: no stripes to tell */
        c->pattern = IOL_LUSTRE_PATTERN_FOREIGN;
        c->complete = 1;
        return 0;
    }
    size_t hdr = magic == MAGIC_V1 ? MD_V1_SIZE
               : (magic == MAGIC_V3 || magic == MAGIC_SPECIFIC) ? MD_V3_SIZE : 0;
    if (!hdr || len < hdr)
        return -1;
    c->pattern = iol_lov_pattern(u32_at(p + 4));
    c->stripe_size = u32_at(p + 24);
    uint16_t count = u16_at(p + 28);
    if (hdr == MD_V3_SIZE) {
        memcpy(c->pool, p + 32, 15);
        c->pool[15] = '\0';
    }
    /* Data on the MDT has no OST objects; upstream records its count as 0. */
    c->stripe_count = c->pattern == IOL_LUSTRE_PATTERN_MDT ? 0
                    : count == STRIPE_COUNT_ALL ? -1 : count;
    c->first_ost = l->nosts;
    if (!objects || c->stripe_count <= 0) {
        c->complete = c->stripe_count >= 0;
        return 0;
    }
    if ((size_t)c->stripe_count > IOL_LUSTRE_MAX_OSTS - l->nosts)
        return 0;                    /* incomplete: never recorded */
    size_t have = (len - hdr) / OBJ_SIZE;
    for (size_t i = 0; i < (size_t)c->stripe_count; i++)
        l->osts[l->nosts++] = i < have ? (int64_t)u32_at(p + hdr + i * OBJ_SIZE + 20) : -1;
    c->complete = 1;
    return 0;
}

static int parse_composite(const uint8_t *p, size_t len, iol_lustre_layout *l)
{
    if (len < COMP_HDR)
        return -1;
    size_t size = u32_at(p + 4), n = u16_at(p + 14);
    if (size > len)
        return -1;
    if (n > IOL_LUSTRE_MAX_COMPS || COMP_HDR + n * COMP_ENTRY > size)
        return -1;
    l->composite = 1;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = p + COMP_HDR + i * COMP_ENTRY;
        iol_lustre_comp *c = &l->comps[l->ncomps++];
        memset(c, 0, sizeof *c);
        c->stripe_size = -1;
        c->pattern = -1;
        uint32_t id = u32_at(e);
        c->flags = u32_at(e + 4);
        c->ext_start = (int64_t)u64_at(e + 8);
        c->ext_end = (int64_t)u64_at(e + 16);
        c->mirror_id = (id & 0x7FFF0000u) >> 16;
        size_t off = u32_at(e + 24), blob = u32_at(e + 28);
        if (off < COMP_HDR + n * COMP_ENTRY || off > size || blob > size - off)
            continue;                /* a blob outside the layout: incomplete */
        if (parse_md(l, c, p + off, blob, (c->flags & IOL_LUSTRE_FL_INIT) != 0) != 0)
            c->complete = 0;
    }
    return 0;
}

int iol_lov_parse(const void *buf, size_t len, iol_lustre_layout *l)
{
    const uint8_t *p = buf;
    l->composite = 0;
    l->ncomps = l->nosts = 0;
    if (len < 4)
        return -1;
    if (u32_at(p) == MAGIC_COMP_V1)
        return parse_composite(p, len, l);
    iol_lustre_comp *c = &l->comps[0];
    memset(c, 0, sizeof *c);
    c->ext_end = -1;                 /* a plain layout covers the whole file */
    if (parse_md(l, c, p, len, 1) != 0)
        return -1;
    l->ncomps = 1;
    return 0;
}
