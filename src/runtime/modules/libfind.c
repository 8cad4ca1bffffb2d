/* iol_find_real (libfind.h). */
#include "libfind.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stddef.h>

#include "../core/rt.h"

typedef struct lookup {
    const char *name;
    void *runtime_base;      /* our own object: its definitions are the wrappers */
    void *found;
} lookup;

static int look_in(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    lookup *l = arg;
    if (!info->dlpi_name || !info->dlpi_name[0] || (void *)info->dlpi_addr == l->runtime_base)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *p = dlsym(h, l->name);
    Dl_info where;
    if (p && dladdr(p, &where) && where.dli_fbase != l->runtime_base)
        l->found = p;
    dlclose(h);
    return l->found != NULL;
}

void *iol_find_real(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p)
        return p;
    lookup l = {name, NULL, NULL};
    Dl_info self;
    if (dladdr((void *)iol_find_real, &self))
        l.runtime_base = self.dli_fbase;
    dl_iterate_phdr(look_in, &l);
    return l.found;
}

/* What a missing symbol turns into. */
static long missing(void)
{
    return -1;
}

void *iol_find_real_slot(const char *name, void **slot)
{
    int e = errno;
    void *p = iol_find_real(name);
    if (!p) {
        iol_fail(IOL_FAIL_SYMBOL);
        p = (void *)missing;
    }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    errno = e;
    return p;
}

int iol_lib_ready(iol_lib_once *once, int (*resolve)(void))
{
    int s = __atomic_load_n(&once->state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != 0, 1))
        return s > 0;
    while (__atomic_exchange_n(&once->lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    if (once->state == 0) {
        int e = errno;
        s = resolve() > 0 ? 1 : -1;
        if (s < 0)
            iol_fail(IOL_FAIL_SYMBOL);
        errno = e;
        __atomic_store_n(&once->state, s, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&once->lock, 0, __ATOMIC_RELEASE);
    return once->state > 0;
}
