/* LUSTRE module (id 8, record version 2; runtime spec section 7, log-format spec
 * 7.9): the striping of every file on Lustre that the application closes.
 *
 * When: the POSIX close and STDIO fclose wrappers call iol_lustre_closing before
 * the real close, only when the node mounts Lustre (iol_lustre_mounted, rt.h).
 * Each close of a Lustre file reads its layout again, so the last close wins and
 * the components a PFL file instantiated while it grew are in the record.
 *
 * Which files: a file whose path lies under a Lustre mount (the mount table's
 * statfs magic, read once at init) is queried at once; any other file is asked
 * fstatfs once (a path through a symbolic link into Lustre is found that way),
 * and a file that is not on Lustre is remembered as such, so it costs nothing at
 * its later closes.
 *
 * The layout: the `lustre.lov` extended attribute (fgetxattr, as upstream since
 * 3.3.0), parsed by lustre_lov.c and turned into the record by
 * lustre_record.c.  Upstream hands the same bytes to liblustreapi's parser; we
 * parse them ourselves, so nothing is loaded into the application.
 *
 * Memory: records live in the module's own arena (own_memory), upstream's
 * reservation of 1024 records x 1 KiB, or MAX_RECORDS n LUSTRE x 1 KiB; records
 * differ in size, and a record that outgrows its place (more OSTs than when it
 * was first seen) moves to the end.  When the arena or the id table is full, the
 * file gets no record and the module's partial flag is set.  The arena is not in
 * the safety copy: a crashed process's log has no LUSTRE records. */
#include <errno.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/xattr.h>

#include "../core/rt.h"
#include "lustre.h"
#include "lustre_layout.h"

#define LL_SUPER_MAGIC 0x0BD00BD0
#define RECORD_BUDGET 1024            /* bytes of arena per record (upstream: 1 KiB) */
#define DEFAULT_RECORDS 1024
#define SCRATCH_RECORD (32 + 72 * IOL_LUSTRE_MAX_COMPS + 8 * IOL_LUSTRE_MAX_OSTS)

enum { SLOT_EMPTY = 0, SLOT_NOT_LUSTRE = 1, SLOT_RECORD = 2 };
typedef struct slot {
    uint64_t id;
    uint32_t off;                     /* SLOT_RECORD: the entry's offset in the arena */
    uint32_t state;
} slot;

/* An arena entry: this header, then the record (cap bytes reserved). */
enum { ENTRY_DEAD = 0, ENTRY_LIVE = 1, ENTRY_SHARED = 2 };
typedef struct entry {
    uint32_t cap, state;
} entry;

static struct {
    uint8_t *arena;
    size_t arena_len, used;
    slot *slots;
    size_t nslots, nfilled;
    uint8_t *scratch;                 /* xattr value, layout, record under construction */
    size_t scratch_len;
    iol_lustre_layout *layout;
    uint8_t *record;
    size_t out_len;                   /* the payload, once output has packed it */
    int packed;
} st;

static void unmap_all(void)
{
    iol_unmap(st.arena, st.arena_len);
    iol_unmap(st.slots, st.nslots * sizeof *st.slots);
    iol_unmap(st.scratch, st.scratch_len);
    memset(&st, 0, sizeof st);
}

static void activate(iol_module *m)
{
    int64_t n = iol_cfg.max_records[IOL_MOD_LUSTRE];
    size_t records = n > 0 ? (size_t)n : DEFAULT_RECORDS;
    if (records > ((size_t)1 << 22))
        records = (size_t)1 << 22;   /* 4 GiB of arena: offsets stay 32-bit */
    memset(&st, 0, sizeof st);
    st.arena_len = records * RECORD_BUDGET;
    st.nslots = 64;
    while (st.nslots < 4 * records)
        st.nslots <<= 1;
    st.scratch_len = IOL_LUSTRE_XATTR_MAX + sizeof(iol_lustre_layout) + SCRATCH_RECORD;
    st.arena = iol_map(st.arena_len);
    st.slots = iol_map(st.nslots * sizeof *st.slots);
    st.scratch = iol_map(st.scratch_len);
    if (!st.arena || !st.slots || !st.scratch) {
        unmap_all();
        iol_fail(IOL_FAIL_MEMORY);
        m->state = -1;
        return;
    }
    st.layout = (iol_lustre_layout *)(st.scratch + IOL_LUSTRE_XATTR_MAX);
    st.record = st.scratch + IOL_LUSTRE_XATTR_MAX + sizeof(iol_lustre_layout);
}

/* The slot of id, or the empty slot where it would go (the table is never more
 * than three quarters full, so the probe ends). */
static slot *slot_of(uint64_t id)
{
    size_t mask = st.nslots - 1;
    for (size_t i = (size_t)(id ^ (id >> 29)) & mask;; i = (i + 1) & mask)
        if (st.slots[i].state == SLOT_EMPTY || st.slots[i].id == id)
            return &st.slots[i];
}

