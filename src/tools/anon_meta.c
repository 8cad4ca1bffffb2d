/* Anonymising the job metadata (`iolens convert --anonymize`): keys are kept;
 * what happens to a value depends on the key.  The platform keys say it
 * themselves (counters/platform.def): counts, sizes and hardware models are
 * kept, host lists become lists of host pseudonyms (the same ones DXT host names
 * get, so the two still line up).  The other keys the runtime and the tools
 * write are in other_keys below: versions and counts are kept (lib_ver is needed
 * to read the counters), the MPI-IO hints keep their numbers and switches.
 * Everything else -- a pid, a user's annotation, any key not listed -- becomes
 * one pseudonym.  docs/anonymization.md lists the same (a test compares). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "convert.h"

enum { KEEP, HOSTS, HASH, HINTS };

typedef struct key_rule {
    const char *key;
    int rule;
} key_rule;

/* Keys besides the platform ones: upstream's (lib_ver, h), the runtime's
 * (rank_from; the module notes h5, heatmap_*, dirfd_cwd_fallbacks) and the
 * tools' (merged, recovered).  fork_parent (a pid) is not here: replaced. */
static const key_rule other_keys[] = {
    {"lib_ver", KEEP},   {"h", HINTS},          {"rank_from", KEEP},
    {"merged", KEEP},    {"recovered", KEEP},   {"h5", KEEP},
    {"heatmap_maps_reused", KEEP}, {"heatmap_shared_ops", KEEP},
    {"dirfd_cwd_fallbacks", KEEP},
};

static int rule_of(const char *key, size_t len)
{
    static const key_rule platform[] = {
#define PKEY(key, cap, anon, desc) {#key, anon},
#include "platform.def"
#undef PKEY
    };
    for (size_t i = 0; i < sizeof platform / sizeof *platform; i++)
        if (strlen(platform[i].key) == len && !strncmp(platform[i].key, key, len))
            return platform[i].rule;
    for (size_t i = 0; i < sizeof other_keys / sizeof *other_keys; i++)
        if (strlen(other_keys[i].key) == len && !strncmp(other_keys[i].key, key, len))
            return other_keys[i].rule;
    return HASH;
}

/* A hint value that says nothing of a user or a site: a number or a switch. */
static int plain_hint(const char *v, size_t len)
{
    static const char *const words[] = {"true", "false", "enable", "disable", "automatic"};
    size_t digits = 0;
    while (digits < len && v[digits] >= '0' && v[digits] <= '9')
        digits++;
    if (len && digits == len)
        return 1;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == len && !strncmp(words[i], v, len))
            return 1;
    return 0;
}

/* MPI-IO hints "k=v;k=v": hint names kept, plain values kept, other values (a
 * cb_config_list names hosts) and pieces without '=' replaced by pseudonyms. */
static void anon_hints(const anon *a, const char *v, size_t len, char *out, size_t room)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i <= len && o < room;) {
        size_t j = i;
        while (j < len && v[j] != ';')
            j++;
        const char *key = v + i, *eq = memchr(key, '=', j - i), *sep = i ? ";" : "";
        int klen = (int)(eq ? (size_t)(eq - key) : j - i), vlen = eq ? (int)(j - i) - klen - 1 : 0;
        char piece[24];
        int n;
        if (!eq && !plain_hint(key, (size_t)klen)) {     /* not a hint: a value */
            anon_value(a, key, (size_t)klen, piece);
            n = snprintf(out + o, room - o, "%s%s", sep, piece);
        } else if (!eq)
            n = snprintf(out + o, room - o, "%s%.*s", sep, klen, key);
        else if (plain_hint(eq + 1, (size_t)vlen))
            n = snprintf(out + o, room - o, "%s%.*s=%.*s", sep, klen, key, vlen, eq + 1);
        else {
            anon_value(a, eq + 1, (size_t)vlen, piece);
            n = snprintf(out + o, room - o, "%s%.*s=%s", sep, klen, key, piece);
        }
        if (n < 0 || (size_t)n >= room - o)
            break;
        o += (size_t)n;
        i = j + 1;
    }
}

