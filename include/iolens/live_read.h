/* Reading one module region of a running process's safety copy (docs/live.md),
 * consistently and cheaply: the work of one round of `iolens top` or `iolens
 * exporter` for one region, in one call.
 *
 * The reader keeps, per record, the seq word of its last whole reading and the
 * figures made of it (iolens_live_state).  A call reads the region's seq words
 * (include/iolens/live.h says where they are), reads again only the records whose
 * word changed, with pread (the copy is never mapped for them: no page of the
 * process's records enters the reader's resident size, a copy truncated under the
 * reader is a short read, not a SIGBUS), reads the words again and keeps a record
 * only when its word was even and the same before and after.  A record caught
 * mid-update is tried again (`retries` passes), else its previous reading stays
 * and it is counted busy.  Figures only grow while the process runs, so the sums
 * the caller keeps (changed by `delta`) never go backwards.
 *
 * Return IOLENS_OK or a negative iolens_status; never print. */
#ifndef IOLENS_LIVE_READ_H
#define IOLENS_LIVE_READ_H

#include <stddef.h>
#include <stdint.h>

#define IOLENS_LIVE_FIGURES 8       /* figures per record (iolens.live.snapshot.FIGURES) */

/* One counter that adds to a figure: record word `word` (the record's 8-byte
 * words: id, rank, then the int counters, then the float counters) read as an
 * int64 (is_float 0) or a double (1), added (as a double) to figure `figure`. */
typedef struct iolens_live_term {
    uint32_t word;
    uint32_t figure;
    uint32_t is_float;
} iolens_live_term;

typedef struct iolens_live_layout {
    uint32_t record_words;          /* 8-byte words per record (>= 2) */
    size_t n_terms;
    const iolens_live_term *terms;
    size_t n_last;                  /* float words whose maximum is the record's */
    const uint32_t *last_words;     /* latest end timestamp */
    uint32_t moved_figures;         /* bit f: figure f adds to state->moved */
} iolens_live_layout;

/* Where the seq words are (the copy's live trailer).  len 0: an older copy
 * without them; every record is read every call, unchecked. */
typedef struct iolens_live_seqs {
    uint64_t off, len, pool_off;
    uint32_t shift;
} iolens_live_seqs;

/* What the caller keeps of the region between calls, for `cap` records.  A
 * record not read yet has an odd seq (1).  words: whole records (record_words
 * each), or NULL when not kept.  moved: per record, the sum of its figures
 * in layout->moved_figures (bytes moved, for the busiest files), or NULL. */
typedef struct iolens_live_state {
    size_t cap;
    uint32_t *seq;
    double *figs;                   /* IOLENS_LIVE_FIGURES per record */
    int64_t *words;
    double *moved;
} iolens_live_state;

typedef struct iolens_live_result {
    size_t changed;                 /* records read again and kept */
    size_t busy;                    /* records caught mid-update every try */
    double last;                    /* latest end timestamp of the records kept, 0 none */
    double delta[IOLENS_LIVE_FIGURES];  /* the change of the figures' sums */
} iolens_live_result;

/* Read the n records at file offset `off` of the copy open at fd.  Errors:
 * IOLENS_E_INVALID_ARG (n > state->cap, a term or last word outside a record,
 * a figure >= IOLENS_LIVE_FIGURES, record_words < 2), IOLENS_E_BAD_REGION (a
 * record's seq word outside the seq table, offsets that overflow),
 * IOLENS_E_TRUNCATED (the file ends before the region or the table),
 * IOLENS_E_IO (pread failed; errno kept), IOLENS_E_NOMEM.  On error the state
 * holds only whole readings (the records kept before the error). */
int iolens_live_read_region(int fd, uint64_t off, size_t n, const iolens_live_layout *layout,
                            const iolens_live_seqs *seqs, int retries,
                            iolens_live_state *state, iolens_live_result *out);

/* ---- a whole copy in one call (src/format/live_read_copy.c) */

#define IOLENS_LIVE_HEAD 1384       /* the 3.41 header (1328 bytes) and the job
                                       record's fixed fields (56: uid, start, end,
                                       nprocs, jobid) */
#define IOLENS_LIVE_LAYERS 8        /* layers of one call, at most */

/* One layer of the copy: the module whose region (the header's module map)
 * holds its records, how they make figures, and what the caller keeps of them. */
typedef struct iolens_live_layer {
    uint32_t module;                /* < 64 */
    iolens_live_layout layout;
    iolens_live_state *state;
} iolens_live_layer;

typedef struct iolens_live_copy_result {
    unsigned char head[IOLENS_LIVE_HEAD];   /* as read this round (one pread) */
    int grow;                       /* 1: a layer has more records than its state's
                                       cap; no region was read: grow the states to
                                       records[] and call again */
    size_t records[IOLENS_LIVE_LAYERS];     /* per layer, its region's records (0:
                                       none, or the region is not inside `size`) */
    iolens_live_result layer[IOLENS_LIVE_LAYERS];
} iolens_live_copy_result;

/* One round of a reader over the copy open at fd, `size` bytes long when it was
 * opened: the head read with one pread, then each layer's region as
 * iolens_live_read_region reads it (the same guarantees).  A region that does
 * not fit in `size` has no records (the copy's size is fixed once it exists).
 * Errors: IOLENS_E_INVALID_ARG (n_layers > IOLENS_LIVE_LAYERS, a module >= 64, a
 * NULL state, record_words < 2; a layout iolens_live_read_region refuses, once
 * its region has records), IOLENS_E_TRUNCATED (the file ends before the head)
 * and those of iolens_live_read_region.  On error the states hold only whole
 * readings. */
int iolens_live_read_copy(int fd, uint64_t size, const iolens_live_layer *layers,
                          size_t n_layers, const iolens_live_seqs *seqs, int retries,
                          iolens_live_copy_result *out);

#endif
