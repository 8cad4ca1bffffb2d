/* DAOS emulation (iolens tests): the object API (dkey/akey/record objects). */
#ifndef __DAOS_OBJ_H__
#define __DAOS_OBJ_H__
#define daos_obj_generate_oid daos_obj_generate_oid2
#include <daos_types.h>
#include <daos_event.h>
#include <daos_obj_class.h>
#include <daos_prop.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAOS_OBJ_NIL ((daos_obj_id_t){0})

/* Bits of oid.hi that the library owns: object type, class redundancy and group count. */
#define OID_FMT_INTR_BITS   32
#define OID_FMT_TYPE_BITS   8
#define OID_FMT_CLASS_BITS  8
#define OID_FMT_META_BITS   16
#define OID_FMT_TYPE_SHIFT  (64 - OID_FMT_TYPE_BITS)
#define OID_FMT_CLASS_SHIFT (OID_FMT_TYPE_SHIFT - OID_FMT_CLASS_BITS)
#define OID_FMT_META_SHIFT  (OID_FMT_CLASS_SHIFT - OID_FMT_META_BITS)
#define OID_FMT_TYPE_MAX    ((1ULL << OID_FMT_TYPE_BITS) - 1)
#define OID_FMT_CLASS_MAX   ((1ULL << OID_FMT_CLASS_BITS) - 1)
#define OID_FMT_META_MAX    ((1ULL << OID_FMT_META_BITS) - 1)
#define OID_FMT_TYPE_MASK   (OID_FMT_TYPE_MAX << OID_FMT_TYPE_SHIFT)
#define OID_FMT_CLASS_MASK  (OID_FMT_CLASS_MAX << OID_FMT_CLASS_SHIFT)
#define OID_FMT_META_MASK   (OID_FMT_META_MAX << OID_FMT_META_SHIFT)

enum daos_otype_t {
	DAOS_OT_MULTI_HASHED  = 0,
	DAOS_OT_OIT           = 1,
	DAOS_OT_DKEY_UINT64   = 2,
	DAOS_OT_AKEY_UINT64   = 3,
	DAOS_OT_MULTI_UINT64  = 4,
	DAOS_OT_DKEY_LEXICAL  = 5,
	DAOS_OT_AKEY_LEXICAL  = 6,
	DAOS_OT_MULTI_LEXICAL = 7,
	DAOS_OT_KV_HASHED     = 8,
	DAOS_OT_KV_UINT64     = 9,
	DAOS_OT_KV_LEXICAL    = 10,
	DAOS_OT_ARRAY         = 11,
	DAOS_OT_ARRAY_ATTR    = 12,
	DAOS_OT_ARRAY_BYTE    = 13,
	DAOS_OT_OIT_V2        = 14,
	DAOS_OT_MAX           = 14,
};

static inline enum daos_otype_t
daos_obj_id2type(daos_obj_id_t oid)
{
	return (enum daos_otype_t)((oid.hi & OID_FMT_TYPE_MASK) >> OID_FMT_TYPE_SHIFT);
}

static inline bool
daos_obj_id_is_nil(daos_obj_id_t oid)
{
	return oid.hi == 0 && oid.lo == 0;
}

enum {
	DAOS_COND_PUNCH       = (1 << 0),
	DAOS_COND_DKEY_INSERT = (1 << 1),
	DAOS_COND_DKEY_UPDATE = (1 << 2),
	DAOS_COND_DKEY_FETCH  = (1 << 3),
	DAOS_COND_AKEY_INSERT = (1 << 4),
	DAOS_COND_AKEY_UPDATE = (1 << 5),
	DAOS_COND_AKEY_FETCH  = (1 << 6),
	DAOS_COND_PER_AKEY    = (1 << 7),
};

/* Object open modes. */
enum {
	DAOS_OO_RO      = (1 << 1),
	DAOS_OO_RW      = (1 << 2),
	DAOS_OO_EXCL    = (1 << 3),
	DAOS_OO_IO_RAND = (1 << 4),
	DAOS_OO_IO_SEQ  = (1 << 5),
};

typedef struct {
	uint64_t rx_idx;
	uint64_t rx_nr;
} daos_recx_t;

typedef enum {
	DAOS_IOD_NONE   = 0,
	DAOS_IOD_SINGLE = 1,
	DAOS_IOD_ARRAY  = 2,
} daos_iod_type_t;

/* One akey's I/O: a single value of iod_size bytes, or iod_nr extents of iod_size-byte records. */
typedef struct {
	daos_key_t      iod_name;
	daos_iod_type_t iod_type;
	daos_size_t     iod_size;
	uint64_t        iod_flags;
	uint32_t        iod_nr;
	daos_recx_t    *iod_recxs;
} daos_iod_t;

typedef struct {
	daos_iod_type_t iom_type;
	uint32_t        iom_nr;
	uint32_t        iom_nr_out;
	uint32_t        iom_flags;
	daos_size_t     iom_size;
	daos_recx_t     iom_recx_lo;
	daos_recx_t     iom_recx_hi;
	daos_recx_t    *iom_recxs;
} daos_iom_t;

enum {
	DAOS_REC_ANY = 0,
};

typedef struct {
	daos_size_t kd_key_len;
	uint32_t    kd_val_type;
} daos_key_desc_t;

int daos_obj_generate_oid(daos_handle_t coh, daos_obj_id_t *oid, enum daos_otype_t type,
			  daos_oclass_id_t cid, daos_oclass_hints_t hints, uint32_t args);
int daos_obj_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
		  daos_event_t *ev);
int daos_obj_close(daos_handle_t oh, daos_event_t *ev);
int daos_obj_punch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_event_t *ev);
int daos_obj_punch_dkeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, unsigned int nr,
			 daos_key_t *dkeys, daos_event_t *ev);
int daos_obj_punch_akeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
			 unsigned int nr, daos_key_t *akeys, daos_event_t *ev);
int daos_obj_fetch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
		   unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_iom_t *ioms,
		   daos_event_t *ev);
int daos_obj_update(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
		    unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_event_t *ev);
int daos_obj_list_dkey(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
		       d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev);
int daos_obj_list_akey(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, uint32_t *nr,
		       daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor,
		       daos_event_t *ev);
int daos_obj_list_recx(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, daos_key_t *akey,
		       daos_size_t *size, uint32_t *nr, daos_recx_t *recxs,
		       daos_epoch_range_t *eprs, daos_anchor_t *anchor, bool incr_order,
		       daos_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif
