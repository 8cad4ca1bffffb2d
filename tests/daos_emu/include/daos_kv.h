/* DAOS emulation (iolens tests): the flat key-value API.  A KV object is a directory with one
 * file per key. */
#ifndef __DAOS_KV_H__
#define __DAOS_KV_H__
#include <daos_types.h>
#include <daos_obj.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAOS_COND_KEY_INSERT DAOS_COND_DKEY_INSERT
#define DAOS_COND_KEY_UPDATE DAOS_COND_DKEY_UPDATE
#define DAOS_COND_KEY_GET    DAOS_COND_DKEY_FETCH
#define DAOS_COND_KEY_REMOVE DAOS_COND_PUNCH

int daos_kv_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
		 daos_event_t *ev);
int daos_kv_close(daos_handle_t oh, daos_event_t *ev);
int daos_kv_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev);
int daos_kv_put(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		daos_size_t size, const void *buf, daos_event_t *ev);
/* buf == NULL or *size == DAOS_REC_ANY (0) asks only for the size; a buffer smaller than the
 * value gives -DER_REC2BIG with *size set to the value's size. */
int daos_kv_get(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		daos_size_t *size, void *buf, daos_event_t *ev);
int daos_kv_remove(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		   daos_event_t *ev);
int daos_kv_list(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
		 d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif
