/* One round of a live reader over a whole copy (include/iolens/live_read.h):
 * the head with one pread, then every layer's region.  One call per copy and
 * round instead of one per region plus the head's pread: a reader of hundreds
 * of processes pays the language boundary (argument parsing, result objects)
 * once per process, which cost as much as the reading itself. */
#include <string.h>

#include "iolens/live_read.h"
#include "iolens/log.h"
#include "internal.h"

/* The 3.41 header's module map: (offset, length) per module id, 64 entries
 * (spec/log-format.md; header.c reads it the same way). */
enum { MODULE_MAP = 48, MODULES = 64 };

/* The records of layer l's region that lie inside `size` bytes, and where. */
static size_t region_records(const unsigned char *head, const iolens_live_layer *l,
                             uint64_t size, uint64_t *off)
{
    const unsigned char *entry = head + MODULE_MAP + 16 * (size_t)l->module;
    uint64_t rs = (uint64_t)l->layout.record_words * 8, len = iol_get_u64(entry + 8, 0);
    *off = iol_get_u64(entry, 0);
    uint64_t n = len / rs;
    if (n == 0 || *off > size || n > (size - *off) / rs ||
        (uint64_t)(size_t)n != n)
        return 0;
    return (size_t)n;
}

static int layers_ok(const iolens_live_layer *layers, size_t n_layers)
{
    if (n_layers > IOLENS_LIVE_LAYERS || (n_layers && !layers))
        return 0;
    for (size_t l = 0; l < n_layers; l++)
        if (layers[l].module >= MODULES || !layers[l].state ||
            layers[l].layout.record_words < 2)
            return 0;
    return 1;
}

int iolens_live_read_copy(int fd, uint64_t size, const iolens_live_layer *layers,
                          size_t n_layers, const iolens_live_seqs *seqs, int retries,
                          iolens_live_copy_result *out)
{
    if (!out || !seqs || !layers_ok(layers, n_layers))
        return IOLENS_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    int rc = iol_pread_all(fd, out->head, IOLENS_LIVE_HEAD, 0);
    if (rc)
        return rc;
    uint64_t off[IOLENS_LIVE_LAYERS];
    for (size_t l = 0; l < n_layers; l++) {
        out->records[l] = region_records(out->head, &layers[l], size, &off[l]);
        if (out->records[l] > layers[l].state->cap)
            out->grow = 1;
    }
    if (out->grow)
        return IOLENS_OK;
    for (size_t l = 0; l < n_layers; l++) {
        if (out->records[l] == 0)
            continue;
        rc = iolens_live_read_region(fd, off[l], out->records[l], &layers[l].layout, seqs,
                                     retries, layers[l].state, &out->layer[l]);
        if (rc)
            return rc;
    }
    return IOLENS_OK;
}
