/* Calls given a DAOS event (asynchronous): recorded when they complete, as upstream
 * does, through a completion callback registered on the event before the call
 * (daos_event_register_comp_cb).  The call's start is read at registration and its
 * end in the callback; a call that completes with an error is not recorded.
 *
 * The pending calls live in a fixed pool (no allocation on the call path): a call
 * that finds the pool used up, or whose event refuses the callback, is not recorded
 * (a counted failure).
 *
 * A call refused at launch (it returns an error without starting) never completes
 * its event, but DAOS keeps the callback registered on it: the callback runs when
 * the event next completes, for whatever call the program then makes with it.  So
 * the wrapper settles every call after it returns (iol_daos_pending_settle): a
 * refused call's slot is voided, and its late callback gives the slot back without
 * recording anything.  A voided slot whose event is never used again stays taken.
 *
 * Each slot's state word holds a generation above its two state bits, so a void
 * that comes after the slot was completed and taken again changes nothing. */
#ifndef IOLENS_RUNTIME_DAOS_ASYNC_H
#define IOLENS_RUNTIME_DAOS_ASYNC_H

#include "../core/stats.h"
#include "daos_api.h"

#define IOL_DAOS_PENDING 1024

typedef struct iol_daos_pending iol_daos_pending;
/* The record step of a completed call: sp holds its start and its end. */
typedef void (*iol_daos_done_fn)(const iol_daos_pending *p, const iol_span *sp);

/* What the record step needs, set by the wrapper before the call; pointers are
 * read at completion (sizes and handles the call fills in). */
struct iol_daos_pending {
    uint32_t state;                  /* generation << 2 | IOL_DAOS_SLOT_* (atomic) */
    iol_daos_done_fn done;           /* the call's fields start here */
    uint64_t start;                  /* tick at registration */
    daos_handle_t h;                 /* object or pool handle */
    daos_handle_t coh;
    daos_obj_id_t oid;
    void *obj;                       /* dfs_obj_t */
    daos_handle_t *out_h;            /* the handle an open fills in */
    daos_size_t *size, *size2;       /* sizes read at completion */
    int counter;
    int64_t amount, amount2;
};

/* A started call: its slot (NULL when not recorded) and the slot's state then. */
typedef struct iol_daos_ticket {
    iol_daos_pending *p;
    uint32_t state;
} iol_daos_ticket;

/* Takes a free slot, copies the call's fields from `call` (all but its state) and
 * registers the completion on ev, the start read now.  A ticket without a slot
 * when the pool is used up or ev refuses the callback (a counted failure). */
iol_daos_ticket iol_daos_pending_start(daos_event_t *ev, const iol_daos_pending *call);
/* The call refused at launch: its callback, if it ever runs, records nothing. */
void iol_daos_pending_void(iol_daos_ticket t);

/* After the call returned ret: nonzero means it did not start (DAOS's calls that
 * take an event report their operation's own errors through the event).  Returns
 * ret; errno is not touched. */
static inline int iol_daos_pending_settle(iol_daos_ticket t, int ret)
{
    if (__builtin_expect(ret != 0, 0) && t.p)
        iol_daos_pending_void(t);
    return ret;
}

/* For a wrapper whose event is `ev`: when `cond` holds, record the call at its
 * completion with `done_` and the fields given (designated initializers of
 * iol_daos_pending).  Declares the wrapper's `pending_`, which SETTLED(call)
 * settles with the real call's result. */
#define PENDING_IF(cond, done_, ...)                                                \
    const iol_daos_ticket pending_ =                                                \
        ev && (cond) && iol_on()                                                    \
            ? iol_daos_pending_start(ev, &(const iol_daos_pending){.done = done_,   \
                                                                   __VA_ARGS__})   \
            : (iol_daos_ticket){0}
#define PENDING(done_, ...) PENDING_IF(1, done_, __VA_ARGS__)
#define SETTLED(call) iol_daos_pending_settle(pending_, call)

#endif
