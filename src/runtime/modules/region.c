/* REGION module (id 41, ours: docs/regions.md): the annotation API
 * (include/iolens/annotate.h) and one record per region name, holding how often
 * and how long the region ran and, per layer, the I/O made inside it.
 *
 * Three pieces of state:
 *   - the name table: every region name the process used, interned once
 *     (bounded: IOL_REGION_NAMES; a name beyond is not recorded and the
 *     module's partial flag says so).  It is plain process memory, so it
 *     survives a fork child's restart, which forgets the records;
 *   - per thread, the stack of open regions (name-table slots and start
 *     times; bounded depth: deeper begins are counted, not kept);
 *   - the records, found from a slot through a cached index that carries the
 *     module's activation tag (rt.h path_tag), so a restarted module's records
 *     are looked up again, never reached through a stale index.
 *
 * Attribution (iol_region_io): an operation counts in the innermost region of
 * the thread that makes it, else in the process's base region (IOLENS_REGION),
 * else nowhere.  Only the innermost region counts it, so the regions' I/O
 * sums to the I/O made inside any region.
 *
 * Locks: the module lock (registration) and the records' locks are leaves:
 * taken inside other modules' record updates and holding nothing else, so a
 * thread waits for them (iol_trylock_own) and gives up only when it holds the
 * lock itself (a signal handler interrupted an update: its event is dropped). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "../core/rt.h"
#include "../core/stats.h"
#include "region.h"

/* The annotation API, exported with the wrappers (collected by
 * src/runtime/modules.cmake; the real-function entries stay unused):
IOL_FN(REGION, void, iolens_region_begin, (const char *name))
IOL_FN(REGION, void, iolens_region_end, (const char *name))
 */

#define IOL_REGION_NAME_MAX 128        /* longer names are cut to 127 bytes */
#define IOL_REGION_DEPTH 32            /* open regions kept per thread */
#define NO_SLOT 0xffffu

typedef struct region_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[REGION_NUM_INDICES];
    double f[REGION_F_NUM_INDICES];
} region_rec;
IOL_ASSERT_RECORD_LAYOUT(region_rec, REGION);
_Static_assert(REGION_STDIO_BYTES_READ == REGION_POSIX_BYTES_READ + 4 &&
               REGION_PNETCDF_META_OPS == REGION_POSIX_BYTES_READ + 4 * IOL_REGION_LAYERS - 1 &&
               REGION_F_PNETCDF_IO_TIME == REGION_F_POSIX_IO_TIME + IOL_REGION_LAYERS - 1,
               "region.def holds one block of 4 counters and one time per layer, in layer order");

typedef struct region_aux {
    iol_lock_t lock;                   /* the record's lock (desc.rec_locks) */
} region_aux;

typedef struct region_name {
    uint64_t id;                       /* record id; 0 = free (written last) */
    uint64_t rec;                      /* cached record: path_tag << 32 | index + 1 */
    uint32_t len;
    char name[IOL_REGION_NAME_MAX];
} region_name;

typedef struct region_frame {
    const char *given;                 /* the begin's pointer: an end passing the same
                                          pointer matches without a compare */
    int64_t t0;                        /* ns since init */
    uint32_t epoch;                    /* init count at the begin (fork children) */
    uint16_t slot;
} region_frame;

typedef struct region_stack {
    int depth;                         /* may exceed IOL_REGION_DEPTH */
    region_frame f[IOL_REGION_DEPTH];
} region_stack;

int iol_region_used;
static region_name names[IOL_REGION_NAMES];
static iol_lock_t names_lock;
static uint32_t epoch;                 /* inits of this process (setup) */
static uint16_t base_slot = NO_SLOT;   /* IOLENS_REGION */
static __thread region_stack stack __attribute__((tls_model("initial-exec")));
/* Per thread, the slots of the last names begun, by the caller's pointer (most
 * callers pass a literal): a hit is checked by comparing the text, so a reused
 * buffer holding another name misses and is looked up. */
#define PTR_CACHE 8
static __thread struct {
    const char *given;
    uint16_t slot;
} ptr_cache[PTR_CACHE] __attribute__((tls_model("initial-exec")));

