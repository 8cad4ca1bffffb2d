/* DAOS emulation (iolens tests): containers.  A container is a directory inside its pool's. */
#ifndef __DAOS_CONT_H__
#define __DAOS_CONT_H__
#define daos_cont_open    daos_cont_open2
#define daos_cont_destroy daos_cont_destroy2
#define daos_cont_create  daos_cont_create2
#include <daos_types.h>
#include <daos_prop.h>
#include <daos_event.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAOS_COO_RO         (1U << 0)
#define DAOS_COO_RW         (1U << 1)
#define DAOS_COO_EX         (1U << 2)
#define DAOS_COO_FORCE      (1U << 3)
#define DAOS_COO_RO_MDSTATS (1U << 4)

#define DAOS_CONT_HINT_MAX_LEN 128

int daos_cont_local2global(daos_handle_t coh, d_iov_t *glob);
int daos_cont_global2local(daos_handle_t poh, d_iov_t glob, daos_handle_t *coh);
int daos_cont_create(daos_handle_t poh, uuid_t *uuid, daos_prop_t *cont_prop, daos_event_t *ev);
int daos_cont_create_with_label(daos_handle_t poh, const char *label, daos_prop_t *cont_prop,
				uuid_t *uuid, daos_event_t *ev);
/* cont: a label or uuid string. */
int daos_cont_open(daos_handle_t poh, const char *cont, unsigned int flags, daos_handle_t *coh,
		   daos_cont_info_t *info, daos_event_t *ev);
int daos_cont_close(daos_handle_t coh, daos_event_t *ev);
int daos_cont_destroy(daos_handle_t poh, const char *cont, int force, daos_event_t *ev);
int daos_cont_query(daos_handle_t coh, daos_cont_info_t *info, daos_prop_t *cont_prop,
		    daos_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif
