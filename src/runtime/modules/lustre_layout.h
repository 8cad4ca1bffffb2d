/* The Lustre layout of one file, as the LUSTRE module needs it, and the two pure
 * steps around it: reading the `lustre.lov` extended attribute into a layout
 * (lustre_lov.c) and turning a layout into a LUSTRE record (lustre_record.c).
 *
 * A layout comes from a *source* (lustre.c asks them in turn): liblustreapi's
 * llapi_layout_* functions when the library is in the process or could be loaded
 * at init (lustre_api.c), else, or when any of its calls fails, the `lustre.lov`
 * xattr read with fgetxattr and parsed here.  The record step never knows which,
 * so the unit tests feed it synthetic layouts (tests/runtime/test_lustre_record.c).  Nothing here allocates,
 * prints or touches errno: the module calls it under its lock with buffers it
 * mapped itself. */
#ifndef IOLENS_RUNTIME_LUSTRE_LAYOUT_H
#define IOLENS_RUNTIME_LUSTRE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Bounds: the kernel's largest layout xattr (XATTR_SIZE_MAX, 64 KiB) holds at
 * most 65536 / 24 object entries, and no layout has more components than fit
 * there either (each takes a 48-byte entry plus a 32-byte blob). */
#define IOL_LUSTRE_XATTR_MAX 65536
#define IOL_LUSTRE_MAX_OSTS (IOL_LUSTRE_XATTR_MAX / 24)
#define IOL_LUSTRE_MAX_COMPS 256

/* Values of a component as the log stores them (log-format spec 7.9): the
 * pattern in liblustreapi's numbering, the flags as the layout has them. */
enum {
    IOL_LUSTRE_PATTERN_RAID0 = 0,
    IOL_LUSTRE_PATTERN_MDT = 2,
    IOL_LUSTRE_PATTERN_OVERSTRIPING = 4,
    IOL_LUSTRE_PATTERN_FOREIGN = 8,
    IOL_LUSTRE_FL_INIT = 0x10,          /* component instantiated (its objects exist) */
};

typedef struct iol_lustre_comp {
    int64_t stripe_size;
    int64_t stripe_count;       /* OST objects of the component (0 for Data-on-MDT) */
    int64_t pattern;            /* IOL_LUSTRE_PATTERN_*, -1 when not known */
    int64_t flags;
    int64_t ext_start, ext_end; /* ext_end -1 = to the end of the file */
    int64_t mirror_id;
    char pool[16];              /* NUL-terminated; empty = no pool */
    int complete;               /* every field above and its OST ids were read */
    size_t first_ost;           /* its OST ids: osts[first_ost .. + stripe_count) */
} iol_lustre_comp;

typedef struct iol_lustre_layout {
    int composite;              /* PFL/FLR/SEL: only instantiated components count */
    size_t ncomps, nosts;
    iol_lustre_comp comps[IOL_LUSTRE_MAX_COMPS];
    int64_t osts[IOL_LUSTRE_MAX_OSTS];
} iol_lustre_layout;

/* Parse the value of the `lustre.lov` xattr (len bytes; lov_user_md v1/v3, the
 * composite lov_comp_md v1 of PFL, FLR and self-extending layouts) into *out.
 * The buffer is hostile: every size and offset is checked.  Returns 0, or -1 for
 * anything that is not a layout we can read (then *out is unspecified). */
int iol_lov_parse(const void *buf, size_t len, iol_lustre_layout *out);

/* A lov pattern (the xattr's numbering, state flags in the high half) in
 * liblustreapi's numbering (IOL_LUSTRE_PATTERN_*); -1 when not one of those. */
int64_t iol_lov_pattern(uint32_t lov);

/* Add one component to a layout being built (by a source or a test); its OST
 * ids are copied.  Returns 0, or -1 when the layout is full. */
int iol_lustre_add_comp(iol_lustre_layout *l, const iol_lustre_comp *c, const int64_t *osts);

/* Whether a component goes into the record: upstream's rule (runtime spec 7):
 * every component of a plain layout, only instantiated ones of a composite
 * layout, and only when everything about it was read. */
int iol_lustre_comp_kept(const iol_lustre_layout *l, const iol_lustre_comp *c);

/* Bytes of the record of a layout (32 + 72 per kept component + 8 per OST id of
 * a kept component); 0 when no component is kept (no record, as upstream). */
size_t iol_lustre_record_size(const iol_lustre_layout *l);

/* Write the record (log-format spec 7.9, host byte order, little-endian on every
 * target we build) into out (cap bytes): id, rank, the kept components and their
 * OST ids.  Returns the bytes written, or 0 when it does not fit or no
 * component is kept. */
size_t iol_lustre_record_build(const iol_lustre_layout *l, uint64_t id, int64_t rank, void *out,
                               size_t cap);

/* The length of the record at rec (avail bytes there), from its num_comps and
 * num_stripes; 0 when they are not those of a record of ours. */
size_t iol_lustre_record_len(const void *rec, size_t avail);

#endif
