/* The liblustreapi layout source of the LUSTRE module (lustre_api.h).
 *
 * Which library: the llapi functions already in the process (the application
 * links liblustreapi: dlsym RTLD_DEFAULT finds them and nothing is loaded), else
 * liblustreapi.so.1 loaded with RTLD_LOCAL (its symbols then never bind the
 * application's own references).  Nothing is loaded on a node without a Lustre
 * mount, nor when the LUSTRE module or IOLENS_NO_LUSTRE_API is set.
 *
 * When: once per process lineage, at init (iol_lustre_api_resolve, called from
 * the module's setup callback).  Init holds no lock of ours and runs with
 * iol_busy set, so the loader's lock is never taken while a module lock is held
 * (a thread in dlopen running a constructor that calls a wrapper would otherwise
 * wait for us while we wait for the loader), and the library's own I/O at load
 * (its constructor reads /dev/urandom) is not recorded.  Init is also outside any
 * wrapper's real call: at the constructor, or at the first intercepted call
 * before the call is made.  A fork child inherits the answer and never loads.
 *
 * The library's constructor calls srandom(): the application's random() sequence
 * would change (an unseeded random() is a documented fixed sequence that
 * programs and their tests rely on).  The generator's state is set aside around
 * the load (initstate/setstate keep the caller's state array untouched).  Another
 * thread calling random() during the load would draw from the set-aside
 * generator; init runs in the constructor or at the first intercepted call,
 * before a program normally has threads (under MPI, in MPI_Init).
 *
 * The query (iol_lustre_api_layout) runs inside the close wrappers, under the
 * LUSTRE lock, with iol_busy raised so that the library's fgetxattr and fstat
 * pass through our wrappers unrecorded.  liblustreapi allocates with malloc in
 * llapi_layout_get_by_fd; see docs/runtime.md ("Lustre") for what that means and
 * the switch that avoids it. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rt.h"
#include "lustre_api.h"

/* Values of lustreapi.h (Lustre's public header), as the library returns them. */
#define LLAPI_INVALID 0x1000000000000001ULL
#define LLAPI_DEFAULT (LLAPI_INVALID + 1)
#define LLAPI_WIDE_MIN (LLAPI_DEFAULT + 1)         /* "all OSTs" (stripe count -1) */
#define LLAPI_WIDE_MAX (LLAPI_DEFAULT + 32)        /* ... and its overstriping forms */
#define LLAPI_USE_FIRST 1u
#define LLAPI_USE_NEXT 3u

struct llapi_layout;   /* opaque */
typedef struct llapi_layout lay;

/* The functions used, with lustreapi.h's signatures (its enums are 32-bit). */
static struct {
    lay *(*get_by_fd)(int fd, unsigned int flags);
    void (*layout_free)(lay *l);
    int (*comp_use)(lay *l, unsigned int pos);
    _Bool (*is_composite)(lay *l);
    int (*stripe_count_get)(const lay *l, uint64_t *count);
    int (*stripe_size_get)(const lay *l, uint64_t *size);
    int (*pattern_get)(const lay *l, uint64_t *pattern);
    int (*ost_index_get)(const lay *l, uint64_t stripe, uint64_t *index);
    int (*pool_name_get)(const lay *l, char *dest, size_t n);
    int (*comp_extent_get)(const lay *l, uint64_t *start, uint64_t *end);
    int (*comp_flags_get)(const lay *l, uint32_t *flags);
    int (*mirror_id_get)(const lay *l, uint32_t *id);    /* optional (Lustre >= 2.11) */
    int (*comp_id_get)(const lay *l, uint32_t *id);      /* its stand-in */
} api;

static int state;   /* 0 not tried, 1 usable, -1 not */

static const struct {
    const char *name;
    size_t off;
    int required;
} SYMS[] = {
#define S(field, name, req) {name, offsetof(__typeof__(api), field), req}
    S(get_by_fd, "llapi_layout_get_by_fd", 1),
    S(layout_free, "llapi_layout_free", 1),
    S(comp_use, "llapi_layout_comp_use", 1),
    S(is_composite, "llapi_layout_is_composite", 1),
    S(stripe_count_get, "llapi_layout_stripe_count_get", 1),
    S(stripe_size_get, "llapi_layout_stripe_size_get", 1),
    S(pattern_get, "llapi_layout_pattern_get", 1),
    S(ost_index_get, "llapi_layout_ost_index_get", 1),
    S(pool_name_get, "llapi_layout_pool_name_get", 1),
    S(comp_extent_get, "llapi_layout_comp_extent_get", 1),
    S(comp_flags_get, "llapi_layout_comp_flags_get", 1),
    S(mirror_id_get, "llapi_layout_mirror_id_get", 0),
    S(comp_id_get, "llapi_layout_comp_id_get", 0),
#undef S
};
#define NSYMS (sizeof SYMS / sizeof SYMS[0])

/* Every function from handle h; 1 when the required ones (and a mirror id
 * getter) are all there. */
static int take(void *h)
{
    for (size_t i = 0; i < NSYMS; i++) {
        void *p = dlsym(h, SYMS[i].name);
        memcpy((char *)&api + SYMS[i].off, &p, sizeof p);
        if (!p && SYMS[i].required)
            return 0;
    }
    return api.mirror_id_get || api.comp_id_get;
}

/* dlopen with the application's random() state kept (see the top). */
static void *load(void)
{
    static char aside[128];
    char *app = initstate(1, aside, sizeof aside);
    void *h = dlopen("liblustreapi.so.1", RTLD_NOW | RTLD_LOCAL);
    if (app)
        setstate(app);
    return h;
}

