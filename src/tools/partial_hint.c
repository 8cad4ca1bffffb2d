/* The line `iolens parse` and `iolens dxt` add after darshan-parser's notice about
 * a partial module: which module, the likely reason and the setting that avoids it.
 * The log keeps only a bit per module, not the reason, so the reason is read off
 * the records that did get in, per process (its own plus the shared ones):
 *   - a DXT module: its trace memory ran out (the only limit it has);
 *   - records filling a good part of the default record memory: memory ran out;
 *   - otherwise the process stopped at a record limit: the default 1024, or the
 *     MAX_RECORDS the user set, which then was the count it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partial_hint.h"

#define DEFAULT_RECORD_LIMIT 1024   /* default_records of the counter modules */
#define DEFAULT_DXT_KIB 2048        /* trace memory per DXT module (docs/dxt.md) */
#define DEFAULT_MODMEM_MIB 4

static int cmp_rank(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Most records any one process held: its own plus the shared (rank -1) ones. */
static size_t max_per_process(const iolens_records *r)
{
    size_t shared = 0, best = 0, n = r->count;
    int64_t *ranks = malloc((n ? n : 1) * sizeof *ranks);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (r->rank[i] < 0)
            shared++;
        else if (ranks)
            ranks[m++] = r->rank[i];
    }
    /* Count per rank without a table sized by rank (logs are hostile): sort. */
    if (ranks)
        qsort(ranks, m, sizeof *ranks, cmp_rank);
    for (size_t i = 0; ranks && i < m;) {
        size_t j = i;
        while (j < m && ranks[j] == ranks[i])
            j++;
        if (j - i > best)
            best = j - i;
        i = j;
    }
    free(ranks);
    return best + shared;
}

void iol_partial_hint(FILE *out, const char *tool, const char *path, iolens_log *log,
                      const iolens_module_info *mi)
{
    fprintf(out, "iolens %s: %s: the %s data is partial: ", tool, path, mi->name);
    if (mi->kind == IOLENS_KIND_DXT) {
        fprintf(out, "a process filled its trace memory (%d KiB by default); to keep "
                     "more, put `MAX_RECORDS %d %s` (KiB) in the file named by "
                     "DARSHAN_CONFIG_PATH\n", DEFAULT_DXT_KIB, 4 * DEFAULT_DXT_KIB,
                mi->name);
        return;
    }
    /* The runtime notes failed memory requests (an address-space limit, issue
     * #34): then that, not a record limit, is what the bit says. */
    const iolens_job *job = iolens_log_job(log);
    if (job && (strncmp(job->metadata, "memory_failures=", 16) == 0 ||
                strstr(job->metadata, "\nmemory_failures="))) {
        fprintf(out, "the runtime could not get memory for it (memory_failures in the job "
                     "metadata: an address-space limit such as `ulimit -v`, or the node out "
                     "of memory)\n");
        return;
    }
    iolens_records *r = NULL;
    size_t most = 0, bytes = 0;
    if (mi->kind == IOLENS_KIND_COUNTERS && iolens_log_records(log, mi->id, &r) == 0) {
        most = max_per_process(r);
        bytes = most * (16 + 8 * (r->n_int + r->n_flt));
        iolens_records_free(r);
    }
    if (most > 0 && (most == DEFAULT_RECORD_LIMIT ||
                     bytes < ((size_t)DEFAULT_MODMEM_MIB << 20) / 4)) {
        fprintf(out, "a process reached its record limit (%zu records of this module%s); "
                     "to keep more, put `MAX_RECORDS %zu %s` in the file named by "
                     "DARSHAN_CONFIG_PATH\n", most,
                most == DEFAULT_RECORD_LIMIT ? ", the default" : ", as MAX_RECORDS set",
                4 * most, mi->name);
        return;
    }
    /* Twice what the fullest process used, and at least twice the default. */
    size_t mib = 2 * ((bytes + (1u << 20) - 1) >> 20);
    if (mib < 2 * DEFAULT_MODMEM_MIB)
        mib = 2 * DEFAULT_MODMEM_MIB;
    fprintf(out, "a process ran out of record memory (%d MiB by default, shared by all "
                 "modules) or of name memory; to keep more, set DARSHAN_MODMEM=%zu (and "
                 "DARSHAN_NAMEMEM=2 if many long file names were opened)\n",
            DEFAULT_MODMEM_MIB, mib);
}
