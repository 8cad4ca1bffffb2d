/* Calls given a DAOS event (asynchronous): recorded when they complete, as upstream
 * does, through a completion callback registered on the event before the call
 * (daos_event_register_comp_cb).  The call's start is read at registration and its
 * end in the callback; a call that completes with an error is not recorded.
 *
 * The pending calls live in a fixed pool (no allocation on the call path): a call
 * that finds the pool used up, or whose event refuses the callback, is not recorded
 * (a counted failure). */
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
    int taken;                       /* 0 free, 1 in use (atomic) */
    iol_daos_done_fn done;
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

/* A free pending call with `done` set, or NULL (pool used up: a counted failure).
 * The caller fills it in and arms it. */
iol_daos_pending *iol_daos_pending_take(iol_daos_done_fn done);
/* Register p's completion on ev, its start read now; on failure p is given back. */
void iol_daos_pending_arm(iol_daos_pending *p, daos_event_t *ev);

#endif
