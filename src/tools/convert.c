/* `iolens convert [options] IN OUT`: rewrite any 3.x log as a 3.41 log.
 *
 * Options select records (--file, --include-glob, --exclude-glob: convert_select.c),
 * pseudonymise them (--anonymize KEYFILE: anonymize.c), edit the job metadata
 * (--reset-md, --annotate k=v) and choose the layout of the module regions: one
 * compressed stream per process, as an MPI job writes them (default), or one per
 * module (--condense), which compresses the similar records of all processes
 * together (docs/convert.md).
 *
 * Every module is decoded (which upgrades old record versions to the current
 * layout and fixes the byte order) and re-encoded through the writer.  Opaque
 * modules (APXC, APMPI) have no decoder: their stored payload is copied unchanged
 * when it is little-endian (their layout does not depend on the log version);
 * from a big-endian log they are skipped with a warning, because copying would
 * mislabel the byte order.  OUT is written through safe_output.h (never over IN,
 * never left truncated).  Exit status 0, 1 on failure (OUT is left as it was),
 * 2 for a usage error (OUT naming IN included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dxt_region_edit.h"
#include "convert.h"
#include "iolens/dxt_region.h"
#include "iolens/log.h"
#include "safe_output.h"
#include "tools.h"

typedef struct conv {
    const char *in, *out;
    int comp, condense, reset_md;
    const char **annotate;
    size_t nannotate;
    conv_select sel;
    const char *keyfile;
    anon an;
    iolens_log *log;
    iolens_writer *w;
    iol_output out_file;
    char err[512];
} conv;

static const char usage_text[] =
    "usage: iolens convert [options] IN OUT\n"
    "Rewrite log IN (any Darshan 3.x version) as a version 3.41 log OUT.\n"
    "  --zlib | --bzip2 | --none  compression of OUT (default zlib; one of them)\n"
    "  --condense            one compressed stream per module instead of one per process\n"
    "  --file ID|PATH        keep only this record (every module, DXT included)\n"
    "  --include-glob GLOB   keep records whose name matches GLOB (repeatable)\n"
    "  --exclude-glob GLOB   drop records whose name matches GLOB (repeatable)\n"
    "  --reset-md            clear the job metadata (key=value pairs)\n"
    "  --annotate K=V        add K=V to the job metadata (repeatable; after --reset-md)\n"
    "  --anonymize KEYFILE   keyed pseudonyms for names, uid, job id, command line,\n"
    "                        hostnames and metadata (key from `iolens keygen`)\n"
    "  --keep-mounts         with --anonymize: keep mount points of file names\n"
    "  --keep-ext            with --anonymize: keep file extensions\n"
    "  --keep-depth          with --anonymize: one pseudonym per directory level\n"
    "OUT is written beside its place and renamed there when complete (mode 0400);\n"
    "OUT naming IN is refused.\n"
    "Exit status: 0 success, 1 failure (OUT is left as it was), 2 usage error.\n";

/* Options that take a value: the value is the next argument. */
static const char *opt_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "iolens convert: %s needs a value\n%s", argv[*i], usage_text);
        return NULL;
    }
    return argv[++*i];
}

static int add_str(const char ***list, size_t *n, const char *v)
{
    const char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l)
        return -1;
    l[(*n)++] = v;
    *list = l;
    return 0;
}

static int parse_args(conv *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->comp = IOLENS_COMP_ZLIB;
    const char *comp_flag = NULL;     /* the compression option given, if any */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int takes = !strcmp(a, "--file") || !strcmp(a, "--include-glob") ||
                    !strcmp(a, "--exclude-glob") || !strcmp(a, "--annotate") ||
                    !strcmp(a, "--anonymize");
        if (takes && !(v = opt_value(argc, argv, &i)))
            return -1;
        int comp = !strcmp(a, "--zlib") ? IOLENS_COMP_ZLIB
                 : !strcmp(a, "--bzip2") ? IOLENS_COMP_BZIP2
                 : !strcmp(a, "--none") ? IOLENS_COMP_NONE : -1;
        if (comp >= 0 && comp_flag && strcmp(comp_flag, a)) {
            /* Contradictory: refused rather than letting the last one win. */
            fprintf(stderr, "iolens convert: %s and %s exclude each other\n%s", comp_flag, a,
                    usage_text);
            return -1;
        }
        if (comp >= 0) {
            c->comp = comp;
            comp_flag = a;
        } else if (!strcmp(a, "--condense"))
            c->condense = 1;
        else if (!strcmp(a, "--reset-md"))
            c->reset_md = 1;
        else if (!strcmp(a, "--keep-mounts"))
            c->an.keep_mounts = 1;
        else if (!strcmp(a, "--keep-ext"))
            c->an.keep_ext = 1;
        else if (!strcmp(a, "--keep-depth"))
            c->an.keep_depth = 1;
        else if (!strcmp(a, "--file"))
            c->sel.file = v;
        else if (!strcmp(a, "--anonymize"))
            c->keyfile = v;
        else if (takes) {
            int bad = !strcmp(a, "--include-glob") ? add_str(&c->sel.include, &c->sel.ninclude, v)
                    : !strcmp(a, "--exclude-glob") ? add_str(&c->sel.exclude, &c->sel.nexclude, v)
                    : strchr(v, '=') && v[0] != '=' && !strchr(v, '\n')
                          ? add_str(&c->annotate, &c->nannotate, v) : 1;
            if (bad) {
                fprintf(stderr, "iolens convert: bad %s value '%s'\n%s", a, v, usage_text);
                return -1;
            }
        }
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
    if (!c->keyfile && (c->an.keep_mounts || c->an.keep_ext || c->an.keep_depth)) {
        fprintf(stderr, "iolens convert: --keep-* options need --anonymize\n%s", usage_text);
        return -1;
    }
    return 0;
}

