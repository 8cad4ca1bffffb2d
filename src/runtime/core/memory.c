/* All runtime memory comes from here: anonymous mappings from the real mmap, never
 * malloc, so a wrapper never re-enters an allocator (runtime spec section 4).  A
 * failed mapping is counted (reported once at shutdown) and returns NULL. */
#include <sys/mman.h>

#include "../wrappers/real.h"
#include "rt.h"

void *iol_map(size_t len)
{
    if (len == 0)
        len = 1;
    void *p = IOL_REAL(mmap)(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        iol_fail(IOL_FAIL_MEMORY);
        return NULL;
    }
    return p;
}

void iol_unmap(void *p, size_t len)
{
    if (p)
        munmap(p, len ? len : 1);
}
