/* REGION module: what the I/O modules call to attribute an operation to the
 * calling thread's innermost open region (docs/regions.md).  The test on the
 * I/O paths is one load of a process-wide word that stays 0 until the process
 * opens its first region (or IOLENS_REGION names one): a program that never
 * annotates pays one compare per operation and nothing else. */
#ifndef IOLENS_RUNTIME_REGION_H
#define IOLENS_RUNTIME_REGION_H

#include <stdint.h>
#include "../core/stats.h"

/* The layers a region's record counts, in the order of their counter blocks in
 * counters/region.def. */
enum iol_region_layer {
    IOL_REGION_POSIX, IOL_REGION_STDIO, IOL_REGION_MPIIO, IOL_REGION_HDF5,
    IOL_REGION_PNETCDF, IOL_REGION_LAYERS
};
/* What one operation was. */
enum iol_region_op { IOL_REGION_READ, IOL_REGION_WRITE, IOL_REGION_META };

/* Non-zero once any region exists in the process (never reset: a fork child
 * inherits its parent's stacks). */
extern int iol_region_used __attribute__((visibility("hidden")));

void iol_region_io_slow(int layer, int op, int64_t bytes, double secs);

/* The region the calling thread's I/O counts in (the same rule as
 * iol_region_io): its name-table slot, IOL_REGION_OUTSIDE outside every region,
 * or IOL_REGION_UNRECORDED inside one whose name found no room.  And the REGION
 * record id of a slot. */
enum { IOL_REGION_OUTSIDE = -1, IOL_REGION_UNRECORDED = -2 };

/* Distinct region names per process (a power of 2): the slots of region.c's name
 * table, which a DXT store maps to its own region table (dxt.h). */
#define IOL_REGION_NAMES 1024
int iol_region_slot_now(void) __attribute__((visibility("hidden")));
uint64_t iol_region_slot_id(int slot) __attribute__((visibility("hidden")));

/* Attribute one operation of `layer` (bytes moved, t1..t2 its seconds since
 * init) to the calling thread's innermost region.  Callable with any I/O
 * module's record lock held: the REGION locks are leaves (region.c). */
static inline __attribute__((always_inline)) void iol_region_io(int layer, int op, int64_t bytes,
                                                                double t1, double t2)
{
    if (__builtin_expect(__atomic_load_n(&iol_region_used, __ATOMIC_RELAXED) != 0, 0))
        iol_region_io_slow(layer, op, bytes, t2 - t1);
}
/* The same with the readings in nanoseconds since init. */
static inline __attribute__((always_inline)) void iol_region_io_ns(int layer, int op, int64_t bytes,
                                                                   int64_t d1, int64_t d2)
{
    if (__builtin_expect(__atomic_load_n(&iol_region_used, __ATOMIC_RELAXED) != 0, 0))
        iol_region_io_slow(layer, op, bytes, iol_ns_sec(d2 - d1));
}
/* The same with a wrapper's clock readings (converted only when regions are on). */
static inline void iol_region_io_span(int layer, int op, int64_t bytes, const iol_span *sp)
{
    if (__builtin_expect(__atomic_load_n(&iol_region_used, __ATOMIC_RELAXED) != 0, 0)) {
        double t1, t2;
        iol_span_sec(sp, &t1, &t2);
        iol_region_io_slow(layer, op, bytes, t2 - t1);
    }
}

#endif
