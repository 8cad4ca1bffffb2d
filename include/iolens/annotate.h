/* Regions: name the phases of a program so that iolens attributes the I/O done
 * inside each one (docs/regions.md).
 *
 *     #include <iolens/annotate.h>
 *     iolens_region_begin("checkpoint");
 *     ... write ...
 *     iolens_region_end("checkpoint");
 *
 * Regions nest; each thread has its own stack of open regions, and an
 * operation counts in the innermost region open on the thread that makes it
 * (or, with none open, in the region IOLENS_REGION names for the process).
 * An end that does not name the innermost open region is counted and ignored.
 *
 * No link dependency: the two functions are weak references, resolved only
 * when the iolens runtime is in the process (preloaded, or linked).  Without
 * it they are null and the calls below do nothing, so a program built with
 * this header links and runs with or without iolens.  Define
 * IOLENS_ANNOTATE_NO_MACROS to call the functions directly (they must then be
 * present). */
#ifndef IOLENS_ANNOTATE_H
#define IOLENS_ANNOTATE_H

#ifdef __cplusplus
extern "C" {
#endif

void iolens_region_begin(const char *name) __attribute__((weak));
void iolens_region_end(const char *name) __attribute__((weak));

#ifndef IOLENS_ANNOTATE_NO_MACROS
/* The calls as a program writes them: a test of the weak reference, then the
 * call.  (The macros are defined after these, so the names inside refer to
 * the functions.) */
static inline void iolens_region_begin_if_present(const char *name)
{
    if (iolens_region_begin)
        iolens_region_begin(name);
}
static inline void iolens_region_end_if_present(const char *name)
{
    if (iolens_region_end)
        iolens_region_end(name);
}
#define iolens_region_begin(name) iolens_region_begin_if_present(name)
#define iolens_region_end(name) iolens_region_end_if_present(name)
#endif

#ifdef __cplusplus
}
#endif
#endif
