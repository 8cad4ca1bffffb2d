/* libFuzzer target: the reader on hostile bytes.  Opens the input with
 * iolens_log_open_mem and walks everything a tool would touch: header, job,
 * mounts, names, every region, and the decoded records of every module.
 * Findings are crashes and sanitizer reports; return codes are not judged. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "iolens/log.h"

/* Volatile sink so the walks are not optimised away. */
static volatile uint64_t sink;

static void walk_job(const iolens_log *log)
{
    const iolens_job *j = iolens_log_job(log);
    sink += strlen(j->exe) + strlen(j->exe_mounts) + strlen(j->metadata);
    for (size_t i = 0; i < j->nmounts; i++)
        sink += strlen(j->mounts[i].path) + strlen(j->mounts[i].fstype);
    sink += iolens_job_runtime(j, iolens_log_header(log)->minor) > 0;   /* any double is fine */
}

static void walk_names(const iolens_log *log)
{
    size_t n = iolens_log_name_count(log);
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        if (iolens_log_name_at(log, i, &id, &name) == IOLENS_OK)
            sink += strlen(name) + (iolens_log_name(log, id) == name);
    }
}

static void walk_decoded(iolens_log *log, int m, const iolens_module_info *mi)
{
    if (mi->kind == IOLENS_KIND_COUNTERS || mi->kind == IOLENS_KIND_MDHIM) {
        iolens_records *r;
        if (iolens_log_records(log, m, &r) == IOLENS_OK) {
            for (size_t i = 0; i < r->count * r->n_int; i++)
                sink += (uint64_t)r->ints[i];
            if (r->tail_start)
                sink += r->tail_start[r->count];
            iolens_records_free(r);
        }
    } else if (mi->kind == IOLENS_KIND_DXT) {
        iolens_dxt *d;
        if (iolens_log_dxt(log, m, &d) == IOLENS_OK) {
            for (size_t i = 0; i < d->nseg; i++)
                sink += (uint64_t)d->offset[i] + (uint64_t)d->length[i];
            sink += d->seg_start[d->count];
            iolens_dxt_free(d);
        }
    } else if (mi->kind == IOLENS_KIND_HEATMAP) {
        iolens_heatmap *h;
        if (iolens_log_heatmap(log, &h) == IOLENS_OK) {
            for (size_t i = 0; i < h->bin_start[h->count]; i++)
                sink += (uint64_t)h->write_bins[i] + (uint64_t)h->read_bins[i];
            iolens_heatmap_free(h);
        }
    } else if (mi->kind == IOLENS_KIND_LUSTRE) {
        iolens_lustre *l;
        if (iolens_log_lustre(log, &l) == IOLENS_OK) {
            for (size_t i = 0; i < l->ost_start[l->count]; i++)
                sink += (uint64_t)l->ost[i];
            iolens_lustre_free(l);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iolens_log *log;
    char err[256];
    if (iolens_log_open_mem(data, size, &log, err, sizeof err) != IOLENS_OK)
        return 0;
    const iolens_header *h = iolens_log_header(log);
    sink += h->partial_flag + h->job.len;
    walk_job(log);
    walk_names(log);
    for (int m = 0; m < IOL_MAX_MODULES; m++) {
        const void *p;
        size_t len;
        if (iolens_log_region(log, m, &p, &len) != IOLENS_OK)
            continue;
        sink += len ? ((const uint8_t *)p)[len - 1] : 0;
        const iolens_module_info *mi = iolens_module_info_get(m);
        if (mi)
            walk_decoded(log, m, mi);
    }
    sink += strlen(iolens_log_error(log));
    iolens_log_close(log);
    return 0;
}