void iol_lustre_api_resolve(void)
{
    if (state != 0)
        return;
    int saved = errno;
    state = -1;
    if (!take(RTLD_DEFAULT)) {
        void *h = load();
        if (h && !take(h))
            memset(&api, 0, sizeof api);   /* too old a library: left loaded, unused */
        else if (h)
            state = 1;
    } else {
        state = 1;
    }
    if (state != 1)
        memset(&api, 0, sizeof api);
    (void)dlerror();   /* a failed lookup leaves no message for the application */
    errno = saved;
}

int iol_lustre_api_ready(void)
{
    return state == 1;
}

/* liblustreapi's pattern into the log's (lustre_layout.h): its own numbers for
 * the patterns it knows, and any other value (a raw lov pattern, e.g. a released
 * file's RAID0 with the released flag) read as the xattr parser reads it. */
static int64_t pattern_of(uint64_t p)
{
    if (p == IOL_LUSTRE_PATTERN_RAID0 || p == IOL_LUSTRE_PATTERN_MDT ||
        p == IOL_LUSTRE_PATTERN_OVERSTRIPING || p == IOL_LUSTRE_PATTERN_FOREIGN)
        return (int64_t)p;
    return p <= 0xFFFFFFFFu ? iol_lov_pattern((uint32_t)p) : -1;
}

static int mirror_of(const lay *ly, uint32_t *mirror)
{
    if (api.mirror_id_get)
        return api.mirror_id_get(ly, mirror);
    uint32_t id;
    if (api.comp_id_get(ly, &id) != 0)
        return -1;
    *mirror = (id & 0x7FFF0000u) >> 16;
    return 0;
}

/* The stripe count as the xattr parser gives it: 0 for Data-on-MDT and for a
 * count left to the default, -1 for "all OSTs" (never recorded). */
static int64_t count_of(uint64_t count, int64_t pattern)
{
    if (pattern == IOL_LUSTRE_PATTERN_MDT || count == LLAPI_DEFAULT)
        return 0;
    if (count >= LLAPI_WIDE_MIN && count <= LLAPI_WIDE_MAX)
        return -1;
    return count <= 0xFFFF ? (int64_t)count : -1;
}

/* The OST ids of the current component (c->stripe_count > 0) appended to l. */
static int osts_of(const lay *ly, iol_lustre_layout *l, iol_lustre_comp *c)
{
    if ((size_t)c->stripe_count > IOL_LUSTRE_MAX_OSTS - l->nosts)
        return 0;                       /* too many: incomplete, never recorded */
    for (size_t i = 0; i < (size_t)c->stripe_count; i++) {
        uint64_t idx;
        if (api.ost_index_get(ly, i, &idx) != 0)
            return -1;
        l->osts[l->nosts + i] = idx <= 0xFFFFFFFFu ? (int64_t)idx : -1;
    }
    l->nosts += (size_t)c->stripe_count;
    c->complete = 1;
    return 0;
}

/* The current component of ly appended to l; -1 when a getter fails. */
static int comp_of(lay *ly, iol_lustre_layout *l)
{
    if (l->ncomps == IOL_LUSTRE_MAX_COMPS)
        return -1;
    iol_lustre_comp *c = &l->comps[l->ncomps];
    memset(c, 0, sizeof *c);
    uint64_t pattern, start, end, size, count;
    uint32_t flags, mirror;
    if (api.pattern_get(ly, &pattern) || api.comp_extent_get(ly, &start, &end) ||
        api.comp_flags_get(ly, &flags) || mirror_of(ly, &mirror))
        return -1;
    if (pattern == LLAPI_DEFAULT)
        return -1;                      /* a file with no layout: the default one */
    c->pattern = pattern_of(pattern);
    c->flags = flags;
    c->ext_start = (int64_t)start;
    c->ext_end = (int64_t)end;
    c->mirror_id = mirror;
    c->first_ost = l->nosts;
    l->ncomps++;
    if (pattern == IOL_LUSTRE_PATTERN_FOREIGN) {   /* no stripes to tell */
        c->stripe_size = -1;
        c->complete = 1;
        return 0;
    }
    if (api.stripe_size_get(ly, &size) || api.stripe_count_get(ly, &count) ||
        api.pool_name_get(ly, c->pool, sizeof c->pool) < 0)
        return -1;
    c->pool[sizeof c->pool - 1] = '\0';
    c->stripe_size = size >= LLAPI_INVALID ? 0 : (int64_t)size;
    c->stripe_count = count_of(count, c->pattern);
    int objects = !l->composite || (flags & IOL_LUSTRE_FL_INIT);
    if (!objects || c->stripe_count <= 0) {
        c->complete = c->stripe_count >= 0;
        return 0;
    }
    return osts_of(ly, l, c);
}

static int walk(lay *ly, iol_lustre_layout *l)
{
    l->composite = api.is_composite(ly) ? 1 : 0;
    l->ncomps = l->nosts = 0;
    if (api.comp_use(ly, LLAPI_USE_FIRST) != 0)
        return -1;
    for (;;) {
        if (comp_of(ly, l) != 0)
            return -1;
        int rc = api.comp_use(ly, LLAPI_USE_NEXT);
        if (rc == 1)
            return 0;                   /* past the last component */
        if (rc != 0)
            return -1;
    }
}

int iol_lustre_api_layout(int fd, iol_lustre_layout *l)
{
    if (state != 1)
        return -1;
    iol_busy++;
    lay *ly = api.get_by_fd(fd, 0);
    int rc = ly ? walk(ly, l) : -1;
    if (ly)
        api.layout_free(ly);
    iol_busy--;
    return rc;
}
