/* Internal interface of `iolens parse` (darshan-parser's text, byte for byte) and
 * of the text helpers it shares with other verbs.  Log-format spec section 9. */
#ifndef IOLENS_TOOLS_PARSE_H
#define IOLENS_TOOLS_PARSE_H

#include <stdint.h>
#include <stdio.h>
#include "iolens/log.h"
#include "iolens/metrics.h"

/* ---------------------------------------------------------------- text output */
/* A large output buffer in front of a FILE: darshan-parser output is mostly short
 * fields, so appending to memory and writing in big blocks is what keeps a
 * million-record log fast.  `err` is set once a write fails. */
typedef struct iol_text {
    FILE *fp;
    char *buf;
    size_t len, cap;
    int err;
} iol_text;

int iol_text_init(iol_text *t, FILE *fp);       /* 0 or -1 (no memory) */
void iol_text_flush(iol_text *t);
void iol_text_free(iol_text *t);                /* flushes first */
void iol_text_put(iol_text *t, const char *s, size_t n);
void iol_text_puts(iol_text *t, const char *s);
void iol_text_putc(iol_text *t, char c);
void iol_text_i64(iol_text *t, int64_t v);      /* %PRId64 */
void iol_text_u64(iol_text *t, uint64_t v);     /* %PRIu64 */
void iol_text_f6(iol_text *t, double v);        /* %f, glibc rounding and nan/inf */
void iol_text_printf(iol_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Room for n more bytes at the returned pointer (the caller then adds n to len);
 * NULL when n exceeds the buffer (use iol_text_put). */
char *iol_text_reserve(iol_text *t, size_t n);

/* The same number formats into a caller buffer; return the length (no NUL).
 * Buffers: 24 bytes for integers, IOL_FMT_F6_MAX for %f. */
#define IOL_FMT_F6_MAX 400
size_t iol_fmt_i64(char *out, int64_t v);
size_t iol_fmt_u64(char *out, uint64_t v);
size_t iol_fmt_f6(char *out, double v);
size_t iol_fmt_f4(char *out, double v);       /* %.4f */

/* Items 1-4 of darshan-parser's output (spec 9.1), which darshan-dxt-parser
 * prints too: version warning, job block, region block, mount block. */
void iol_print_preamble(iol_text *t, const iolens_header *h, const iolens_job *j);

/* ---------------------------------------------------------------- options */
typedef struct iol_parse_opts {
    int base, total, file, perf, show_incomplete;
    int no_uuids;            /* --no-uuid: DFS/DAOS columns of a darshan-parser without libuuid */
} iol_parse_opts;

/* Prints the description text of (module, stored record version), Appendix A;
 * returns 1 if there is one, 0 (nothing printed) if not. */
int iol_text_module_desc(iol_text *out, int module, uint32_t version);

/* ---------------------------------------------------------------- counter lines */
/* Per-log context for counter lines: the mount table with cached lengths. */
typedef struct iol_line_ctx {
    iolens_log *log;
    const iolens_job *job;
    size_t *mount_len;
    int uuids;               /* DFS/DAOS: print pool:container uuids (libuuid build) */
} iol_line_ctx;

int iol_line_ctx_init(iol_line_ctx *c, iolens_log *log);
void iol_line_ctx_free(iol_line_ctx *c);

/* Counter lines (section 9.4) of one record of a counter or MDHIM module; the
 * printer keeps what is the same for every record of the module. */
typedef struct iol_rec_printer iol_rec_printer;
iol_rec_printer *iol_rec_printer_new(iol_line_ctx *c, const iolens_module_info *mi);
void iol_print_record(iol_text *t, iol_rec_printer *p, const iolens_record *r);
void iol_rec_printer_free(iol_rec_printer *p);
void iol_print_lustre(iol_text *t, iol_line_ctx *c, const iolens_lustre *l);
void iol_print_heatmap(iol_text *t, iol_line_ctx *c, const iolens_heatmap *h);

/* ---------------------------------------------------------------- summaries */
/* --total (9.5), --file (9.6), --perf (9.7): the figures of iolens/metrics.h in
 * darshan-parser's text (parse_summaries.c). */
void iol_total_print(iol_text *t, const iolens_total_result *r);
void iol_files_print(iol_text *t, const iolens_files_result *r);
void iol_perf_print(iol_text *t, const iolens_perf_result *r);

#endif
