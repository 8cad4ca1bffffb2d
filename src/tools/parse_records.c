/* Counter lines of darshan-parser (log-format spec 9.4, 7.9, 7.11-7.14):
 *   <module>\t<rank>\t<record id>\t<counter>\t<value>\t<file>\t<mount pt>\t<fs type>\n
 * The part before the counter name and the part after the value are the same for
 * every line of a record, so they are built once per record (name lookup and mount
 * matching happen once per record, not once per line). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

/* A growable string for the per-record line head and tail. */
typedef struct sbuf { char *s; size_t len, cap; } sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return;          /* the line comes out short; the caller sees no crash */
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
}
static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_u64(sbuf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    sb_put(b, tmp, (size_t)n);
}
static void sb_i64(sbuf *b, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
    sb_put(b, tmp, (size_t)n);
}

/* One record's fixed parts. */
typedef struct line {
    sbuf head, tail;
} line;

int iol_line_ctx_init(iol_line_ctx *c, iolens_log *log)
{
    c->log = log;
    c->uuids = 0;
    c->job = iolens_log_job(log);
    c->mount_len = calloc(c->job->nmounts + 1, sizeof *c->mount_len);
    if (!c->mount_len)
        return -1;
    for (size_t i = 0; i < c->job->nmounts; i++)
        c->mount_len[i] = strlen(c->job->mounts[i].path);
    return 0;
}

void iol_line_ctx_free(iol_line_ctx *c)
{
    free(c->mount_len);
    c->mount_len = NULL;
}

/* Section 4.4: the first mount (in the job's sorted order) whose path is a byte
 * prefix of the name; NULL if none or if the name is empty. */
static const iolens_mount *match_mount(const iol_line_ctx *c, const char *name)
{
    if (!name || !*name)
        return NULL;
    for (size_t i = 0; i < c->job->nmounts; i++)
        if (strncmp(name, c->job->mounts[i].path, c->mount_len[i]) == 0)
            return &c->job->mounts[i];
    return NULL;
}

static void uuid_text(sbuf *b, const uint8_t *u)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            sb_put(b, "-", 1);
        char two[2] = {hex[u[i] >> 4], hex[u[i] & 15]};
        sb_put(b, two, 2);
    }
}

static int all_zero(const uint8_t *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (u[i])
            return 0;
    return 1;
}

/* Build head and tail for one record.  aux is the DFS/DAOS extra bytes or NULL.
 * DFS/DAOS mount column (7.12, 7.13): what a darshan-parser built without libuuid
 * prints (N/A), or with c->uuids what a libuuid build prints. */
static void line_begin(line *ln, const iol_line_ctx *c, const iolens_module_info *mi,
                       uint64_t id, int64_t rank, const uint8_t *aux)
{
    ln->head.len = ln->tail.len = 0;
    sb_puts(&ln->head, mi->name);
    sb_put(&ln->head, "\t", 1);
    sb_i64(&ln->head, rank);
    sb_put(&ln->head, "\t", 1);
    sb_u64(&ln->head, id);
    sb_put(&ln->head, "\t", 1);

    const char *name = iolens_log_name(c->log, id);
    sb_put(&ln->tail, "\t", 1);
    if (mi->id == IOL_MOD_DAOS && aux) {
        uint64_t hi, lo;
        memcpy(&hi, aux + 32, 8);
        memcpy(&lo, aux + 40, 8);
        sb_u64(&ln->tail, hi);
        sb_put(&ln->tail, ".", 1);
        sb_u64(&ln->tail, lo);
    } else if (name) {
        sb_puts(&ln->tail, name);
    } else {
        sb_puts(&ln->tail, mi->id == IOL_MOD_BGQ ? "darshan-bgq-record" : "(null)");
    }
    sb_put(&ln->tail, "\t", 1);
    if ((mi->id == IOL_MOD_DFS || mi->id == IOL_MOD_DAOS) && aux) {
        if (!c->uuids) {
            sb_puts(&ln->tail, mi->id == IOL_MOD_DFS ? "N/A" : "N/A:N/A");
        } else if (mi->id == IOL_MOD_DFS && (all_zero(aux, 16) || all_zero(aux + 16, 16))) {
            sb_puts(&ln->tail, "UNKNOWN");
        } else {
            uuid_text(&ln->tail, aux);
            sb_put(&ln->tail, ":", 1);
            uuid_text(&ln->tail, aux + 16);
        }
        sb_puts(&ln->tail, "\tN/A\n");
        return;
    }
    const iolens_mount *m = match_mount(c, name);
    sb_puts(&ln->tail, m ? m->path : "UNKNOWN");
    sb_put(&ln->tail, "\t", 1);
    sb_puts(&ln->tail, m ? m->fstype : "UNKNOWN");
    sb_put(&ln->tail, "\n", 1);
}

