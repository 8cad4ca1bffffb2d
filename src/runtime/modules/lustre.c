/* LUSTRE module (id 8, record version 2; runtime spec section 7, log-format spec
 * 7.9): the striping of every file on Lustre that the application closes.
 *
 * When: the POSIX close and STDIO fclose paths call iol_lustre_closing before
 * the real close, only when the node mounts Lustre (lustre.h says how that costs
 * the close paths nothing on other nodes).
 * Each close of a Lustre file reads its layout again, so the last close wins and
 * the components a PFL file instantiated while it grew are in the record.
 *
 * Which files: a file whose path lies under a Lustre mount (the mount table's
 * statfs magic, read once at init) is queried at once; any other file is asked
 * fstatfs once (a path through a symbolic link into Lustre is found that way),
 * and a file that is not on Lustre is remembered as such, so it costs nothing at
 * its later closes.
 *
 * The layout: from liblustreapi when it is in the process or could be loaded at
 * init (lustre_api.c; found once by the setup callback below, on a node that
 * mounts Lustre, unless the module is off or IOLENS_NO_LUSTRE_API is set); else, and when
 * any of its calls fails for a file, from the `lustre.lov` extended attribute
 * (fgetxattr, as upstream since 3.3.0) parsed by lustre_lov.c.  Either fills one
 * iol_lustre_layout, which lustre_record.c turns into the record.
 *
 * Memory: records live in the module's own store (own_memory; the format is
 * include/iolens/lustre_store.h), upstream's reservation of 1024 records x 1 KiB,
 * or MAX_RECORDS n LUSTRE x 1 KiB; records differ in size, and a record that
 * outgrows its place (more OSTs than when it was first seen) moves to the end.
 * When the store or the id table is full, the file gets no record and the
 * module's partial flag is set.
 *
 * Crash safety: the store is a file beside the safety copy (<copy>.lustre,
 * iol_safety_sidecar) when there is one, so a killed process's LUSTRE records are
 * recovered with its counters (`iolens recover`, docs/recovery.md); without a
 * copy it is anonymous memory.  The store is written so that any prefix of its
 * stores decodes (see its header); a close whose layout did not change writes
 * nothing.  Nothing of this runs on a node without Lustre: the module is never
 * activated there. */
#include <errno.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/xattr.h>

#include "../core/rt.h"
#include "../core/safety.h"
#include "iolens/lustre_store.h"
#include "lustre.h"
#include "lustre_api.h"
#include "lustre_layout.h"

#define LL_SUPER_MAGIC 0x0BD00BD0
#define RECORD_BUDGET 1024            /* bytes of store per record (upstream: 1 KiB) */
#define DEFAULT_RECORDS 1024
#define SCRATCH_RECORD (32 + 72 * IOL_LUSTRE_MAX_COMPS + 8 * IOL_LUSTRE_MAX_OSTS)
_Static_assert(IOL_LUSTRE_MAX_COMPS == IOLENS_LUSTRE_MAX_COMPS &&
               IOL_LUSTRE_MAX_OSTS == IOLENS_LUSTRE_MAX_OSTS, "one set of record bounds");
_Static_assert(IOL_MOD_LUSTRE_VERSION == IOLENS_LUSTRE_STORE_VERSION, "the store's records");

/* A slot's kind, and the marks of the MPI shared-record step (shutdown only). */
enum { SLOT_EMPTY = 0, SLOT_NOT_LUSTRE = 1, SLOT_RECORD = 2, SLOT_KIND = 0xFF,
       SLOT_SHARED = 0x100, SLOT_DROPPED = 0x200 };
typedef struct slot {
    uint64_t id;
    uint32_t off;                     /* SLOT_RECORD: the entry's offset in the store */
    uint32_t state;
} slot;

static struct {
    uint8_t *store;
    size_t store_len, used;
    slot *slots;
    size_t nslots, nfilled;
    uint8_t *scratch;                 /* xattr value, layout, record under construction */
    size_t scratch_len;
    iol_lustre_layout *layout;
    uint8_t *record;
    uint8_t *out;                     /* the payload, once output has packed it */
    size_t out_cap, out_len;
    int packed;
} st;