static int on_lustre(int fd, uint64_t id)
{
    const char *name = iol_name_of(id);
    if (name && iol_mount_on_lustre(name))
        return 1;
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && sf.f_type == LL_SUPER_MAGIC;
}

/* The record of fd's layout in st.record; its length, or 0 (no layout). */
static size_t query(int fd, uint64_t id)
{
    ssize_t n = fgetxattr(fd, "lustre.lov", st.scratch, IOL_LUSTRE_XATTR_MAX);
    if (n <= 0 || iol_lov_parse(st.scratch, (size_t)n, st.layout) != 0)
        return 0;
    return iol_lustre_record_build(st.layout, id, iol_rank, st.record, SCRATCH_RECORD);
}

static void cut(void)
{
    iol_partial_set(IOL_MOD_LUSTRE);
}

/* Put the record (len bytes in st.record) in the arena: in place when it fits
 * the entry it has, else in a new entry. */
static void store(slot *s, uint64_t id, size_t len)
{
    if (s->state == SLOT_RECORD) {
        entry *e = (entry *)(st.arena + s->off);
        if (e->cap >= len) {
            memcpy(e + 1, st.record, len);
            return;
        }
    } else if (st.nfilled >= st.nslots / 4 * 3) {
        cut();
        return;
    }
    size_t need = sizeof(entry) + len;
    if (need > st.arena_len - st.used) {
        cut();                       /* an entry that has one keeps its older layout */
        return;
    }
    entry *e = (entry *)(st.arena + st.used);
    e->cap = (uint32_t)len;
    e->state = ENTRY_LIVE;
    memcpy(e + 1, st.record, len);
    if (s->state == SLOT_RECORD)
        ((entry *)(st.arena + s->off))->state = ENTRY_DEAD;
    else
        st.nfilled++;
    s->id = id;
    s->off = (uint32_t)st.used;
    s->state = SLOT_RECORD;
    st.used += need;
}

void iol_lustre_closing(int fd, uint64_t id)
{
    iol_module *m = iol_mod(IOL_MOD_LUSTRE);
    int saved = errno;
    if (!iol_mod_enter(m)) {
        errno = saved;
        return;
    }
    slot *s = slot_of(id);
    if (s->state == SLOT_EMPTY && !on_lustre(fd, id)) {
        if (st.nfilled < st.nslots / 2) {   /* a full table just asks again */
            s->id = id;
            s->state = SLOT_NOT_LUSTRE;
            st.nfilled++;
        }
    } else if (s->state != SLOT_NOT_LUSTRE) {
        size_t len = query(fd, id);
        if (len)
            store(s, id, len);
    }
    iol_mod_leave(m);
    errno = saved;
}

/* ------------------------------------------------------------ shutdown */
static void finish(iol_module *m)
{
    m->count = 0;
    for (size_t off = 0; off < st.used; off += sizeof(entry) + ((entry *)(st.arena + off))->cap)
        m->count += ((entry *)(st.arena + off))->state != ENTRY_DEAD;
}

static int holds(iol_module *m, uint64_t id)
{
    (void)m;
    slot *s = slot_of(id);
    return s->state == SLOT_RECORD && s->id == id;
}

/* MPI: the records every process holds are written once, by process 0, with
 * rank -1 (runtime spec 7: no merge; the layout is the file's, not the
 * process's).  ids are sorted. */
static void shared(iol_module *m, const uint64_t *ids, size_t n, int keep)
{
    for (size_t i = 0; i < n; i++) {
        slot *s = slot_of(ids[i]);
        if (s->state != SLOT_RECORD || s->id != ids[i])
            continue;
        entry *e = (entry *)(st.arena + s->off);
        if (e->state == ENTRY_DEAD)
            continue;
        e->state = keep ? ENTRY_SHARED : ENTRY_DEAD;
        if (!keep)
            m->count--;
    }
}

/* The live records packed at the start of the arena, each with its final rank
 * (the process's rank now: a record made before MPI_Init said 0). */
static size_t output(iol_module *m, void **payload)
{
    (void)m;
    if (!st.packed) {
        size_t to = 0, off = 0;
        while (off < st.used) {
            entry *e = (entry *)(st.arena + off);
            size_t cap = e->cap, len = iol_lustre_record_len(e + 1, cap);
            int state = (int)e->state;
            off += sizeof(entry) + cap;
            if (state == ENTRY_DEAD || !len)
                continue;
            uint8_t *rec = (uint8_t *)(e + 1);
            int64_t rank = state == ENTRY_SHARED ? -1 : iol_rank;
            memcpy(rec + 8, &rank, 8);
            memmove(st.arena + to, rec, len);
            to += len;
        }
        st.out_len = to;
        st.packed = 1;
    }
    *payload = st.arena;
    return st.out_len;
}

static void reset(iol_module *m)
{
    (void)m;
    unmap_all();
}

const iol_module_desc iol_lustre_module = {
    IOL_MODULE_IDENTITY(LUSTRE),
    .own_memory = 1,
    .activate = activate,
    .finish = finish,
    .output = output,
    .reset = reset,
    .holds = holds,
    .shared = shared,
};
