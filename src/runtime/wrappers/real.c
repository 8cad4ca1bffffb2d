/* Resolution of the real functions with dlsym(RTLD_NEXT), once per symbol. */
#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "../core/rt.h"

iol_real_table iol_real;

static const struct {
    const char *name;
    size_t off;
} ENTRIES[] __attribute__((unused)) = {
#define IOL_FN(mod, ret, name, params) {#name, offsetof(iol_real_table, name)},
#include "intercept.def"
#undef IOL_FN
};

/* What a missing symbol turns into: an error return for int-like calls.  Only
 * reached when libc lacks a function the application nonetheless called. */
static long missing(void)
{
    errno = ENOSYS;
    return -1;
}

void *iol_real_resolve(const char *name, void **slot)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        iol_fail(IOL_FAIL_SYMBOL);
        p = (void *)missing;
    }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}

void iol_real_resolve_all(void)
{
#ifndef IOL_STATIC_WRAP   /* otherwise the linker resolved the __real_ names */
    for (size_t i = 0; i < sizeof ENTRIES / sizeof ENTRIES[0]; i++) {
        void **slot = (void **)((char *)&iol_real + ENTRIES[i].off);
        if (!*slot) {
            void *p = dlsym(RTLD_NEXT, ENTRIES[i].name);
            if (p)   /* absent optional symbols stay NULL until an app calls them */
                __atomic_store_n(slot, p, __ATOMIC_RELEASE);
        }
    }
#define IOL_RESOLVE_ALWAYS(name) \
    if (!iol_real.name)          \
        iol_real_resolve(#name, (void **)&iol_real.name);
    IOL_ALWAYS_REAL(IOL_RESOLVE_ALWAYS)
#undef IOL_RESOLVE_ALWAYS
#endif
}
