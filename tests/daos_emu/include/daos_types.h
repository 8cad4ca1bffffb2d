/* DAOS emulation (iolens tests): DAOS's basic types.  Layouts are DAOS's public ones. */
#ifndef DAOS_TYPES_H
#define DAOS_TYPES_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <ctype.h>
#include <limits.h>
#include <uuid/uuid.h>
#include <cart/types.h>
#include <daos_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAOS_SYS_NAME_MAX 15

typedef uint64_t daos_size_t;
typedef uint64_t daos_off_t;
typedef uint64_t daos_epoch_t;

typedef enum {
	DAOS_ANCHOR_TYPE_ZERO = 0,
	DAOS_ANCHOR_TYPE_HKEY = 1,
	DAOS_ANCHOR_TYPE_KEY  = 2,
	DAOS_ANCHOR_TYPE_EOF  = 3,
} daos_anchor_type_t;

#define DAOS_ANCHOR_BUF_MAX 104
/* An enumeration cursor.  The emulation keeps its position in da_buf. */
typedef struct {
	uint16_t da_type;
	uint16_t da_shard;
	uint32_t da_flags;
	uint64_t da_sub_anchors;
	uint8_t  da_buf[DAOS_ANCHOR_BUF_MAX];
} daos_anchor_t;

#define DAOS_ANCHOR_INIT { .da_type = DAOS_ANCHOR_TYPE_ZERO, .da_shard = 0, .da_flags = 0, \
			   .da_sub_anchors = 0, .da_buf = { 0 } }

static inline bool
daos_anchor_is_eof(daos_anchor_t *anchor)
{
	return anchor->da_type == DAOS_ANCHOR_TYPE_EOF;
}

typedef struct {
	uint64_t cookie;
} daos_handle_t;

#define DAOS_HDL_INVAL ((daos_handle_t){0})
#define DAOS_TX_NONE   DAOS_HDL_INVAL

static inline bool
daos_handle_is_inval(daos_handle_t hdl)
{
	return hdl.cookie == 0;
}

static inline bool
daos_handle_is_valid(daos_handle_t hdl)
{
	return hdl.cookie != 0;
}

/* Pool connect flags. */
#define DAOS_PC_RO     (1U << 0)
#define DAOS_PC_RW     (1U << 1)
#define DAOS_PC_EX     (1U << 2)
#define DAOS_PC_NBITS  3
#define DAOS_PC_MASK   ((1U << DAOS_PC_NBITS) - 1)

typedef struct {
	daos_epoch_t epr_lo;
	daos_epoch_t epr_hi;
} daos_epoch_range_t;

#define DAOS_EPOCH_MAX (~0ULL)

typedef struct {
	uuid_t       ci_uuid;
	daos_epoch_t ci_lsnapshot;
	uint32_t     ci_nhandles;
	uint32_t     ci_nsnapshots;
	uint64_t     ci_md_otime;
	uint64_t     ci_md_mtime;
} daos_cont_info_t;

typedef d_iov_t daos_key_t;

/* An event: a non-NULL event makes a call asynchronous.  ev_private is the library's. */
typedef struct daos_event {
	int ev_error;
	struct {
		uint64_t space[20];
	} ev_private;
	uint64_t ev_debug;
} daos_event_t;

#define DAOS_EQ_WAIT   -1
#define DAOS_EQ_NOWAIT 0

typedef enum {
	DAOS_EQR_COMPLETED = (1),
	DAOS_EQR_WAITING   = (1 << 1),
	DAOS_EQR_ALL       = (DAOS_EQR_COMPLETED | DAOS_EQR_WAITING),
} daos_eq_query_t;

typedef enum {
	DAOS_EVS_READY,
	DAOS_EVS_RUNNING,
	DAOS_EVS_COMPLETED,
	DAOS_EVS_ABORTED,
} daos_ev_status_t;

typedef struct {
	uint64_t lo;
	uint64_t hi;
} daos_obj_id_t;

#define DAOS_UUID_STR_SIZE 37

#ifdef __cplusplus
}
#endif
#endif
