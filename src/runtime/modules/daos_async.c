/* Pending asynchronous DAOS calls (daos_async.h). */
#include "daos_async.h"

#include <errno.h>

static iol_daos_pending pool[IOL_DAOS_PENDING];

static void give_back(iol_daos_pending *p)
{
    __atomic_store_n(&p->taken, 0, __ATOMIC_RELEASE);
}

iol_daos_pending *iol_daos_pending_take(iol_daos_done_fn done)
{
    for (int i = 0; i < IOL_DAOS_PENDING; i++) {
        int free_ = 0;
        if (__atomic_load_n(&pool[i].taken, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&pool[i].taken, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            iol_daos_pending *p = &pool[i];
            *p = (iol_daos_pending){.taken = 1, .done = done};
            return p;
        }
    }
    iol_fail(IOL_FAIL_AIO);
    return NULL;
}

/* The completion callback (DAOS calls it once, with the operation's result). */
static int completed(void *arg, daos_event_t *ev, int ret)
{
    (void)ev;
    iol_daos_pending *p = arg;
    int e = errno;
    if (ret == 0 && iol_on()) {
        iol_span sp = {p->start, iol_tick()};
        p->done(p, &sp);
    }
    give_back(p);
    errno = e;
    return 0;
}

void iol_daos_pending_arm(iol_daos_pending *p, daos_event_t *ev)
{
    int e = errno;
    p->start = iol_tick();
    __typeof__(iol_daos.daos_event_register_comp_cb) reg =
        IOL_DAOS_CALLED(daos_event_register_comp_cb);
    if (!reg || reg(ev, completed, p) != 0) {
        iol_fail(IOL_FAIL_AIO);
        give_back(p);
    }
    errno = e;
}
