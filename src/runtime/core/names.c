/* Record names: the NAMEMEM-bounded name table (each distinct id costs
 * 8 + strlen + 1 bytes, as upstream accounts it) and name exclusion (runtime
 * spec 2.0.2).  Path cleaning (2.0.1) is path.c's. */
#include <string.h>

#include "core_int.h"
#include "safety.h"

typedef struct name_ent {
    uint64_t id;
    uint64_t modmask;
    uint32_t off;            /* into npool; valid when used */
    uint32_t used;
} name_ent;

static name_ent *tab;
static size_t tmask, tab_bytes;
static uint32_t *order;      /* table slots in insertion order */
static size_t count, order_cap;
static char *npool;
static uint64_t budget, spent, npool_used, npool_size;
static iol_lock_t lock;

int iol_names_init(uint64_t namemem)
{
    budget = namemem;
    spent = npool_used = 0;
    count = 0;
    order_cap = namemem / 10 + 1;               /* at least 10 bytes per name */
    size_t cap = 16;
    while (cap < 2 * order_cap)
        cap <<= 1;
    tmask = cap - 1;
    tab_bytes = cap * sizeof *tab;
    npool_size = namemem * 2;                   /* room for replaced empty names */
    tab = iol_map(tab_bytes);
    order = iol_map(order_cap * sizeof *order);
    npool = iol_map(npool_size);
    lock = 0;
    return (tab && order && npool) ? 0 : -1;
}

void iol_names_release(void)
{
    iol_unmap(tab, tab_bytes);
    iol_unmap(order, order_cap * sizeof *order);
    iol_unmap(npool, npool_size);
    tab = NULL;
    order = NULL;
    npool = NULL;
}

static size_t find_slot(uint64_t id)
{
    size_t s = (size_t)(id ^ (id >> 31)) & tmask;
    while (tab[s].used && tab[s].id != id)
        s = (s + 1) & tmask;
    return s;
}

static int put_string(name_ent *e, const char *name, size_t len)
{
    if (npool_used + len + 1 > npool_size)
        return -1;
    memcpy(npool + npool_used, name, len + 1);
    e->off = (uint32_t)npool_used;
    npool_used += len + 1;
    return 0;
}

int iol_name_store(uint64_t id, const char *name, int modid, const char **stored)
{
    size_t len = name ? strlen(name) : 0;
    int rc = 0;
    if (!iol_trylock_own(&lock))
        return -2;                   /* a signal handler interrupted us in here */
    name_ent *e = &tab[find_slot(id)];
    if (e->used) {
        if (len && npool[e->off] == '\0' && (rc = put_string(e, name, len)) == 0)
            iol_safety_name(id, name, len);      /* first non-empty name wins */
    } else if (spent + 8 + len + 1 > budget || count == order_cap) {
        rc = -1;
    } else if ((rc = put_string(e, name ? name : "", len)) == 0) {
        e->used = 1;
        e->id = id;
        spent += 8 + len + 1;
        order[count++] = (uint32_t)(e - tab);
        iol_safety_name(id, name ? name : "", len);
    }
    if (rc == 0) {
        e->modmask |= (uint64_t)1 << modid;
        *stored = npool + e->off;
    }
    iol_unlock(&lock);
    return rc;
}

const char *iol_name_of(uint64_t id)
{
    if (!iol_trylock_own(&lock))
        return NULL;
    name_ent *e = &tab[find_slot(id)];
    const char *n = e->used ? npool + e->off : NULL;
    iol_unlock(&lock);
    return n;
}

size_t iol_names_count(void) { return count; }

iol_lock_t *iol_names_lock(void) { return &lock; }

void iol_name_at(size_t i, uint64_t *id, const char **name)
{
    name_ent *e = &tab[order[i]];
    *id = e->id;
    *name = npool + e->off;
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
