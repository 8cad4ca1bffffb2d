/* One round of a live reader over one module region (include/iolens/live_read.h).
 *
 * The seq words of the region are read with one pread, compared with the words
 * kept, and the changed records are read in batches: one pread per run of
 * neighbouring changed records (gaps of a few records are read through rather
 * than paying a call each), then the seq words of the batch again.  A record
 * is kept when its word is even and the same before and after (a seqlock read:
 * every update makes the word odd and then even again, so an equal even word
 * means no update overlapped the copy).  The memory used is freed before the
 * call returns; it is bounded by the region's seq span and BATCH_BYTES. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolens/live_read.h"
#include "iolens/log.h"
#include "internal.h"

/* Records read per batch (a transient buffer), and the gap read through. */
enum { BATCH_BYTES = 256 * 1024, GAP_RECORDS = 4 };

int iol_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t got = pread(fd, p, len, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return IOLENS_E_IO;
        if (got == 0)
            return IOLENS_E_TRUNCATED;
        p += got;
        len -= (size_t)got;
        off += (uint64_t)got;
    }
    return IOLENS_OK;
}

static int layout_ok(const iolens_live_layout *l)
{
    if (l->record_words < 2 || l->record_words > BATCH_BYTES / 8 ||
        (l->n_terms && !l->terms) || (l->n_last && !l->last_words))
        return 0;
    for (size_t t = 0; t < l->n_terms; t++)
        if (l->terms[t].word >= l->record_words || l->terms[t].figure >= IOLENS_LIVE_FIGURES)
            return 0;
    for (size_t t = 0; t < l->n_last; t++)
        if (l->last_words[t] >= l->record_words)
            return 0;
    return 1;
}

/* The call's view of the region: where record i and its seq word are. */
typedef struct region {
    int fd;
    uint64_t off, rs;               /* first record, bytes per record */
    const iolens_live_seqs *seqs;
    uint64_t first_word;            /* seq index of record 0 */
    const iolens_live_layout *layout;
    iolens_live_state *state;
    iolens_live_result *out;
} region;

static uint64_t seq_index(const region *r, size_t i)
{
    return (r->off + i * r->rs - r->seqs->pool_off) >> r->seqs->shift;
}

/* The offsets of the region and of its seq words fit the file's 64 bits and
 * the seq table. */
static int region_ok(const region *r, size_t n)
{
    if (n > UINT64_MAX / r->rs || r->off > UINT64_MAX - n * r->rs)
        return 0;
    const iolens_live_seqs *s = r->seqs;
    if (s->len == 0)
        return 1;
    if (r->off < s->pool_off || s->shift > 63 || s->off > UINT64_MAX - s->len)
        return 0;
    return seq_index(r, n - 1) < s->len / 4;
}