static void line_free(line *ln)
{
    free(ln->head.s);
    free(ln->tail.s);
}

/* Write head, counter name, TAB; the caller writes the value; then line_end. */
static void line_start(iol_text *t, const line *ln, const char *counter)
{
    iol_text_put(t, ln->head.s, ln->head.len);
    iol_text_puts(t, counter);
    iol_text_putc(t, '\t');
}
static void line_end(iol_text *t, const line *ln)
{
    iol_text_put(t, ln->tail.s, ln->tail.len);
}

/* One whole line with a single buffer check: the hot path of large logs. */
static void line_emit(iol_text *t, const line *ln, const char *counter, size_t clen,
                      const char *val, size_t vlen)
{
    size_t n = ln->head.len + clen + 1 + vlen + ln->tail.len;
    char *p = iol_text_reserve(t, n);
    if (!p) {
        line_start(t, ln, counter);
        iol_text_put(t, val, vlen);
        line_end(t, ln);
        return;
    }
    memcpy(p, ln->head.s, ln->head.len);
    p += ln->head.len;
    memcpy(p, counter, clen);
    p += clen;
    *p++ = '\t';
    memcpy(p, val, vlen);
    memcpy(p + vlen, ln->tail.s, ln->tail.len);
    t->len += n;
}

static void line_i64(iol_text *t, const line *ln, const char *counter, int64_t v)
{
    line_start(t, ln, counter);
    iol_text_i64(t, v);
    line_end(t, ln);
}

/* Counters printed unsigned (they hold record ids). */
static int is_unsigned_counter(const iolens_module_info *mi, size_t k)
{
    return mi->id == IOL_MOD_POSIX && k == POSIX_RENAMED_FROM;
}

/* Per-module state of the counter-line printer: the record's line parts and the
 * counter name lengths. */
struct iol_rec_printer {
    iol_line_ctx *c;
    const iolens_module_info *mi;
    line ln;
    size_t *ilen, *flen;
};

iol_rec_printer *iol_rec_printer_new(iol_line_ctx *c, const iolens_module_info *mi)
{
    iol_rec_printer *p = calloc(1, sizeof *p);
    if (!p || !(p->ilen = malloc((mi->n_int + mi->n_flt + 1) * sizeof *p->ilen))) {
        free(p);
        return NULL;
    }
    p->c = c;
    p->mi = mi;
    p->flen = p->ilen + mi->n_int;
    for (size_t k = 0; k < mi->n_int; k++)
        p->ilen[k] = strlen(mi->int_names[k]);
    for (size_t k = 0; k < mi->n_flt; k++)
        p->flen[k] = strlen(mi->flt_names[k]);
    return p;
}

void iol_rec_printer_free(iol_rec_printer *p)
{
    if (!p)
        return;
    line_free(&p->ln);
    free(p->ilen);
    free(p);
}

void iol_print_record(iol_text *t, iol_rec_printer *p, const iolens_record *r)
{
    const iolens_module_info *mi = p->mi;
    line *ln = &p->ln;
    char nm[48], val[IOL_FMT_F6_MAX];
    line_begin(ln, p->c, mi, r->id, r->rank, r->aux);
    size_t n_int = r->n_int < mi->n_int ? r->n_int : mi->n_int;
    size_t n_flt = r->n_flt < mi->n_flt ? r->n_flt : mi->n_flt;
    for (size_t k = 0; k < n_int; k++) {
        size_t vl = is_unsigned_counter(mi, k) ? iol_fmt_u64(val, (uint64_t)r->ints[k])
                                               : iol_fmt_i64(val, r->ints[k]);
        line_emit(t, ln, mi->int_names[k], p->ilen[k], val, vl);
    }
    for (size_t k = 0; k < n_flt; k++)
        line_emit(t, ln, mi->flt_names[k], p->flen[k], val, iol_fmt_f6(val, r->flts[k]));
    if (r->has_file_rec_id) {
        line_start(t, ln, mi->id == IOL_MOD_H5D ? "H5D_FILE_REC_ID" : "PNETCDF_VAR_FILE_REC_ID");
        iol_text_u64(t, r->file_rec_id);
        line_end(t, ln);
    }
    for (size_t k = 0; k < r->ntail; k++) {
        snprintf(nm, sizeof nm, "MDHIM_SERVER_%zu", k);
        line_i64(t, ln, nm, r->tail[k]);
    }
}

/* ---------------------------------------------------------------- LUSTRE (7.9) */
static const char *const lustre_comp_names[] = {
    "STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS",
    "EXT_START", "EXT_END", "MIRROR_ID",
};