static void unmap_all(void)
{
    iol_unmap(st.store, st.store_len);
    iol_unmap(st.slots, st.nslots * sizeof *st.slots);
    iol_unmap(st.scratch, st.scratch_len);
    iol_unmap(st.out, st.out_cap);
    memset(&st, 0, sizeof st);
}

/* At init: liblustreapi is looked for only where it can be of use. */
static void setup(iol_module *m)
{
    (void)m;
    if (iol_lustre_mounted && !iol_cfg.lustre_no_api)
        iol_lustre_api_resolve();
}

static void activate(iol_module *m)
{
    int64_t n = iol_cfg.max_records[IOL_MOD_LUSTRE];
    size_t records = n > 0 ? (size_t)n : DEFAULT_RECORDS;
    if (records > ((size_t)1 << 22))
        records = (size_t)1 << 22;   /* 4 GiB of store: offsets stay 32-bit */
    memset(&st, 0, sizeof st);
    st.store_len = IOLENS_LUSTRE_STORE_HDR + records * RECORD_BUDGET;
    st.nslots = 64;
    while (st.nslots < 4 * records)
        st.nslots <<= 1;
    st.scratch_len = IOL_LUSTRE_XATTR_MAX + sizeof(iol_lustre_layout) + SCRATCH_RECORD;
    st.slots = iol_map(st.nslots * sizeof *st.slots);
    st.scratch = iol_map(st.scratch_len);
    if (!st.slots || !st.scratch) {
        unmap_all();
        iol_fail(IOL_FAIL_MEMORY);
        m->state = -1;
        iol_partial_set(IOL_MOD_LUSTRE);
        return;
    }
    st.layout = (iol_lustre_layout *)(st.scratch + IOL_LUSTRE_XATTR_MAX);
    st.record = st.scratch + IOL_LUSTRE_XATTR_MAX + sizeof(iol_lustre_layout);
}

/* The store, made at the first record (not at activation, which the first close
 * of any file on a Lustre node causes: a process that never touches a Lustre
 * file makes no sidecar): the file beside the safety copy (as DXT's store is at
 * its first use; its I/O unrecorded), else anonymous memory.  0, or -1. */
static int make_store(void)
{
    st.store = iol_safety_sidecar(IOLENS_LUSTRE_STORE_SUFFIX, st.store_len);
    if (!st.store)
        st.store = iol_map(st.store_len);
    if (!st.store) {
        iol_fail(IOL_FAIL_MEMORY);
        iol_partial_set(IOL_MOD_LUSTRE);
        return -1;
    }
    st.used = IOLENS_LUSTRE_STORE_HDR;
    uint32_t version = IOL_MOD_LUSTRE_VERSION;
    memcpy(st.store + 8, &version, 4);
    __atomic_signal_fence(__ATOMIC_RELEASE);
    memcpy(st.store, IOLENS_LUSTRE_STORE_MAGIC, 8);   /* last: a store is complete */
    return 0;
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
    if (iol_lustre_api_layout(fd, st.layout) != 0) {
        ssize_t n = fgetxattr(fd, "lustre.lov", st.scratch, IOL_LUSTRE_XATTR_MAX);
        if (n <= 0 || iol_lov_parse(st.scratch, (size_t)n, st.layout) != 0)
            return 0;
    }
    return iol_lustre_record_build(st.layout, id, iol_rank, st.record, SCRATCH_RECORD);
}

static void cut(void)
{
    iol_partial_set(IOL_MOD_LUSTRE);
}

/* An entry's word (lustre_store.h), published after what it covers. */
static void put_word(size_t off, uint32_t cap, uint32_t state)
{
    __atomic_store_n((uint64_t *)(st.store + off), (uint64_t)state << 32 | cap, __ATOMIC_RELEASE);
}

static uint32_t cap_at(size_t off)
{
    return (uint32_t)*(uint64_t *)(st.store + off);
}

/* Put the record (len bytes in st.record) in the store: in place when it fits the
 * entry it has (nothing written when it is unchanged), else in a new entry. */
static void store(slot *s, uint64_t id, size_t len)
{
    if (s->state == SLOT_RECORD) {
        uint8_t *rec = st.store + s->off + 8;
        uint32_t cap = cap_at(s->off);
        if (cap >= len) {
            if (iolens_lustre_record_len(rec, cap) == len && memcmp(rec, st.record, len) == 0)
                return;
            put_word(s->off, cap, IOLENS_LUSTRE_BUSY);
            __atomic_signal_fence(__ATOMIC_RELEASE);   /* BUSY lands before the bytes */
            memcpy(rec, st.record, len);
            put_word(s->off, cap, IOLENS_LUSTRE_LIVE);
            return;
        }
    } else if (st.nfilled >= st.nslots / 4 * 3) {
        cut();
        return;
    }
    if (!st.store && make_store() != 0) {
        cut();
        return;
    }
    if (8 + len > st.store_len - st.used) {
        cut();                       /* an entry that has one keeps its older layout */
        return;
    }
    memcpy(st.store + st.used + 8, st.record, len);
    put_word(st.used, (uint32_t)len, IOLENS_LUSTRE_LIVE);
    if (s->state == SLOT_RECORD)
        put_word(s->off, cap_at(s->off), IOLENS_LUSTRE_DEAD);
    else
        st.nfilled++;
    s->id = id;
    s->off = (uint32_t)st.used;
    s->state = SLOT_RECORD;
    st.used += 8 + len;
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

/* ------------------------------------------------------------ shutdown
 * The store is left as it is (a death during the log write still leaves it
 * recoverable): the marks of the shared-record step go into the slots, and the
 * payload is decoded from the store into memory of its own. */
static slot *record_slot(uint64_t id)
{
    slot *s = slot_of(id);
    return s->id == id && (s->state & SLOT_KIND) == SLOT_RECORD ? s : NULL;
}

static void finish(iol_module *m)
{
    m->count = 0;
    for (size_t i = 0; i < st.nslots; i++)
        m->count += st.slots[i].state == SLOT_RECORD;
}

static int holds(iol_module *m, uint64_t id)
{
    (void)m;
    slot *s = record_slot(id);
    return s && !(s->state & SLOT_DROPPED);
}

/* MPI: the records every process holds are written once, by process 0, with
 * rank -1 (runtime spec 7: no merge; the layout is the file's, not the
 * process's).  ids are sorted. */
static void shared(iol_module *m, const uint64_t *ids, size_t n, int keep)
{
    for (size_t i = 0; i < n; i++) {
        slot *s = record_slot(ids[i]);
        if (!s || (s->state & (SLOT_SHARED | SLOT_DROPPED)))
            continue;
        s->state |= keep ? SLOT_SHARED : SLOT_DROPPED;
        if (!keep)
            m->count--;
    }
}

/* The records, packed, each with its final rank (the process's rank now: a
 * record made before MPI_Init said 0; -1 for a shared one). */
static size_t output(iol_module *m, void **payload)
{
    if (!st.packed && st.store) {
        st.out_cap = st.used;
        st.out = iol_map(st.out_cap);
        if (!st.out) {                /* no records after all: say they are missing */
            iol_fail(IOL_FAIL_MEMORY);
            cut();
            m->count = 0;
        }
        size_t n = st.out ? iolens_lustre_store_region(st.store, st.used, st.out, st.out_cap) : 0;
        size_t to = 0;
        for (size_t off = 0, len; off < n; off += len) {
            len = iolens_lustre_record_len(st.out + off, n - off);
            uint64_t id;
            memcpy(&id, st.out + off, 8);
            slot *s = record_slot(id);
            if (!len || !s || (s->state & SLOT_DROPPED)) {
                if (!len)
                    break;
                continue;
            }
            int64_t rank = (s->state & SLOT_SHARED) ? -1 : iol_rank;
            memcpy(st.out + off + 8, &rank, 8);
            memmove(st.out + to, st.out + off, len);
            to += len;
        }
        st.out_len = to;
        st.packed = 1;
    }
    *payload = st.out;
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
    .setup = setup,
    .activate = activate,
    .finish = finish,
    .output = output,
    .reset = reset,
    .holds = holds,
    .shared = shared,
};
