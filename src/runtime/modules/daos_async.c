/* Pending asynchronous DAOS calls (daos_async.h). */
#include "daos_async.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

enum { IOL_DAOS_SLOT_FREE, IOL_DAOS_SLOT_ARMED, IOL_DAOS_SLOT_VOID };
#define SLOT_STATE(s) ((s) & 3u)
#define SLOT_GEN(s) ((s) & ~3u)

static iol_daos_pending pool[IOL_DAOS_PENDING];

static void give_back(iol_daos_pending *p, uint32_t state)
{
    __atomic_store_n(&p->state, SLOT_GEN(state) | IOL_DAOS_SLOT_FREE, __ATOMIC_RELEASE);
}

/* A free slot, taken into a new generation, or a ticket without one. */
static iol_daos_ticket take(void)
{
    for (int i = 0; i < IOL_DAOS_PENDING; i++) {
        uint32_t s = __atomic_load_n(&pool[i].state, __ATOMIC_RELAXED);
        uint32_t armed = SLOT_GEN(s + 4u) | IOL_DAOS_SLOT_ARMED;
        if (SLOT_STATE(s) == IOL_DAOS_SLOT_FREE &&
            __atomic_compare_exchange_n(&pool[i].state, &s, armed, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return (iol_daos_ticket){&pool[i], armed};
    }
    iol_fail(IOL_FAIL_AIO);
    return (iol_daos_ticket){0};
}

/* The completion callback (DAOS calls it once, with the operation's result). */
static int completed(void *arg, daos_event_t *ev, int ret)
{
    (void)ev;
    iol_daos_pending *p = arg;
    int e = errno;
    uint32_t s = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
    if (ret == 0 && SLOT_STATE(s) == IOL_DAOS_SLOT_ARMED && iol_on()) {
        iol_span sp = {p->start, iol_tick()};
        p->done(p, &sp);
    }
    give_back(p, s);
    errno = e;
    return 0;
}

iol_daos_ticket iol_daos_pending_start(daos_event_t *ev, const iol_daos_pending *call)
{
    int e = errno;
    iol_daos_ticket t = take();
    if (t.p) {
        const size_t from = offsetof(iol_daos_pending, done);
        memcpy((char *)t.p + from, (const char *)call + from, sizeof *call - from);
        t.p->start = iol_tick();
        __typeof__(iol_daos.daos_event_register_comp_cb) reg =
            IOL_DAOS_CALLED(daos_event_register_comp_cb);
        if (!reg || reg(ev, completed, t.p) != 0) {
            iol_fail(IOL_FAIL_AIO);
            give_back(t.p, t.state);
            t = (iol_daos_ticket){0};
        }
    }
    errno = e;
    return t;
}

void iol_daos_pending_void(iol_daos_ticket t)
{
    uint32_t armed = t.state;
    __atomic_compare_exchange_n(&t.p->state, &armed, SLOT_GEN(t.state) | IOL_DAOS_SLOT_VOID, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
