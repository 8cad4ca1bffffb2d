/* Events and event queues of the DAOS emulation.  Every operation completes inside its call
 * (see daos_event.h), so an event is "completed" as soon as the call that took it returns.  The
 * event's private space holds: a magic word, how many completion callbacks are registered, the
 * queue's cookie, the status, the link to the next completed event of its queue, and the
 * callbacks with their arguments.  As in DAOS, callbacks accumulate: each registration adds
 * one, and a completion runs all of them in order and clears the list; a registration made
 * before a call that was refused at launch therefore stays until the event next completes. */
#include <stdlib.h>
#include <string.h>
#include "emu.h"

#define EV_MAGIC 0x696f6c656e734556ULL
enum { EV_SLOT_MAGIC, EV_SLOT_NCB, EV_SLOT_EQ, EV_SLOT_STATUS, EV_SLOT_NEXT, EV_SLOT_QUEUED,
       EV_SLOT_CBS };
/* Callback and argument pairs that fit in the private space after the fixed slots. */
#define EV_MAX_CBS ((sizeof(((daos_event_t *)0)->ev_private.space) / sizeof(uint64_t) - \
                     EV_SLOT_CBS) / 2)

struct event_queue {
	pthread_mutex_t lock;
	daos_event_t   *head, *tail;   /* completed, not yet polled */
};

static uint64_t *ev_slots(daos_event_t *ev)
{
	return ev->ev_private.space;
}

int daos_eq_create(daos_handle_t *eqh)
{
	struct event_queue *eq = calloc(1, sizeof(*eq));

	if (!eqh)
		return -DER_INVAL;
	if (!eq)
		return -DER_NOMEM;
	pthread_mutex_init(&eq->lock, NULL);
	*eqh = iol_emu_handle_new(IOL_EMU_EQ, eq);
	if (daos_handle_is_inval(*eqh)) {
		free(eq);
		return -DER_NOMEM;
	}
	return 0;
}

int daos_eq_destroy(daos_handle_t eqh, int flags)
{
	struct event_queue *eq = iol_emu_handle_get(eqh, IOL_EMU_EQ);

	if (!eq)
		return -DER_NO_HDL;
	pthread_mutex_lock(&eq->lock);
	bool busy = eq->head != NULL && !(flags & DAOS_EQ_DESTROY_FORCE);
	pthread_mutex_unlock(&eq->lock);
	if (busy)
		return -DER_BUSY;
	iol_emu_handle_drop(eqh, IOL_EMU_EQ);
	pthread_mutex_destroy(&eq->lock);
	free(eq);
	return 0;
}

static unsigned int take_completed(struct event_queue *eq, unsigned int max, daos_event_t **out)
{
	unsigned int n = 0;

	pthread_mutex_lock(&eq->lock);
	while (n < max && eq->head) {
		daos_event_t *ev = eq->head;
		eq->head = (daos_event_t *)(uintptr_t)ev_slots(ev)[EV_SLOT_NEXT];
		if (!eq->head)
			eq->tail = NULL;
		ev_slots(ev)[EV_SLOT_QUEUED] = 0;
		out[n++] = ev;
	}
	pthread_mutex_unlock(&eq->lock);
	return n;
}

/* Completed events are returned at once; nothing is ever running, so waits never block. */
int daos_eq_poll(daos_handle_t eqh, int wait_running, int64_t timeout, unsigned int nevents,
		 daos_event_t **events)
{
	struct event_queue *eq = iol_emu_handle_get(eqh, IOL_EMU_EQ);

	if (!eq)
		return -DER_NO_HDL;
	if (!events || nevents == 0)
		return -DER_INVAL;
	return (int)take_completed(eq, nevents, events);
}

int daos_eq_query(daos_handle_t eqh, daos_eq_query_t query, unsigned int nevents,
		  daos_event_t **events)
{
	struct event_queue *eq = iol_emu_handle_get(eqh, IOL_EMU_EQ);
	int n = 0;

	if (!eq)
		return -DER_NO_HDL;
	if (!(query & DAOS_EQR_COMPLETED))
		return 0;
	pthread_mutex_lock(&eq->lock);
	for (daos_event_t *ev = eq->head; ev;
	     ev = (daos_event_t *)(uintptr_t)ev_slots(ev)[EV_SLOT_NEXT]) {
		if (events && (unsigned int)n < nevents)
			events[n] = ev;
		n++;
	}
	pthread_mutex_unlock(&eq->lock);
	return n;
}

