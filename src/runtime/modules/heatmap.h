/* The heat-map API (runtime spec section 6), defined in heatmap.c: the modules
 * that move data (POSIX, STDIO, MPI-IO) register a heat map and add each
 * operation's bytes to it; the HEATMAP module writes them out.
 *
 * Threads: every thread adds to a map of its own (iol_hm_map), so that threads
 * working on different files never write one cache line.  A heat map's first
 * thread map is the HEATMAP record itself (in the safety copy); the next
 * IOL_HM_THREADS - 1 threads get private maps, and threads beyond those, or a
 * signal handler that interrupts this thread's update, share one map under a
 * lock.  A thread that exits gives its maps back (a pthread key's destructor) and
 * a later thread takes them over, bins and all: so the pool limits the threads
 * alive at once, not the threads ever started.  At output the maps are summed
 * into the record (heatmap.c): every map bins its ops exactly as the record
 * alone would, and collapsing (merging neighbour bins) commutes with adding, so
 * a single-threaded run writes the same record as before, and the bins of any
 * run add up to its bytes.  A killed multi-threaded process's recovered heat map
 * holds only the record's map: the first thread's ops, and those of the threads
 * that took that map over (docs/recovery.md). */
#ifndef IOLENS_RUNTIME_HEATMAP_H
#define IOLENS_RUNTIME_HEATMAP_H

#include <stdint.h>

#include "../core/rt.h"

#define IOL_HEATMAP_BINS 200
#define IOL_HM_THREADS 64           /* maps per heat map, the record's included */
#define IOL_MAX_HEATMAPS 8

/* The shortcut to a map's current bin: while an op lies in [lo, hi) it falls in
 * the one bin that the exact update would choose, so its bytes are added there
 * directly (3 compares and an add).  Filled after every miss (heatmap.c) and
 * valid until that map's next slow update (bins only move there).  Filled
 * pointers first, then lo, then hi, and cleared before the map changes, so a
 * signal handler on this thread never takes a half-filled shortcut. */
typedef struct iol_hm_cache {
    double lo, hi;
    int64_t *write_bin, *read_bin;
} iol_hm_cache;

/* One thread's map of one heat map: its bins, its bin width, its shortcut.
 * Written only by its thread (or, for the shared map, under the handle's lock);
 * read by the output after every module is frozen. */
typedef struct iol_hm_map {
    iol_hm_cache c;
    int64_t *write_bins, *read_bins;
    double *width;                     /* the record's width, or own_width */
    double inv_width, limit;           /* 1 / width; width * IOL_HEATMAP_BINS */
    double own_width;
    int busy;                          /* this thread is inside an update of it */
} __attribute__((aligned(64))) iol_hm_map;

/* A registered heat map ("POSIX", "STDIO", ...). */
typedef struct iol_heatmap {
    void *rec;                         /* the HEATMAP record */
    int index;                         /* its slot: into iol_hm_mine */
    int rec_index;                     /* the record's index in the HEATMAP module */
    unsigned claimed;                  /* maps handed out (atomic) */
    iol_hm_map *maps[IOL_HM_THREADS];  /* [0]: the record's */
    iol_lock_t shared_lock;
    iol_hm_map *shared;                /* for threads beyond the pool; NULL until needed */
    int gathered;                      /* the maps were summed into the record (output) */
    uint64_t shared_ops;               /* ops added to the shared map (its lock held) */
    /* Maps given back by exited threads, for the next thread to take (pool_lock
     * held; nfree also read without it as a hint). */
    iol_lock_t pool_lock;
    unsigned nfree;
    uint64_t reused;                   /* maps taken from free[] */
    iol_hm_map *free[IOL_HM_THREADS];
} iol_heatmap;

/* This thread's map of each heat map (by slot), &iol_hm_none before its first op.  A
 * fork child's only thread forgets them when the records start again.  Each
 * API has a constant slot, so that the data path finds its map with one
 * thread-local load at a fixed offset. */
enum { IOL_HM_SLOT_POSIX, IOL_HM_SLOT_STDIO, IOL_HM_SLOT_MPIIO, IOL_HM_SLOT_DFS, IOL_HM_SLOT_DAOS };
extern __thread iol_hm_map *iol_hm_mine[IOL_MAX_HEATMAPS] __attribute__((tls_model("initial-exec")));
/* What iol_hm_mine holds before a thread's first op (and after a reset): a map
 * whose shortcut is empty, so that the data path needs no NULL test. */
extern iol_hm_map iol_hm_none __attribute__((visibility("hidden")));

/* Register the heatmap of an API, with its slot (< IOL_MAX_HEATMAPS, one per
 * API); returns its handle or NULL.  Called from the module's activation. */
iol_heatmap *iol_heatmap_register(const char *api, int slot);
/* The miss: claim this thread's map if needed, spread the op, refill the
 * shortcut (or use the shared map under its lock).  Keeps errno. */
void iol_hm_add_slow(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write);

/* This thread's map of h (claimed now), or NULL when the pool is used up. */
iol_hm_map *iol_hm_this_thread(iol_heatmap *h);
/* The exact update on this thread's map, without the shortcut (ignores h ==
 * NULL and bytes <= 0), and the spread alone (tests compare the paths). */
void iol_heatmap_update(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write);
void iol_heatmap_spread(iol_heatmap *h, double t1, double t2, int64_t bytes, int is_write);

/* Add an op's bytes (bytes >= 0; h may be NULL) to heat map h of slot `slot`
 * (a constant): under the lock of the record the op belongs to, never under a
 * lock common to the threads.  A thread has a map only of a registered h. */
static inline __attribute__((always_inline)) void iol_hm_add(iol_heatmap *h, const int slot,
                                                              double t1, double t2, int64_t bytes,
                                                              const int is_write)
{
    iol_hm_map *t = iol_hm_mine[slot];
    if (__builtin_expect(t1 >= t->c.lo && t1 <= t2 && t2 < t->c.hi, 1)) {
        /* One instruction, so that a signal handler's add on this thread (which
         * takes the same shortcut) cannot fall between a load and a store.  (A
         * handler's own miss between the pointer load and this add could still
         * collapse the map under it, moving these bytes by a bin: that needs a
         * handler doing I/O at the moment the run's length doubles.) */
        int64_t *bin = is_write ? t->c.write_bin : t->c.read_bin;
#if defined(__x86_64__)
        __asm__("addq %1, %0" : "+m"(*bin) : "er"(bytes));
#else
        *bin += bytes;
#endif
        return;
    }
    if (h)
        iol_hm_add_slow(h, t1, t2, bytes, is_write);
}

#endif