static void conv_free(conv *c)
{
    conv_select_free(&c->sel);
    anon_free(&c->an);
    free(c->sel.include), free(c->sel.exclude), free(c->annotate);
    memset(c->an.key, 0, sizeof c->an.key);
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

/* Names of the kept records; pseudonyms (with their re-derived ids) when anonymising. */
static int copy_names(conv *c)
{
    size_t n = iolens_log_name_count(c->log);
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        int rc = iolens_log_name_at(c->log, i, &id, &name);
        if (rc)
            return fail_read(c, rc, "name table");
        if (!conv_select_keeps(&c->sel, id))
            continue;
        if (c->keyfile) {
            name = anon_name(&c->an, id);
            id = anon_id(&c->an, id);
        }
        if ((rc = iolens_writer_add_name(c->w, id, name)))
            return fail_write(c, rc, "name table");
    }
    return 0;
}

static int copy_opaque(conv *c, const iolens_module_info *mi)
{
    const iolens_header *h = iolens_log_header(c->log);
    if (c->sel.active || c->keyfile) {
        fprintf(stderr, "iolens convert: %s: warning: %s module left out (its records have "
                "no decoder, so they cannot be %s)\n", c->in, mi->name,
                c->keyfile ? "anonymised" : "selected");
        return 0;
    }
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

static int keeps_id(const void *ctx, uint64_t id)
{
    return conv_select_keeps(&((const conv *)ctx)->sel, id);
}

static uint64_t anon_id_of(const void *ctx, uint64_t id)
{
    return anon_id(&((const conv *)ctx)->an, id);
}

/* The segments' regions (dxt_region_edit.h): the records of the DXT records
 * kept, with the ids the rewrite gives those records and the REGION records. */
static int copy_dxt_regions(conv *c, const iolens_module_info *mi)
{
    const void *payload;
    size_t len, out_len;
    int rc = iolens_log_region(c->log, mi->id, &payload, &len);
    if (rc)
        return fail_read(c, rc, mi->name);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return fail_write(c, IOLENS_E_NOMEM, mi->name);
    memcpy(buf, payload, len);
    iol_dxt_region_edit e = {c, c->sel.active ? keeps_id : NULL, c->keyfile ? anon_id_of : NULL,
                             NULL};
    if ((rc = iol_dxt_region_edit_run(buf, len, &e, &out_len)) != 0) {
        free(buf);
        return fail_read(c, rc, "DXT_REGION module: a record does not fit its region");
    }
    if (out_len)
        rc = iolens_writer_put_region(c->w, mi->id, iolens_log_header(c->log)->mod_ver[mi->id],
                                      buf, out_len);
    free(buf);
    return rc ? fail_write(c, rc, mi->name) : 0;
}

/* Decode module `id` with the decoder of its kind and re-encode it. */
static int copy_module(conv *c, const iolens_module_info *mi)
{
    int rc = 0, wrc = 0;
    if (mi->id == IOLENS_DXT_REGION_MODULE)
        return copy_dxt_regions(c, mi);
    switch (mi->kind) {
    case IOLENS_KIND_OPAQUE:
        return copy_opaque(c, mi);
    case IOLENS_KIND_LUSTRE: {
        iolens_lustre *l;
        if (!(rc = iolens_log_lustre(c->log, &l))) {
            conv_filter_lustre(&c->sel, l);
            if (c->keyfile)
                anon_lustre(&c->an, l);
            wrc = iolens_writer_put_lustre(c->w, l);
            iolens_lustre_free(l);
        }
        break;
    }
    case IOLENS_KIND_HEATMAP: {
        iolens_heatmap *hm;
        if (!(rc = iolens_log_heatmap(c->log, &hm))) {
            conv_filter_heatmap(&c->sel, hm);
            if (c->keyfile)
                anon_heatmap(&c->an, hm);
            wrc = iolens_writer_put_heatmap(c->w, hm);
            iolens_heatmap_free(hm);
        }
        break;
    }
    case IOLENS_KIND_DXT: {
        iolens_dxt *d;
        if (!(rc = iolens_log_dxt(c->log, mi->id, &d))) {
            conv_filter_dxt(&c->sel, d);
            if (c->keyfile)
                anon_dxt(&c->an, d);
            wrc = iolens_writer_put_dxt(c->w, d);
            iolens_dxt_free(d);
        }
        break;
    }
    default: {
        iolens_records *r;
        if (!(rc = iolens_log_records(c->log, mi->id, &r))) {
            conv_filter_records(&c->sel, r);
            if (c->keyfile)
                anon_records(&c->an, r);
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

/* The job record with the metadata edits and pseudonyms asked for. */
static int write_job(conv *c)
{
    iolens_job job = *iolens_log_job(c->log);
    int rc = 0;
    if (c->keyfile)
        rc = anon_job(&c->an, iolens_log_job(c->log), &job);
    if (!rc && c->reset_md)
        job.metadata[0] = '\0';
    for (size_t i = 0; !rc && i < c->nannotate; i++)
        rc = conv_annotate(&job, c->annotate[i]);
    if (rc == IOLENS_E_INVALID_ARG)
        snprintf(c->err, sizeof c->err, "%s: job metadata: annotations do not fit in "
                 "its 1024 bytes", c->out);
    else if (rc)
        snprintf(c->err, sizeof c->err, "%s: job record: %s", c->out, iolens_strerror(rc));
    if (!rc && (rc = iolens_writer_set_job(c->w, &job)))
        fail_write(c, rc, "job record");
    if (c->keyfile)
        anon_job_free(&job);
    return rc;
}

static int convert(conv *c)
{
    int rc = write_job(c);
    if (rc)
        return rc;
    if ((rc = copy_names(c)) || (rc = copy_modules(c)))
        return rc;
    iolens_writer_set_partial(c->w, iolens_log_header(c->log)->partial_flag);
    return 0;
}

/* Read IN and write the converted log at c->out_file.path.  0, or 1 with the reason printed. */
static int convert_file(conv *c)
{
    int rc;
    if (c->keyfile && anon_load_key(&c->an, c->keyfile, c->err, sizeof c->err)) {
        fprintf(stderr, "iolens convert: %s\n", c->err);
        return 1;
    }
    rc = iolens_log_open(c->in, &c->log, c->err, sizeof c->err);
    if (rc) {
        fprintf(stderr, "iolens convert: %s: %s\n", c->in, *c->err ? c->err : iolens_strerror(rc));
        return 1;
    }
    c->an.job = iolens_log_job(c->log);
    if ((rc = conv_select_build(&c->sel, c->log)) ||
        (c->keyfile && (rc = anon_build_names(&c->an, c->log)))) {
        fprintf(stderr, "iolens convert: %s: %s\n", c->in,
                rc == IOLENS_E_INVALID_ARG ? "--file names no record of this log"
                                           : iolens_strerror(rc));
        return 1;
    }
    if ((rc = iolens_writer_open(c->out_file.path, c->comp, &c->w))) {
        fprintf(stderr, "iolens convert: %s: %s\n", c->out, iolens_strerror(rc));
        return 1;
    }
    iolens_writer_set_per_process(c->w, !c->condense);
    c->err[0] = '\0';
    rc = convert(c);
    if (rc) {
        iolens_writer_abort(c->w);
    } else {
        char werr[512] = "";
        rc = iolens_writer_close_err(c->w, werr, sizeof werr);
        if (rc)
            snprintf(c->err, sizeof c->err, "%s: %s", c->out, *werr ? werr : iolens_strerror(rc));
    }
    if (rc) {
        fprintf(stderr, "iolens convert: %s\n", c->err);
        return 1;
    }
    return 0;
}

int iol_cmd_convert(int argc, char **argv)
{
    conv c;
    int rc = parse_args(&c, argc, argv);
    if (rc) {
        conv_free(&c);
        return rc < 0 ? 2 : 0;
    }
    /* Before anything is read: OUT never replaces IN (nor the key). */
    const char *inputs[] = {c.in, c.keyfile};
    rc = iol_output_begin(&c.out_file, c.out, inputs, 2, IOL_OUT_LOG, c.err, sizeof c.err);
    if (rc) {
        fprintf(stderr, "iolens convert: %s\n", c.err);
        conv_free(&c);
        return rc;
    }
    rc = convert_file(&c);
    if (!rc && (rc = iol_output_commit(&c.out_file, c.err, sizeof c.err)))
        fprintf(stderr, "iolens convert: %s\n", c.err);
    if (rc)
        iol_output_discard(&c.out_file);
    if (c.log)
        iolens_log_close(c.log);
    conv_free(&c);
    return rc;
}