static inline iol_module *region_mod(void) { return iol_mod(IOL_MOD_REGION); }

/* ------------------------------------------------------------ names */
static uint16_t name_find(uint64_t id, const char *name, size_t len)
{
    for (size_t i = id & (IOL_REGION_NAMES - 1), k = 0; k < IOL_REGION_NAMES;
         k++, i = (i + 1) & (IOL_REGION_NAMES - 1)) {
        uint64_t have = __atomic_load_n(&names[i].id, __ATOMIC_ACQUIRE);
        if (have == 0)
            return NO_SLOT;
        if (have == id && names[i].len == len && memcmp(names[i].name, name, len) == 0)
            return (uint16_t)i;
    }
    return NO_SLOT;
}

/* The slot of name (cut to IOL_REGION_NAME_MAX - 1 bytes), added when new;
 * NO_SLOT when the table is full (partial flag set). */
static uint16_t name_slot(const char *name)
{
    size_t len = strnlen(name, IOL_REGION_NAME_MAX - 1);
    uint64_t id = iol_hash(name, len);
    uint16_t s = name_find(id, name, len);
    if (__builtin_expect(s != NO_SLOT, 1))
        return s;
    if (!iol_trylock_own(&names_lock))
        return NO_SLOT;                /* a signal handler inside an insertion */
    s = name_find(id, name, len);
    for (size_t i = id & (IOL_REGION_NAMES - 1), k = 0; s == NO_SLOT && k < IOL_REGION_NAMES - 1;
         k++, i = (i + 1) & (IOL_REGION_NAMES - 1)) {
        if (names[i].id != 0)
            continue;
        memcpy(names[i].name, name, len);
        names[i].name[len] = '\0';
        names[i].len = (uint32_t)len;
        __atomic_store_n(&names[i].id, id, __ATOMIC_RELEASE);
        s = (uint16_t)i;
    }
    iol_unlock(&names_lock);
    if (s == NO_SLOT)
        iol_partial_set(IOL_MOD_REGION);
    return s;
}

/* name_slot through this thread's pointer cache. */
static uint16_t name_slot_cached(const char *name)
{
    unsigned k = (unsigned)((uintptr_t)name >> 3) & (PTR_CACHE - 1);
    if (ptr_cache[k].given == name) {
        region_name *n = &names[ptr_cache[k].slot];
        if (strncmp(n->name, name, IOL_REGION_NAME_MAX - 1) == 0)   /* (as cut) */
            return ptr_cache[k].slot;
    }
    uint16_t s = name_slot(name);
    if (s != NO_SLOT) {
        ptr_cache[k].given = name;
        ptr_cache[k].slot = s;
    }
    return s;
}

/* ------------------------------------------------------------ records */
/* The record of slot s with its lock held, or NULL (module off, frozen or full,
 * or the lock already this thread's). */
static region_rec *enter_slot(uint16_t s, region_aux **auxp)
{
    iol_module *m = region_mod();
    region_name *n = &names[s];
    uint64_t cached = __atomic_load_n(&n->rec, __ATOMIC_ACQUIRE);
    uint32_t tag = __atomic_load_n(&m->path_tag, __ATOMIC_ACQUIRE);
    size_t i;
    if (tag != 0 && (uint32_t)(cached >> 32) == tag && __atomic_load_n(&m->state, __ATOMIC_ACQUIRE) == 1) {
        i = (size_t)(uint32_t)cached - 1;
    } else {
        int e = errno;                 /* activation and registration may map memory */
        if (!iol_mod_enter_leaf(m))
            return NULL;
        void *aux;
        void *r = iol_rec_get(m, n->name, n->id, &aux);
        if (r) {
            i = iol_rec_index(m, r);
            __atomic_store_n(&n->rec, (uint64_t)m->path_tag << 32 | (i + 1), __ATOMIC_RELEASE);
        }
        iol_mod_leave(m);
        errno = e;
        if (!r)
            return NULL;
    }
    region_aux *a = (region_aux *)(m->aux + i * m->d->aux_size);
    if (!iol_trylock_own(&a->lock))
        return NULL;
    if (__builtin_expect(__atomic_load_n(&m->frozen, __ATOMIC_RELAXED) != 0, 0)) {
        iol_rec_lock_frozen(&a->lock);
        return NULL;
    }
    *auxp = a;
    return (region_rec *)(m->recs + i * m->d->rec_size);
}

