/* libFuzzer target: the reader on hostile bytes.  Opens the input with
 * iolens_log_open_mem and walks everything a tool would touch: header, job,
 * mounts, names, every region, and the decoded records of every module, both
 * whole and through the streaming iterators.  Findings are crashes, sanitizer
 * reports, and streamed records that differ from the whole decoders' when those
 * succeed (a trap); return codes are not judged otherwise. */
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

#define SAME(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The record iterator gives what iolens_log_records gives (r NULL: that failed,
 * so the iterator may fail anywhere, but must not crash). */
static void walk_streamed_records(iolens_log *log, int m, const iolens_records *r)
{
    iolens_record_iter *it;
    iolens_record x;
    size_t i = 0;
    int rc;
    if (iolens_record_iter_open(log, m, &it) != IOLENS_OK) {
        SAME(!r);
        return;
    }
    while ((rc = iolens_record_iter_next(it, &x)) == 1) {
        sink += x.ntail ? (uint64_t)x.tail[x.ntail - 1] : 0;
        if (!r)
            continue;
        SAME(i < r->count && x.id == r->id[i] && x.rank == r->rank[i]);
        SAME(!memcmp(x.ints, r->ints + i * r->n_int, r->n_int * sizeof *x.ints));
        SAME(!memcmp(x.flts, r->flts + i * r->n_flt, r->n_flt * sizeof *x.flts));
        SAME(!r->file_rec_id || x.file_rec_id == r->file_rec_id[i]);
        SAME(!r->aux || !memcmp(x.aux, r->aux + i * r->aux_size, r->aux_size));
        SAME(!r->tail_start || (x.ntail == r->tail_start[i + 1] - r->tail_start[i] &&
                                !memcmp(x.tail, r->tail + r->tail_start[i],
                                        x.ntail * sizeof *x.tail)));
        i++;
    }
    SAME(!r || (rc == 0 && i == r->count && iolens_record_iter_dropped(it) == (size_t)r->dropped));
    iolens_record_iter_close(it);
}

/* The same for the DXT iterator against iolens_log_dxt (d NULL: that failed). */
static void walk_streamed_dxt(iolens_log *log, int m, const iolens_dxt *d)
{
    iolens_dxt_iter *it;
    iolens_dxt_rec x;
    iolens_dxt_seg seg[7];
    size_t i = 0, s = 0, got;
    int rc;
    if (iolens_dxt_iter_open(log, m, &it) != IOLENS_OK) {
        SAME(!d);
        return;
    }
    while ((rc = iolens_dxt_iter_next(it, &x)) == 1) {
        SAME(!d || (i < d->count && x.id == d->id[i] && x.write_count == d->write_count[i] &&
                    x.read_count == d->read_count[i] && !strcmp(x.hostname, d->hostname[i])));
        if (i % 3 == 2) {            /* leave some records unread: next() skips them */
            s += d ? d->seg_start[i + 1] - d->seg_start[i] : 0;
            i++;
            continue;
        }
        while ((rc = iolens_dxt_iter_segments(it, seg, 7, &got)) == IOLENS_OK && got)
            for (size_t k = 0; k < got; k++, s++) {
                sink += (uint64_t)seg[k].offset;
                SAME(!d || (s < d->seg_start[i + 1] && seg[k].offset == d->offset[s] &&
                            seg[k].length == d->length[s] &&
                            (!d->thread_id || seg[k].thread_id == d->thread_id[s])));
            }
        if (rc < 0)
            break;
        SAME(!d || s == d->seg_start[i + 1]);
        i++;
    }
    SAME(!d || (rc == 0 && i == d->count));
    iolens_dxt_iter_close(it);
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
        }
        walk_streamed_records(log, m, r);
        iolens_records_free(r);
    } else if (mi->kind == IOLENS_KIND_DXT) {
        iolens_dxt *d;
        if (iolens_log_dxt(log, m, &d) == IOLENS_OK) {
            for (size_t i = 0; i < d->nseg; i++)
                sink += (uint64_t)d->offset[i] + (uint64_t)d->length[i];
            sink += d->seg_start[d->count];
        }
        walk_streamed_dxt(log, m, d);
        iolens_dxt_free(d);
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
        const iolens_module_info *mi = iolens_module_info_get(m);
        if (iolens_log_region(log, m, &p, &len) == IOLENS_OK)
            sink += len ? ((const uint8_t *)p)[len - 1] : 0;
        else if (!h->mod[m].len)
            continue;
        if (mi)                      /* also when the region is damaged: the iterators */
            walk_decoded(log, m, mi);
    }
    sink += strlen(iolens_log_error(log));
    iolens_log_close(log);
    return 0;
}