int daos_event_init(daos_event_t *ev, daos_handle_t eqh, daos_event_t *parent)
{
	if (!ev || parent)
		return -DER_INVAL;   /* parent events are not emulated */
	if (daos_handle_is_valid(eqh) && !iol_emu_handle_get(eqh, IOL_EMU_EQ))
		return -DER_NO_HDL;
	memset(ev, 0, sizeof(*ev));
	ev_slots(ev)[EV_SLOT_MAGIC] = EV_MAGIC;
	ev_slots(ev)[EV_SLOT_EQ] = eqh.cookie;
	ev_slots(ev)[EV_SLOT_STATUS] = DAOS_EVS_READY;
	return 0;
}

int daos_event_fini(daos_event_t *ev)
{
	if (!ev || ev_slots(ev)[EV_SLOT_MAGIC] != EV_MAGIC)
		return -DER_INVAL;
	ev_slots(ev)[EV_SLOT_MAGIC] = 0;
	return 0;
}

int daos_event_test(struct daos_event *ev, int64_t timeout, bool *flag)
{
	if (!ev || !flag || ev_slots(ev)[EV_SLOT_MAGIC] != EV_MAGIC)
		return -DER_INVAL;
	*flag = ev_slots(ev)[EV_SLOT_STATUS] == DAOS_EVS_COMPLETED;
	return 0;
}

/* The callback runs once, when the event's operation completes (inside that call here). */
int daos_event_register_comp_cb(struct daos_event *ev, daos_event_comp_cb_t cb, void *arg)
{
	if (!ev || !cb || ev_slots(ev)[EV_SLOT_MAGIC] != EV_MAGIC)
		return -DER_INVAL;
	uint64_t n = ev_slots(ev)[EV_SLOT_NCB];
	if (n >= EV_MAX_CBS)
		return -DER_NOMEM;   /* DAOS allocates each entry; the emulation has room for a few */
	ev_slots(ev)[EV_SLOT_CBS + 2 * n] = (uint64_t)(uintptr_t)cb;
	ev_slots(ev)[EV_SLOT_CBS + 2 * n + 1] = (uint64_t)(uintptr_t)arg;
	ev_slots(ev)[EV_SLOT_NCB] = n + 1;
	return 0;
}

/* IOLENS_DAOS_EMU_REFUSE_LAUNCH=N: the N-th launch of the process (1-based) is refused. */
int iol_emu_launch(daos_event_t *ev)
{
	static int64_t launches;
	const char *refuse = getenv("IOLENS_DAOS_EMU_REFUSE_LAUNCH");

	if (!ev)
		return 0;
	int64_t n = __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
	return refuse && atoll(refuse) == n ? -DER_NOMEM : 0;
}

static void queue_completed(daos_event_t *ev)
{
	daos_handle_t eqh = { ev_slots(ev)[EV_SLOT_EQ] };
	struct event_queue *eq = iol_emu_handle_get(eqh, IOL_EMU_EQ);

	if (!eq || ev_slots(ev)[EV_SLOT_QUEUED])
		return;   /* reused before it was polled: it is in the queue once */
	ev_slots(ev)[EV_SLOT_NEXT] = 0;
	ev_slots(ev)[EV_SLOT_QUEUED] = 1;
	pthread_mutex_lock(&eq->lock);
	if (eq->tail)
		ev_slots(eq->tail)[EV_SLOT_NEXT] = (uint64_t)(uintptr_t)ev;
	else
		eq->head = ev;
	eq->tail = ev;
	pthread_mutex_unlock(&eq->lock);
}

int iol_emu_finish(daos_event_t *ev, int rc)
{
	if (!ev)
		return rc;
	if (ev_slots(ev)[EV_SLOT_MAGIC] != EV_MAGIC)
		return -DER_INVAL;   /* an event must be initialized before use */
	uint64_t cbs[2 * EV_MAX_CBS], n = ev_slots(ev)[EV_SLOT_NCB];

	memcpy(cbs, &ev_slots(ev)[EV_SLOT_CBS], sizeof(cbs));
	ev->ev_error = rc;
	ev_slots(ev)[EV_SLOT_STATUS] = DAOS_EVS_COMPLETED;
	ev_slots(ev)[EV_SLOT_NCB] = 0;
	for (uint64_t i = 0; i < n; i++)
		((daos_event_comp_cb_t)(uintptr_t)cbs[2 * i])((void *)(uintptr_t)cbs[2 * i + 1], ev,
							     rc);
	queue_completed(ev);
	return 0;
}
