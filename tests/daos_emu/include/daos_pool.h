/* DAOS emulation (iolens tests): pools.  A pool is a directory under the emulation root. */
#ifndef __DAOS_POOL_H__
#define __DAOS_POOL_H__
#define daos_pool_connect daos_pool_connect2
#include <inttypes.h>
#include <uuid/uuid.h>
#include <daos_prop.h>

#ifdef __cplusplus
extern "C" {
#endif

enum daos_media_type_t {
	DAOS_MEDIA_SCM = 0,
	DAOS_MEDIA_NVME,
	DAOS_MEDIA_MAX
};

struct daos_space {
	uint64_t s_total[DAOS_MEDIA_MAX];
	uint64_t s_free[DAOS_MEDIA_MAX];
};

struct daos_pool_space {
	struct daos_space ps_space;
	uint64_t          ps_free_min[DAOS_MEDIA_MAX];
	uint64_t          ps_free_max[DAOS_MEDIA_MAX];
	uint64_t          ps_free_mean[DAOS_MEDIA_MAX];
	uint32_t          ps_ntargets;
	uint32_t          ps_padding;
};

struct daos_rebuild_status {
	uint32_t rs_version;
	uint32_t rs_seconds;
	int32_t  rs_errno;
	union {
		int32_t rs_state;
		int32_t rs_done;
	};
	uint16_t rs_max_supported_layout_ver;
	uint8_t  rs_flags;
	uint8_t  rs_reserved_;
	int32_t  rs_fail_rank;
	uint64_t rs_toberb_obj_nr;
	uint64_t rs_obj_nr;
	uint64_t rs_rec_nr;
	uint64_t rs_size;
};

enum daos_pool_info_bit {
	DPI_SPACE          = 1ULL << 0,
	DPI_REBUILD_STATUS = 1ULL << 1,
	DPI_ENGINES_ENABLED = 1ULL << 2,
	DPI_ALL            = -1,
};

typedef struct {
	uuid_t                     pi_uuid;
	uint32_t                   pi_ntargets;
	uint32_t                   pi_nnodes;
	uint32_t                   pi_ndisabled;
	uint32_t                   pi_map_ver;
	uint32_t                   pi_leader;
	uint64_t                   pi_bits;
	struct daos_pool_space     pi_space;
	struct daos_rebuild_status pi_rebuild_st;
} daos_pool_info_t;

/* pool: a label or uuid string naming a directory under the root; sys is ignored. */
int daos_pool_connect(const char *pool, const char *sys, unsigned int flags, daos_handle_t *poh,
		      daos_pool_info_t *info, daos_event_t *ev);
int daos_pool_disconnect(daos_handle_t poh, daos_event_t *ev);
int daos_pool_local2global(daos_handle_t poh, d_iov_t *glob);
int daos_pool_global2local(d_iov_t glob, daos_handle_t *poh);
/* Fills pi_uuid and, when pi_bits asks for DPI_SPACE, the space of the root's file system. */
int daos_pool_query(daos_handle_t poh, d_rank_list_t **ranks, daos_pool_info_t *info,
		    daos_prop_t *pool_prop, daos_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif
