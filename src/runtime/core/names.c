/* Record names: the NAMEMEM-bounded name table (each distinct id costs
 * 8 + strlen + 1 bytes, as upstream accounts it) and name exclusion (runtime
 * spec 2.0.2).  Path cleaning (2.0.1) is path.c's.
 *
 * Memory grows with the names stored, within the bounds NAMEMEM sets (issue #34:
 * under an address-space limit, `ulimit -v`, the runtime must not take at start
 * the 8 MiB that a table sized for the worst case of NAMEMEM needs): the entries
 * (insertion order) and their hash index double when full, and the strings go
 * into segments that double and never move (a stored name is handed out as a
 * pointer).  A growth the system refuses counts as a full table: -1, so the
 * caller sets its module's partial bit. */
#include <string.h>

#include "core_int.h"
#include "safety.h"

typedef struct name_ent {
    uint64_t id;
    uint64_t modmask;
    const char *name;        /* in a segment; stable until release */
} name_ent;

enum { FIRST_ENTS = 256, FIRST_SEGMENT = 16384, MAX_SEGMENTS = 48 };

static name_ent *ents;       /* in insertion order */
static size_t count, ents_cap, ents_max;
static uint32_t *slots;      /* open addressing: index into ents + 1, 0 = empty */
static size_t smask;
static char *segs[MAX_SEGMENTS];
static size_t seg_len[MAX_SEGMENTS], nsegs, seg_used;
static uint64_t budget, spent, chars_used, chars_max;
static iol_lock_t lock;

static size_t home(uint64_t id) { return (size_t)(id ^ (id >> 31)) & smask; }

/* The slot of id, or the empty slot where it would go. */
static size_t find_slot(uint64_t id)
{
    size_t s = home(id);
    while (slots[s] && ents[slots[s] - 1].id != id)
        s = (s + 1) & smask;
    return s;
}

static int grow_ents(void)
{
    size_t cap = 2 * ents_cap < ents_max ? 2 * ents_cap : ents_max;
    name_ent *p = iol_map(cap * sizeof *p);
    if (!p)
        return -1;
    memcpy(p, ents, count * sizeof *p);
    iol_unmap(ents, ents_cap * sizeof *ents);
    ents = p;
    ents_cap = cap;
    return 0;
}

static int grow_slots(void)
{
    size_t n = 2 * (smask + 1);
    uint32_t *p = iol_map(n * sizeof *p), *old = slots;
    if (!p)
        return -1;
    size_t old_n = smask + 1;
    slots = p;
    smask = n - 1;
    for (size_t i = 0; i < count; i++)
        slots[find_slot(ents[i].id)] = (uint32_t)(i + 1);
    iol_unmap(old, old_n * sizeof *old);
    return 0;
}

/* Room for one more entry: entries below their bound, index at most half full. */
static int room_for_one(void)
{
    if (count == ents_cap && grow_ents() != 0)
        return -1;
    return 2 * (count + 1) > smask + 1 ? grow_slots() : 0;
}

/* A copy of name (len bytes and a NUL) in the segments, or NULL. */
static const char *put_string(const char *name, size_t len)
{
    if (chars_used + len + 1 > chars_max)
        return NULL;
    if (!nsegs || seg_used + len + 1 > seg_len[nsegs - 1]) {
        size_t n = nsegs ? 2 * seg_len[nsegs - 1] : FIRST_SEGMENT;
        if (n < len + 1)
            n = len + 1;
        if (nsegs == MAX_SEGMENTS || !(segs[nsegs] = iol_map(n)))
            return NULL;
        seg_len[nsegs++] = n;
        seg_used = 0;
    }
    char *p = segs[nsegs - 1] + seg_used;
    memcpy(p, name, len);
    p[len] = '\0';
    seg_used += len + 1;
    chars_used += len + 1;
    return p;
}

int iol_names_init(uint64_t namemem)
{
    budget = namemem;
    spent = chars_used = 0;
    count = nsegs = seg_used = 0;
    ents_max = namemem / 10 + 1;                /* at least 10 bytes per name */
    chars_max = namemem * 2;                    /* room for replaced empty names */
    ents_cap = ents_max < FIRST_ENTS ? ents_max : FIRST_ENTS;
    smask = 2 * FIRST_ENTS - 1;
    ents = iol_map(ents_cap * sizeof *ents);
    slots = iol_map((smask + 1) * sizeof *slots);
    lock = 0;
    return (ents && slots) ? 0 : -1;
}

void iol_names_release(void)
{
    iol_unmap(ents, ents_cap * sizeof *ents);
    iol_unmap(slots, (smask + 1) * sizeof *slots);
    for (size_t i = 0; i < nsegs; i++)
        iol_unmap(segs[i], seg_len[i]);
    ents = NULL;
    slots = NULL;
    nsegs = 0;
}

int iol_name_store(uint64_t id, const char *name, int modid, const char **stored)
{
    size_t len = name ? strlen(name) : 0;
    int rc = 0;
    if (!iol_trylock_own(&lock))
        return -2;                   /* a signal handler interrupted us in here */
    size_t s = find_slot(id);
    name_ent *e = slots[s] ? &ents[slots[s] - 1] : NULL;
    if (e) {
        if (len && e->name[0] == '\0') {          /* first non-empty name wins */
            const char *p = put_string(name, len);
            if (p) {
                e->name = p;
                iol_safety_name(id, name, len);
            } else {
                rc = -1;
            }
        }
    } else if (spent + 8 + len + 1 > budget || count == ents_max || room_for_one() != 0) {
        rc = -1;
    } else {
        const char *p = put_string(name ? name : "", len);
        if (!p) {
            rc = -1;
        } else {
            e = &ents[count];
            *e = (name_ent){id, 0, p};
            slots[find_slot(id)] = (uint32_t)(++count);   /* the index may have grown */
            spent += 8 + len + 1;
            iol_safety_name(id, name ? name : "", len);
        }
    }
    if (rc == 0) {
        e->modmask |= (uint64_t)1 << modid;
        *stored = e->name;
    }
    iol_unlock(&lock);
    return rc;
}

const char *iol_name_of(uint64_t id)
{
    if (!iol_trylock_own(&lock))
        return NULL;
    size_t s = find_slot(id);
    const char *n = slots[s] ? ents[slots[s] - 1].name : NULL;
    iol_unlock(&lock);
    return n;
}

size_t iol_names_count(void) { return count; }

iol_lock_t *iol_names_lock(void) { return &lock; }

void iol_name_at(size_t i, uint64_t *id, const char **name)
{
    *id = ents[i].id;
    *name = ents[i].name;
}

/* ---------------------------------------------------------------- exclusion */
static const char *const DEFAULT_EXCLUDES[] = {
    "/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/", "/opt/", "/sbin/", "/sys/", "/proc/", "/var/",
};

static int prefix_excluded(const char *name)
{
    if (!iol_cfg.exclude_dirs_set) {
        for (size_t i = 0; i < sizeof DEFAULT_EXCLUDES / sizeof *DEFAULT_EXCLUDES; i++)
            if (strncmp(name, DEFAULT_EXCLUDES[i], strlen(DEFAULT_EXCLUDES[i])) == 0)
                return 1;
        return 0;
    }
    const char *p = iol_cfg.exclude_dirs;          /* DARSHAN_EXCLUDE_DIRS (3.5.0) */
    if (strcmp(p, "none") == 0)
        return 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n && strncmp(name, p, n) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static int rule_match(int modid, int include, const char *name)
{
    for (size_t i = 0; i < iol_cfg.nrules; i++) {
        const iol_name_rule *r = &iol_cfg.rules[i];
        if (r->include == include && ((r->modmask >> modid) & 1) &&
            regexec(&r->re, name, 0, NULL, 0) == 0)
            return 1;
    }
    return 0;
}

int iol_name_excluded(int modid, const char *name)
{
    int ex = prefix_excluded(name);
    if (!ex)
        ex = rule_match(modid, 0, name);
    if (ex && !iol_cfg.exclude_dirs_set && strncmp(name, "/var/opt/cray/dws/mounts/", 25) == 0)
        ex = 0;
    if (ex)
        ex = !rule_match(modid, 1, name);
    return ex;
}
