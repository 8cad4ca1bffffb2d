/* Internal interface of `iolens dxt` (darshan-dxt-parser's text, log-format spec
 * section 10).  All output goes to an iol_text; nothing here exits. */
#ifndef IOLENS_TOOLS_DXT_PRINT_H
#define IOLENS_TOOLS_DXT_PRINT_H

#include "iolens/log.h"
#include "parse.h"

/* The Lustre layout of one file: its components and OST ids (NULL: none). */
typedef struct iol_dxt_layout {
    size_t ncomp;
    const int64_t *comp;   /* LUSTRE_COMP_NUM_INDICES per component */
    size_t nost;
    const int64_t *ost;
} iol_dxt_layout;

/* The record header block (spec section 10, item 4); `nthreads` is printed for
 * the versions with thread ids. */
void iol_dxt_print_header(iol_text *t, iolens_log *log, const iolens_dxt_rec *r,
                          size_t nthreads, const iol_dxt_layout *lo);
/* One segment line; `num` is its index among the record's writes or reads. */
void iol_dxt_print_segment(iol_text *t, int module, const iolens_dxt_rec *r,
                           const iolens_dxt_seg *s, int write, int64_t num,
                           const iol_dxt_layout *lo);

#endif
