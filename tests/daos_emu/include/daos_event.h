/* DAOS emulation (iolens tests): events and event queues.  The emulation completes every
 * operation before the call returns: an operation given an event runs synchronously, stores its
 * result in ev->ev_error, runs the event's completion callback, marks the event completed, queues
 * it on its event queue (if any) for daos_eq_poll, and the call returns 0.
 *
 * Completion callbacks accumulate as in DAOS (each daos_event_register_comp_cb adds one; a
 * completion runs and clears them all).  For tests of a launch that fails, the environment
 * variable IOLENS_DAOS_EMU_REFUSE_LAUNCH=N makes the N-th call given an event (counted from 1,
 * per process; daos_obj_fetch and daos_obj_update) return -DER_NOMEM without running or
 * completing its event, as DAOS does when it cannot create the call's task. */
#ifndef __DAOS_EVENT_H__
#define __DAOS_EVENT_H__
#include <daos_types.h>
#include <daos_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

int daos_eq_create(daos_handle_t *eqh);
#define DAOS_EQ_DESTROY_FORCE 1
int daos_eq_destroy(daos_handle_t eqh, int flags);
int daos_eq_poll(daos_handle_t eqh, int wait_running, int64_t timeout, unsigned int nevents,
		 daos_event_t **events);
int daos_eq_query(daos_handle_t eqh, daos_eq_query_t query, unsigned int nevents,
		  daos_event_t **events);
int daos_event_init(daos_event_t *ev, daos_handle_t eqh, daos_event_t *parent);
int daos_event_fini(daos_event_t *ev);
int daos_event_test(struct daos_event *ev, int64_t timeout, bool *flag);

typedef int (*daos_event_comp_cb_t)(void *, daos_event_t *, int);
int daos_event_register_comp_cb(struct daos_event *ev, daos_event_comp_cb_t cb, void *arg);

#ifdef __cplusplus
}
#endif
#endif
