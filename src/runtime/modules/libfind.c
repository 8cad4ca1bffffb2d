/* iol_find_real (libfind.h). */
#include "libfind.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

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