static const char *pattern_text(int64_t v)
{
    switch (v) {
    case 0: return "raid0";
    case 2: return "mdt";
    case 4: return "raid0,overstriped";
    case 8: return "foreign";
    default: return "N/A";
    }
}

static void flags_text(iol_text *t, int64_t v)
{
    static const char *const bits[] = {"stale", "prefrd", "prefwr", "offline", "init",
                                       "nosync", "extension", "parity", "compress",
                                       "partial", "nocompr", "neg"};
    if (v == -1) {
        iol_text_puts(t, "N/A");
        return;
    }
    int any = 0;
    for (int b = 0; b < 12; b++)
        if (v & ((int64_t)1 << b)) {
            if (any)
                iol_text_putc(t, ',');
            iol_text_puts(t, bits[b]);
            any = 1;
        }
    if (!any)
        iol_text_putc(t, '0');
}

static void print_lustre_comp(iol_text *t, const line *ln, const int64_t *comp,
                              const char *pool, int c, const int64_t *osts, size_t nost)
{
    char nm[96];
    for (int k = 0; k < LUSTRE_COMP_NUM_INDICES; k++) {
        snprintf(nm, sizeof nm, "LUSTRE_COMP%d_%s", c, lustre_comp_names[k]);
        line_start(t, ln, nm);
        if (k == LUSTRE_COMP_STRIPE_PATTERN)
            iol_text_puts(t, pattern_text(comp[k]));
        else if (k == LUSTRE_COMP_FLAGS)
            flags_text(t, comp[k]);
        else
            iol_text_i64(t, comp[k]);
        line_end(t, ln);
    }
    snprintf(nm, sizeof nm, "LUSTRE_COMP%d_POOL_NAME", c);
    line_start(t, ln, nm);
    iol_text_puts(t, pool[0] ? pool : "N/A");
    line_end(t, ln);
    for (size_t j = 0; j < nost; j++) {
        snprintf(nm, sizeof nm, "LUSTRE_COMP%d_OST_ID_%zu", c, j);
        line_i64(t, ln, nm, osts[j]);
    }
}

void iol_print_lustre(iol_text *t, iol_line_ctx *c, const iolens_lustre *l)
{
    const iolens_module_info *mi = iolens_module_info_get(IOL_MOD_LUSTRE);
    line ln = {{0}, {0}};
    for (size_t i = 0; i < l->count; i++) {
        line_begin(&ln, c, mi, l->id[i], l->rank[i], NULL);
        line_i64(t, &ln, "LUSTRE_NUM_COMPONENTS", l->num_comps[i]);
        line_i64(t, &ln, "LUSTRE_NUM_STRIPES", l->num_stripes[i]);
        size_t ost = l->ost_start[i], ost_end = l->ost_start[i + 1];
        size_t ncomp = l->comp_start[i + 1] - l->comp_start[i];
        for (size_t k = 0; k < ncomp; k++) {
            size_t ci = l->comp_start[i] + k;
            const int64_t *comp = l->comp + ci * LUSTRE_COMP_NUM_INDICES;
            int64_t want = comp[LUSTRE_COMP_STRIPE_COUNT];
            /* OST ids are partitioned among components in order; never read
             * past this record's list whatever the counts claim */
            size_t n = want > 0 ? (size_t)want : 0;
            if (n > ost_end - ost)
                n = ost_end - ost;
            print_lustre_comp(t, &ln, comp, l->pool_name[ci], (int)k + 1, l->ost + ost, n);
            ost += n;
        }
    }
    line_free(&ln);
}

/* ---------------------------------------------------------------- HEATMAP (7.11) */
void iol_print_heatmap(iol_text *t, iol_line_ctx *c, const iolens_heatmap *h)
{
    const iolens_module_info *mi = iolens_module_info_get(IOL_MOD_HEATMAP);
    line ln = {{0}, {0}};
    char nm[64];
    for (size_t i = 0; i < h->count; i++) {
        line_begin(&ln, c, mi, h->id[i], h->rank[i], NULL);
        line_start(t, &ln, "HEATMAP_F_BIN_WIDTH_SECONDS");
        iol_text_f6(t, h->bin_width[i]);
        line_end(t, &ln);
        size_t b0 = h->bin_start[i], nb = h->bin_start[i + 1] - b0;
        for (size_t k = 0; k < nb; k++) {
            snprintf(nm, sizeof nm, "HEATMAP_READ_BIN_%zu", k);
            line_i64(t, &ln, nm, h->read_bins[b0 + k]);
        }
        for (size_t k = 0; k < nb; k++) {
            snprintf(nm, sizeof nm, "HEATMAP_WRITE_BIN_%zu", k);
            line_i64(t, &ln, nm, h->write_bins[b0 + k]);
        }
    }
    line_free(&ln);
}