/* Read the seq words of records [a, b] into words[seq_index - first_word]. */
static int read_seqs(const region *r, size_t a, size_t b, uint32_t *words)
{
    uint64_t lo = seq_index(r, a), hi = seq_index(r, b);
    /* Ordered after the record reads before it, before those after it. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int rc = iol_pread_all(r->fd, words + (lo - r->first_word), (size_t)(hi - lo + 1) * 4,
                     r->seqs->off + lo * 4);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return rc;
}

/* Keep record i, read whole at rec, with seq word seq. */
static void keep(const region *r, size_t i, const unsigned char *rec, uint32_t seq)
{
    const iolens_live_layout *l = r->layout;
    double figs[IOLENS_LIVE_FIGURES] = {0};
    for (size_t t = 0; t < l->n_terms; t++) {
        const unsigned char *w = rec + (size_t)l->terms[t].word * 8;
        if (l->terms[t].is_float) {
            double v;
            memcpy(&v, w, 8);
            figs[l->terms[t].figure] += v;
        } else {
            int64_t v;
            memcpy(&v, w, 8);
            figs[l->terms[t].figure] += (double)v;
        }
    }
    double *kept = r->state->figs + i * IOLENS_LIVE_FIGURES;
    for (int f = 0; f < IOLENS_LIVE_FIGURES; f++) {
        r->out->delta[f] += figs[f] - kept[f];
        kept[f] = figs[f];
    }
    for (size_t t = 0; t < l->n_last; t++) {
        double v;
        memcpy(&v, rec + (size_t)l->last_words[t] * 8, 8);
        if (v > r->out->last)
            r->out->last = v;
    }
    if (r->state->words)
        memcpy(r->state->words + i * l->record_words, rec, r->rs);
    if (r->state->moved) {
        double moved = 0;
        for (int f = 0; f < IOLENS_LIVE_FIGURES; f++)
            if (l->moved_figures >> f & 1)
                moved += figs[f];
        r->state->moved[i] = moved;
    }
    r->state->seq[i] = seq;
    r->out->changed++;
}

/* How many of todo[k..ntodo) fit one batch: runs of neighbours (gaps of at most
 * GAP_RECORDS read through) whose bytes fit BATCH_BYTES. */
static size_t batch_end(const region *r, const size_t *todo, size_t k, size_t ntodo)
{
    size_t bytes = 0, end = k;
    while (end < ntodo) {
        size_t run = 1;
        while (end + run < ntodo && todo[end + run] - todo[end + run - 1] <= GAP_RECORDS)
            run++;
        size_t span = (todo[end + run - 1] - todo[end] + 1) * r->rs;
        if (bytes + span > BATCH_BYTES) {
            if (bytes > 0)
                break;
            /* one run longer than a batch: take as many records as fit */
            run = 1;
            while (end + run < ntodo && todo[end + run] - todo[end] < BATCH_BYTES / r->rs)
                run++;
            span = (todo[end + run - 1] - todo[end] + 1) * r->rs;
        }
        bytes += span;
        end += run;
    }
    return end;
}

/* Read the records todo[k..e) into buf, one pread per run; where[j] gets the
 * offset in buf of todo[k + j]. */
static int read_batch(const region *r, const size_t *todo, size_t k, size_t e,
                      unsigned char *buf, size_t *where)
{
    size_t used = 0;
    for (size_t a = k; a < e;) {
        size_t b = a + 1;
        while (b < e && todo[b] - todo[b - 1] <= GAP_RECORDS)
            b++;
        size_t len = (todo[b - 1] - todo[a] + 1) * r->rs;
        int rc = iol_pread_all(r->fd, buf + used, len, r->off + todo[a] * r->rs);
        if (rc)
            return rc;
        for (size_t j = a; j < b; j++)
            where[j - k] = used + (todo[j] - todo[a]) * r->rs;
        used += len;
        a = b;
    }
    return IOLENS_OK;
}

/* Read the records todo[0..*ntodo) again; those kept leave todo.  before: the
 * seq words read before (replaced by those read after, for the next pass). */
static int pass(const region *r, size_t *todo, size_t *ntodo, uint32_t *before,
                uint32_t *after, unsigned char *buf, size_t *where)
{
    int checked = r->seqs->len != 0;
    size_t left = 0;
    for (size_t k = 0; k < *ntodo;) {
        size_t e = batch_end(r, todo, k, *ntodo);
        int rc = read_batch(r, todo, k, e, buf, where);
        if (rc == IOLENS_OK && checked)
            rc = read_seqs(r, todo[k], todo[e - 1], after);
        if (rc)
            return rc;
        for (size_t j = k; j < e; j++) {
            size_t i = todo[j];
            if (!checked) {
                keep(r, i, buf + where[j - k], 0);
                continue;
            }
            uint64_t w = seq_index(r, i) - r->first_word;
            if (before[w] == after[w] && !(before[w] & 1u))
                keep(r, i, buf + where[j - k], before[w]);
            else
                todo[left++] = i;
        }
        k = e;
    }
    /* the words read after this pass are the "before" of the next */
    for (size_t j = 0; j < left; j++) {
        uint64_t w = seq_index(r, todo[j]) - r->first_word;
        before[w] = after[w];
    }
    *ntodo = left;
    return IOLENS_OK;
}

int iolens_live_read_region(int fd, uint64_t off, size_t n, const iolens_live_layout *layout,
                            const iolens_live_seqs *seqs, int retries,
                            iolens_live_state *state, iolens_live_result *out)
{
    if (!layout || !seqs || !state || !out || !layout_ok(layout) || n > state->cap ||
        (n && (!state->seq || !state->figs)))
        return IOLENS_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (n == 0)
        return IOLENS_OK;
    region r = {fd, off, (uint64_t)layout->record_words * 8, seqs, 0, layout, state, out};
    if (!region_ok(&r, n))
        return IOLENS_E_BAD_REGION;
    int checked = seqs->len != 0;
    size_t nwords = 1;
    if (checked) {
        r.first_word = seq_index(&r, 0);
        nwords = (size_t)(seq_index(&r, n - 1) - r.first_word + 1);
    }
    size_t *todo = malloc(n * sizeof *todo), *where = malloc(n * sizeof *where);
    uint32_t *before = malloc(nwords * 4), *after = malloc(nwords * 4);
    unsigned char *buf = malloc(n * r.rs < BATCH_BYTES ? n * r.rs : BATCH_BYTES);
    int rc = todo && where && before && after && buf ? IOLENS_OK : IOLENS_E_NOMEM;
    if (rc == IOLENS_OK && checked)
        rc = read_seqs(&r, 0, n - 1, before);
    size_t ntodo = 0;
    for (size_t i = 0; rc == IOLENS_OK && i < n; i++)
        if (!checked || before[seq_index(&r, i) - r.first_word] != state->seq[i])
            todo[ntodo++] = i;
    for (int p = 0; rc == IOLENS_OK && ntodo > 0 && p < (retries > 0 ? retries : 1); p++)
        rc = pass(&r, todo, &ntodo, before, after, buf, where);
    out->busy = rc == IOLENS_OK ? ntodo : 0;
    free(todo);
    free(where);
    free(before);
    free(after);
    free(buf);
    return rc;
}