/* Make sure slot s has its record (registered at the first begin, so that a
 * region shows in the log even when it did no I/O): one compare when it has. */
static void touch(uint16_t s)
{
    iol_module *m = region_mod();
    uint64_t cached = __atomic_load_n(&names[s].rec, __ATOMIC_RELAXED);
    if (__builtin_expect((uint32_t)(cached >> 32) == __atomic_load_n(&m->path_tag, __ATOMIC_RELAXED) &&
                         cached != 0, 1))
        return;
    region_aux *a;
    if (enter_slot(s, &a))
        iol_unlock(&a->lock);
}

/* One finished run of a region, t0..t1 ns since init. */
static void note_run(region_rec *r, int64_t t0, int64_t t1)
{
    double s0 = iol_ns_sec(t0), s1 = iol_ns_sec(t1), d = s1 - s0;
    r->c[REGION_COUNT]++;
    r->f[REGION_F_TOTAL_TIME] += d;
    if (d > r->f[REGION_F_MAX_TIME])
        r->f[REGION_F_MAX_TIME] = d;
    if (r->f[REGION_F_START_TIMESTAMP] == 0 || s0 < r->f[REGION_F_START_TIMESTAMP])
        r->f[REGION_F_START_TIMESTAMP] = s0 > 0 ? s0 : 1e-9;   /* 0 means unset */
    if (s1 > r->f[REGION_F_END_TIMESTAMP])
        r->f[REGION_F_END_TIMESTAMP] = s1;
}

/* Add 1 to counter k of slot s's record. */
static void count_in(uint16_t s, int k)
{
    region_aux *a;
    region_rec *r = s == NO_SLOT ? NULL : enter_slot(s, &a);
    if (!r)
        return;
    r->c[k]++;
    iol_unlock(&a->lock);
}

/* A frame's start on this process's clock: a frame inherited through fork
 * started before the child's records did; its run counts from the child's
 * start (docs/regions.md, "fork"). */
static inline int64_t frame_start(const region_frame *f)
{
    return f->epoch == __atomic_load_n(&epoch, __ATOMIC_RELAXED) ? f->t0 : 0;
}

/* The slot I/O of this thread counts in (or NO_SLOT). */
static inline uint16_t current_slot(void)
{
    int d = stack.depth;
    if (d > 0)
        return stack.f[(d < IOL_REGION_DEPTH ? d : IOL_REGION_DEPTH) - 1].slot;
    return __atomic_load_n(&base_slot, __ATOMIC_RELAXED);
}

int iol_region_slot_now(void)
{
    uint16_t s = current_slot();
    if (s == NO_SLOT)
        return stack.depth > 0 ? IOL_REGION_UNRECORDED : IOL_REGION_OUTSIDE;
    return s;
}

uint64_t iol_region_slot_id(int slot)
{
    return __atomic_load_n(&names[slot].id, __ATOMIC_ACQUIRE);
}

void iol_region_io_slow(int layer, int op, int64_t bytes, double secs)
{
    uint16_t s = current_slot();
    if (s == NO_SLOT)
        return;
    region_aux *a;
    region_rec *r = enter_slot(s, &a);   /* (keeps errno) */
    if (!r)
        return;
    int64_t *c = &r->c[REGION_POSIX_BYTES_READ + 4 * layer];
    if (op == IOL_REGION_META) {
        c[3]++;
    } else {
        c[op == IOL_REGION_WRITE ? 1 : 0] += bytes;
        c[2]++;
    }
    r->f[REGION_F_POSIX_IO_TIME + layer] += secs;
    iol_unlock(&a->lock);
}