/* Emits host pseudonyms into out (at most `room` bytes); counts the rest. */
typedef struct host_out {
    const anon *a;
    char *out;
    size_t used, room, left;
} host_out;

static void emit(host_out *h, const char *name, size_t len)
{
    char piece[24];
    if (len == 0)
        return;
    if (h->left == 0 && h->used + 18 + 14 <= h->room) {   /* keep room for ",+N" */
        anon_host(h->a, name, len, piece);
        h->used += (size_t)snprintf(h->out + h->used, h->room - h->used, "%s%s",
                                    h->used ? "," : "", piece);
    } else {
        h->left++;
    }
}

/* One hostlist entry: "name", or "stem[a-b,c]tail" expanded. */
static void entry(host_out *h, const char *e, size_t len)
{
    const char *open = memchr(e, '[', len), *close = open ? memchr(open, ']', len - (size_t)(open - e)) : NULL;
    if (!open || !close || (size_t)(open - e) > 60) {
        emit(h, e, len);
        return;
    }
    char name[128];
    size_t stem = (size_t)(open - e), tail = len - (size_t)(close - e) - 1;
    for (const char *p = open + 1; p < close;) {
        const char *comma = memchr(p, ',', (size_t)(close - p)), *end = comma ? comma : close;
        const char *dash = memchr(p, '-', (size_t)(end - p));
        size_t width = (size_t)((dash ? dash : end) - p);
        if (width == 0 || width > 18) {        /* not a number range: one opaque name */
            emit(h, p, (size_t)(end - p));
            p = end + 1;
            continue;
        }
        unsigned long long lo = strtoull(p, NULL, 10), hi = dash ? strtoull(dash + 1, NULL, 10) : lo;
        for (unsigned long long n = lo; n <= hi && n - lo < 1000000; n++) {
            if (h->left) {                      /* out of room: count the rest at once */
                h->left += hi - n + 1;
                break;
            }
            int w = snprintf(name, sizeof name, "%.*s%0*llu%.*s", (int)stem, e, (int)width, n,
                             (int)tail, close + 1);
            if (w > 0 && (size_t)w < sizeof name)
                emit(h, name, (size_t)w);
        }
        p = end + 1;
    }
}

static size_t anon_hosts(const anon *a, const char *v, size_t len, char *out, size_t room)
{
    host_out h = {a, out, 0, room < 257 ? room : 257, 0};
    out[0] = '\0';
    for (size_t i = 0; i < len;) {
        size_t j = i, depth = 0;
        while (j < len && (v[j] != ',' || depth)) {
            depth += v[j] == '[';
            depth -= v[j] == ']' && depth;
            j++;
        }
        if (v[i] != '+')                        /* ",+N": names the writer left out */
            entry(&h, v + i, j - i);
        else
            h.left += (size_t)strtoull(v + i + 1, NULL, 10);
        i = j + 1;
    }
    if (h.left)
        h.used += (size_t)snprintf(out + h.used, room - h.used, "%s+%zu", h.used ? "," : "",
                                   h.left);
    return h.used < room ? h.used : room - 1;
}

void anon_metadata(const anon *a, const char *in, char *out, size_t room)
{
    size_t o = 0;
    out[0] = '\0';
    for (const char *p = in; *p;) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            size_t klen = (size_t)(eq - p), vlen = (size_t)(end - eq - 1);
            char value[300];
            int rule = rule_of(p, klen);
            if (rule == KEEP && vlen < sizeof value)
                snprintf(value, sizeof value, "%.*s", (int)vlen, eq + 1);
            else if (rule == HOSTS)
                anon_hosts(a, eq + 1, vlen, value, sizeof value);
            else if (rule == HINTS && vlen < sizeof value)
                anon_hints(a, eq + 1, vlen, value, sizeof value);
            else
                anon_value(a, eq + 1, vlen, value);
            int n = snprintf(out + o, room - o, "%.*s=%s\n", (int)klen, p, value);
            if (n < 0 || (size_t)n >= room - o)
                break;
            o += (size_t)n;
        }
        p = nl ? nl + 1 : end;
    }
    out[o] = '\0';
}
