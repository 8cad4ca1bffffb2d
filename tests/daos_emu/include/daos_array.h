/* DAOS emulation (iolens tests): the array API.  An array is a file of cells plus its
 * cell and chunk sizes. */
#ifndef __DAOS_ARRAY_H__
#define __DAOS_ARRAY_H__
#include <daos_types.h>
#include <daos_obj.h>
#include <daos_obj_class.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	daos_off_t  rg_idx;
	daos_size_t rg_len;
} daos_range_t;

/* Ranges are in cells.  Reads set arr_nr_short_read and arr_nr_read. */
typedef struct {
	daos_size_t   arr_nr;
	daos_range_t *arr_rgs;
	daos_size_t   arr_nr_short_read;
	daos_size_t   arr_nr_read;
} daos_array_iod_t;

typedef struct {
	daos_size_t  st_size;
	daos_epoch_t st_max_epoch;
} daos_array_stbuf_t;

static inline int
daos_array_generate_oid(daos_handle_t coh, daos_obj_id_t *oid, bool add_attr,
			daos_oclass_id_t cid, daos_oclass_hints_t hints, uint32_t args)
{
	return daos_obj_generate_oid(coh, oid, add_attr ? DAOS_OT_ARRAY : DAOS_OT_ARRAY_ATTR, cid,
				     hints, args);
}

int daos_array_create(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th,
		      daos_size_t cell_size, daos_size_t chunk_size, daos_handle_t *oh,
		      daos_event_t *ev);
int daos_array_open(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th, unsigned int mode,
		    daos_size_t *cell_size, daos_size_t *chunk_size, daos_handle_t *oh,
		    daos_event_t *ev);
int daos_array_open_with_attr(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th,
			      unsigned int mode, daos_size_t cell_size, daos_size_t chunk_size,
			      daos_handle_t *oh, daos_event_t *ev);
int daos_array_close(daos_handle_t oh, daos_event_t *ev);
int daos_array_read(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
		    daos_event_t *ev);
int daos_array_write(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
		     daos_event_t *ev);
/* Size in cells. */
int daos_array_get_size(daos_handle_t oh, daos_handle_t th, daos_size_t *size, daos_event_t *ev);
int daos_array_stat(daos_handle_t oh, daos_handle_t th, daos_array_stbuf_t *stbuf,
		    daos_event_t *ev);
int daos_array_set_size(daos_handle_t oh, daos_handle_t th, daos_size_t size, daos_event_t *ev);
int daos_array_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev);
int daos_array_punch(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod,
		     daos_event_t *ev);
int daos_array_get_attr(daos_handle_t oh, daos_size_t *chunk_size, daos_size_t *cell_size);

#ifdef __cplusplus
}
#endif
#endif