/* ------------------------------------------------------------ the API */
/* iol_on() keeping errno (a first call may initialise the runtime). */
static inline int region_on(void)
{
    if (__builtin_expect(iol_on_fast(), 1))
        return 1;
    int e = errno, on = iol_on_slow();
    errno = e;
    return on;
}

void iolens_region_begin(const char *name)
{
    if (!name || !region_on())
        return;
    region_stack *st = &stack;
    uint16_t s = name_slot_cached(name);
    __atomic_store_n(&iol_region_used, 1, __ATOMIC_RELAXED);
    if (s != NO_SLOT)
        touch(s);
    if (st->depth < IOL_REGION_DEPTH) {
        region_frame *f = &st->f[st->depth];
        f->given = name;
        f->slot = s;
        f->epoch = __atomic_load_n(&epoch, __ATOMIC_RELAXED);
        f->t0 = iol_tick_ns(iol_tick());
    } else {
        count_in(s, REGION_DEPTH_OVERFLOWS);
    }
    /* Published after the frame: a signal handler sees a whole frame or none. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    st->depth++;
}

void iolens_region_end(const char *name)
{
    region_stack *st = &stack;
    if (!name || st->depth == 0 || !region_on())
        return;
    if (st->depth > IOL_REGION_DEPTH) {    /* a begin that was only counted */
        st->depth--;
        return;
    }
    region_frame *f = &st->f[st->depth - 1];
    region_name *n = f->slot == NO_SLOT ? NULL : &names[f->slot];
    if (f->given != name && (!n || strncmp(n->name, name, IOL_REGION_NAME_MAX - 1) != 0)) {
        if (n)
            count_in(f->slot, REGION_UNMATCHED_ENDS);   /* on the region left open */
        return;
    }
    int64_t t1 = iol_tick_ns(iol_tick());
    st->depth--;
    region_aux *a;
    region_rec *r = n ? enter_slot(f->slot, &a) : NULL;
    if (r) {
        note_run(r, frame_start(f), t1);
        iol_unlock(&a->lock);
    }
}

/* ------------------------------------------------------------ descriptor */
/* Every init (the first, and a fork child's restart): a new epoch, and the
 * base region of IOLENS_REGION. */
static void setup(iol_module *m)
{
    static pid_t setup_pid;
    (void)m;
    if (setup_pid != 0 && setup_pid != getpid())
        iol_unlock(&names_lock);       /* a fork child: a parent thread may have held it */
    setup_pid = getpid();
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELAXED);
    if (iol_cfg.region[0] == '\0')
        return;
    uint16_t s = name_slot(iol_cfg.region);
    __atomic_store_n(&base_slot, s, __ATOMIC_RELAXED);
    __atomic_store_n(&iol_region_used, 1, __ATOMIC_RELAXED);
    if (s != NO_SLOT)
        touch(s);
}

/* Shutdown, on the thread that writes the log: the regions still open on it,
 * and the base region, ran until now. */
static void close_open(iol_module *m, uint16_t s, int64_t t0, int64_t now)
{
    void *aux;
    region_rec *r = iol_rec_get(m, names[s].name, names[s].id, &aux);
    if (!r)
        return;
    note_run(r, t0, now);
    r->c[REGION_COUNT]--;              /* not ended: counted apart */
    r->c[REGION_OPEN_AT_END]++;
}

static void finish(iol_module *m)
{
    int64_t now = iol_tick_ns(iol_tick());
    int d = stack.depth < IOL_REGION_DEPTH ? stack.depth : IOL_REGION_DEPTH;
    for (int k = 0; k < d; k++)
        if (stack.f[k].slot != NO_SLOT)
            close_open(m, stack.f[k].slot, frame_start(&stack.f[k]), now);
    if (base_slot != NO_SLOT)
        close_open(m, base_slot, 0, now);
}

const iol_module_desc iol_region_module = {
    IOL_MODULE_IDENTITY(REGION),
    .rec_size = sizeof(region_rec),
    .aux_size = sizeof(region_aux),
    .default_records = 256,            /* a program has few phases; 280 bytes each of
                                          the MODMEM pool the file modules share */
    .rec_locks = 1,
    .setup = setup,
    .finish = finish,
};
