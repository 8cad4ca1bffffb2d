/* `iolens convert [--bzip2|--zlib] IN OUT`: rewrite any 3.x log as a 3.41 log.
 *
 * Every module is decoded (which upgrades old record versions to the current
 * layout and fixes the byte order) and re-encoded through the writer.  Opaque
 * modules (APXC, APMPI) have no decoder: their stored payload is copied unchanged
 * when it is little-endian (their layout does not depend on the log version);
 * from a big-endian log they are skipped with a warning, because copying would
 * mislabel the byte order.  Exit status 0, 1 on failure (OUT is then removed),
 * 2 for a usage error. */
#include <stdio.h>
#include <string.h>
#include "iolens/log.h"
#include "tools.h"

typedef struct conv {
    const char *in, *out;
    int comp;
    iolens_log *log;
    iolens_writer *w;
    char err[512];
} conv;

static const char usage_text[] =
    "usage: iolens convert [--zlib|--bzip2] IN OUT\n"
    "Rewrite log IN (any Darshan 3.x version) as a version 3.41 log OUT.\n";

static int parse_args(conv *c, int argc, char **argv)
{
    c->in = c->out = NULL;
    c->comp = IOLENS_COMP_ZLIB;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--zlib"))
            c->comp = IOLENS_COMP_ZLIB;
        else if (!strcmp(argv[i], "--bzip2"))
            c->comp = IOLENS_COMP_BZIP2;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "iolens convert: unknown option '%s'\n%s", argv[i], usage_text);
            return -1;
        } else if (!c->in)
            c->in = argv[i];
        else if (!c->out)
            c->out = argv[i];
        else {
            fprintf(stderr, "iolens convert: too many arguments\n%s", usage_text);
            return -1;
        }
    }
    if (!c->out) {
        fprintf(stderr, "iolens convert: need IN and OUT\n%s", usage_text);
        return -1;
    }
    return 0;
}

/* Record the first failure's detail: from the reader or the writer. */
static int fail_read(conv *c, int rc, const char *what)
{
    const char *d = iolens_log_error(c->log);
    snprintf(c->err, sizeof c->err, "%s: %s: %s", c->in, what,
             d && *d ? d : iolens_strerror(rc));
    return rc;
}

static int fail_write(conv *c, int rc, const char *what)
{
    const char *d = iolens_writer_error(c->w);
    snprintf(c->err, sizeof c->err, "%s: %s: %s", c->out, what,
             d && *d ? d : iolens_strerror(rc));
    return rc;
}

static int copy_names(conv *c)
{
    size_t n = iolens_log_name_count(c->log);
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        int rc = iolens_log_name_at(c->log, i, &id, &name);
        if (rc)
            return fail_read(c, rc, "name table");
        if ((rc = iolens_writer_add_name(c->w, id, name)))
            return fail_write(c, rc, "name table");
    }
    return 0;
}

static int copy_opaque(conv *c, const iolens_module_info *mi)
{
    const iolens_header *h = iolens_log_header(c->log);
    if (h->big_endian) {
        fprintf(stderr, "iolens convert: %s: warning: %s module skipped (its records "
                "have no decoder and are stored big-endian)\n", c->in, mi->name);
        return 0;
    }
    const void *payload;
    size_t len;
    int rc = iolens_log_region(c->log, mi->id, &payload, &len);
    if (rc)
        return fail_read(c, rc, mi->name);
    if ((rc = iolens_writer_put_region(c->w, mi->id, h->mod_ver[mi->id], payload, len)))
        return fail_write(c, rc, mi->name);
    return 0;
}

/* Decode module `id` with the decoder of its kind and re-encode it. */
static int copy_module(conv *c, const iolens_module_info *mi)
{
    int rc = 0, wrc = 0;
    switch (mi->kind) {
    case IOLENS_KIND_OPAQUE:
        return copy_opaque(c, mi);
    case IOLENS_KIND_LUSTRE: {
        iolens_lustre *l;
        if (!(rc = iolens_log_lustre(c->log, &l))) {
            wrc = iolens_writer_put_lustre(c->w, l);
            iolens_lustre_free(l);
        }
        break;
    }
    case IOLENS_KIND_HEATMAP: {
        iolens_heatmap *hm;
        if (!(rc = iolens_log_heatmap(c->log, &hm))) {
            wrc = iolens_writer_put_heatmap(c->w, hm);
            iolens_heatmap_free(hm);
        }
        break;
    }
    case IOLENS_KIND_DXT: {
        iolens_dxt *d;
        if (!(rc = iolens_log_dxt(c->log, mi->id, &d))) {
            wrc = iolens_writer_put_dxt(c->w, d);
            iolens_dxt_free(d);
        }
        break;
    }
    default: {
        iolens_records *r;
        if (!(rc = iolens_log_records(c->log, mi->id, &r))) {
            wrc = iolens_writer_put_records(c->w, r);
            iolens_records_free(r);
        }
        break;
    }
    }
    if (rc)
        return fail_read(c, rc, mi->name);
    if (wrc)
        return fail_write(c, wrc, mi->name);
    return 0;
}

static int copy_modules(conv *c)
{
    const iolens_header *h = iolens_log_header(c->log);
    for (int i = 0; i < IOL_MAX_MODULES; i++) {
        if (!h->mod[i].len)
            continue;
        const iolens_module_info *mi = i < IOL_MOD_COUNT_KNOWN ? iolens_module_info_get(i)
                                                               : NULL;
        if (!mi) {
            fprintf(stderr, "iolens convert: %s: warning: unknown module id %d skipped\n",
                    c->in, i);
            continue;
        }
        int rc = copy_module(c, mi);
        if (rc)
            return rc;
    }
    return 0;
}

static int convert(conv *c)
{
    int rc = iolens_writer_set_job(c->w, iolens_log_job(c->log));
    if (rc)
        return fail_write(c, rc, "job record");
    if ((rc = copy_names(c)) || (rc = copy_modules(c)))
        return rc;
    iolens_writer_set_partial(c->w, iolens_log_header(c->log)->partial_flag);
    return 0;
}

int iol_cmd_convert(int argc, char **argv)
{
    conv c;
    int rc = parse_args(&c, argc, argv);
    if (rc)
        return rc < 0 ? 2 : 0;
    rc = iolens_log_open(c.in, &c.log, c.err, sizeof c.err);
    if (rc) {
        fprintf(stderr, "iolens convert: %s: %s\n", c.in, *c.err ? c.err : iolens_strerror(rc));
        return 1;
    }
    if ((rc = iolens_writer_open(c.out, c.comp, &c.w))) {
        fprintf(stderr, "iolens convert: %s: %s\n", c.out, iolens_strerror(rc));
        iolens_log_close(c.log);
        return 1;
    }
    c.err[0] = '\0';
    rc = convert(&c);
    if (rc) {
        iolens_writer_abort(c.w);
    } else {
        char werr[512] = "";
        rc = iolens_writer_close_err(c.w, werr, sizeof werr);
        if (rc)
            snprintf(c.err, sizeof c.err, "%s: %s", c.out, *werr ? werr : iolens_strerror(rc));
    }
    iolens_log_close(c.log);
    if (rc) {
        fprintf(stderr, "iolens convert: %s\n", c.err);
        return 1;
    }
    return 0;
}
