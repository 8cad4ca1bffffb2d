/* Platform facts (counters/platform.def): set once at init by the probes
 * (platform_probe.c, platform_sched.c, mountfacts.c), the MPI node geometry at
 * MPI_Finalize (mpi/nodes.c), and written at the end of the job metadata in the
 * table's order of usefulness, as much as fits.  No allocation; a fact set twice
 * keeps the second value (MPI's node count replaces the scheduler's). */
#include <stdio.h>
#include <string.h>

#include "core_int.h"

#define PKEY(key, cap, anon, desc) +(cap) + 1
enum { STORE_LEN = 0
#include "platform.def"
};
#undef PKEY

static const struct {
    const char *key;
    size_t cap;
} keys[IOL_NFACTS] = {
#define PKEY(key, cap, anon, desc) {#key, cap},
#include "platform.def"
#undef PKEY
};

static char store[STORE_LEN];
static size_t offset[IOL_NFACTS];
static iol_lock_t facts_lock;

static void layout(void)
{
    size_t at = 0;
    for (int f = 0; f < IOL_NFACTS; f++) {
        offset[f] = at;
        at += keys[f].cap + 1;
    }
}

void iol_fact_set(enum iol_fact f, const char *value)
{
    if ((unsigned)f >= IOL_NFACTS || !value)
        return;
    iol_lock(&facts_lock);
    if (offset[IOL_NFACTS - 1] == 0)
        layout();
    char *v = store + offset[f];
    size_t n = strnlen(value, keys[f].cap);
    /* A value never carries a newline: it would end the metadata line early. */
    for (size_t i = 0; i < n; i++)
        v[i] = (value[i] == '\n' || value[i] == '\r') ? ' ' : value[i];
    v[n] = '\0';
    iol_unlock(&facts_lock);
}

const char *iol_fact_key(enum iol_fact f) { return (unsigned)f < IOL_NFACTS ? keys[f].key : ""; }

size_t iol_platform_append(char *out, size_t room)
{
    size_t used = 0;
    iol_lock(&facts_lock);
    if (offset[IOL_NFACTS - 1] != 0) {
        for (int f = 0; f < IOL_NFACTS; f++) {
            const char *v = store + offset[f];
            size_t k = strlen(keys[f].key), n = strlen(v);
            if (n == 0 || used + k + n + 2 >= room)   /* key=value\n and the NUL after it */
                continue;
            memcpy(out + used, keys[f].key, k);
            out[used + k] = '=';
            memcpy(out + used + k + 1, v, n);
            out[used + k + 1 + n] = '\n';
            used += k + n + 2;
        }
    }
    if (used < room)
        out[used] = '\0';
    iol_unlock(&facts_lock);
    return used;
}

void iol_fact_nodes(long nnodes, long ppn_min, long ppn_max)
{
    char v[48];
    if (nnodes >= 0) {
        snprintf(v, sizeof v, "%ld", nnodes);
        iol_fact_set(IOL_FACT_nnodes, v);
    }
    if (ppn_min < 0)
        return;
    if (ppn_min == ppn_max)
        snprintf(v, sizeof v, "%ld", ppn_min);
    else
        snprintf(v, sizeof v, "%ld-%ld", ppn_min, ppn_max);
    iol_fact_set(IOL_FACT_ppn, v);
}

void iol_platform_reset(void)
{
    iol_lock(&facts_lock);
    memset(store, 0, sizeof store);
    iol_unlock(&facts_lock);
}
