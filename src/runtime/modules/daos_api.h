/* The part of the DAOS ABI the DFS and DAOS modules use, and the table of DAOS
 * functions resolved at run time (wrappers/daos_fns.def, daos_api.c).
 *
 * No DAOS header is needed to build the runtime and no DAOS library is linked:
 * the types below have the size and layout of those of DAOS 2.x's public headers
 * (daos_types.h, daos_obj.h, daos_array.h, daos_fs.h), which is all a wrapper
 * needs to pass arguments through and read sizes.  Objects the modules never look
 * inside (dfs_t, dfs_obj_t, events, anchors, container info) are opaque here. */
#ifndef IOLENS_RUNTIME_DAOS_API_H
#define IOLENS_RUNTIME_DAOS_API_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef struct { uint64_t cookie; } daos_handle_t;       /* passed by value */
typedef struct { uint64_t lo, hi; } daos_obj_id_t;       /* passed by value */
typedef uint64_t daos_size_t;
typedef uint64_t daos_off_t;
typedef uint32_t daos_oclass_id_t;

typedef struct {                     /* d_iov_t: passed by value (global handles) */
    void *iov_buf;
    size_t iov_buf_len;
    size_t iov_len;
} d_iov_t;
typedef d_iov_t daos_key_t;

typedef struct {                     /* d_sg_list_t */
    uint32_t sg_nr;
    uint32_t sg_nr_out;
    d_iov_t *sg_iovs;
} d_sg_list_t;

typedef struct {                     /* daos_recx_t */
    uint64_t rx_idx, rx_nr;
} daos_recx_t;

enum { IOL_DAOS_IOD_SINGLE = 1 };    /* daos_iod_type_t */
typedef struct {                     /* daos_iod_t */
    daos_key_t iod_name;
    int iod_type;                    /* daos_iod_type_t (an enum: int-sized) */
    daos_size_t iod_size;
    uint64_t iod_flags;
    uint32_t iod_nr;
    daos_recx_t *iod_recxs;
} daos_iod_t;

typedef struct {                     /* daos_range_t: in cells */
    daos_off_t rg_idx;
    daos_size_t rg_len;
} daos_range_t;
typedef struct {                     /* daos_array_iod_t */
    daos_size_t arr_nr;
    daos_range_t *arr_rgs;
    daos_size_t arr_nr_short_read;
    daos_size_t arr_nr_read;
} daos_array_iod_t;

/* The object type of an object id: its top 8 bits (daos_obj_id2type). */
static inline int64_t iol_daos_otype(daos_obj_id_t oid) { return (int64_t)(oid.hi >> 56); }

typedef struct daos_cont_info daos_cont_info_t;
typedef struct daos_iom daos_iom_t;
typedef struct daos_key_desc daos_key_desc_t;
typedef struct daos_anchor daos_anchor_t;
typedef struct daos_epoch_range daos_epoch_range_t;
typedef struct daos_array_stbuf daos_array_stbuf_t;
typedef struct dfs dfs_t;
typedef struct dfs_obj dfs_obj_t;
typedef struct daos_event daos_event_t;
typedef struct dfs_iod dfs_iod_t;

/* What daos_pool_query and daos_cont_query fill: each info struct starts with its
 * 16-byte uuid (pi_uuid, ci_uuid).  The modules read only that, into a buffer
 * larger than either struct of any DAOS release. */
#define IOL_DAOS_INFO_BYTES 4096
typedef union {
    unsigned char uuid[16];
    uint64_t align_;
    unsigned char bytes[IOL_DAOS_INFO_BYTES];
} iol_daos_info;

typedef struct iol_daos_table {
#define IOL_DAOS_FN(ret, name, params) ret (*name) params;
#define IOL_DAOS_API IOL_DAOS_FN
#include "daos_fns.def"
#undef IOL_DAOS_FN
#undef IOL_DAOS_API
} iol_daos_table;

/* The DAOS functions the process uses, each resolved at its first use. */
extern iol_daos_table iol_daos;

/* A function the modules call (IOL_DAOS_API) into *slot, or NULL when no loaded
 * library defines it (then the caller records without it, or not at all). */
void *iol_daos_called(const char *name, void **slot);
#define IOL_DAOS_CALLED(name)                                                        \
    ((__typeof__(iol_daos.name))iol_daos_called(#name, (void **)&iol_daos.name))

/* An intercepted function's real definition (the next one after ours), stored
 * into *slot.  Never NULL: a function no library defines (which the application
 * cannot have called) becomes one that fails with -1. */
void *iol_daos_real(const char *name, void **slot);
#define IOL_DAOS_REAL(name)                                                          \
    (__builtin_expect(iol_daos.name != NULL, 1)                                      \
         ? iol_daos.name                                                             \
         : (__typeof__(iol_daos.name))iol_daos_real(#name, (void **)&iol_daos.name))

/* The pool and container uuids of a container handle pair (32 bytes: pool then
 * container), by the two queries; 0 on success, -1 (out untouched) otherwise.
 * Call with no module lock held (the queries are library calls). */
int iol_daos_uuids(daos_handle_t poh, daos_handle_t coh, unsigned char out[32]);

/* The record id upstream gives an object: the hash of pool uuid, container uuid
 * and object id, 48 bytes (uuids zero when unknown). */
uint64_t iol_daos_object_id(const unsigned char uuids[32], daos_obj_id_t oid);

#endif
