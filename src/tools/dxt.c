/* `iolens dxt [--show-incomplete] LOG`: the DXT traces of a log, printed exactly
 * as darshan-dxt-parser prints them (log-format spec section 10), except where
 * upstream prints wrong values (docs/deviations.md, section DXT).
 * Exit status (cli.h): 0; 2 for usage errors; 255 when the log cannot be read, a module
 * holds incomplete data (without --show-incomplete), or a record does not parse
 * (the status upstream returns in these cases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dxt_print.h"
#include "dxt_threads.h"
#include "cli.h"
#include "parse.h"
#include "partial_hint.h"
#include "tools.h"

#define DXT_EXIT_FAIL IOL_EXIT_LOG

struct dxt_run {
    iolens_log *log;
    iol_text out;            /* stdout */
    const char *path;
    int show_incomplete;
    iolens_lustre *lustre;   /* LUSTRE records, kept for the DXT_POSIX records */
    size_t *lustre_order;    /* indexes into lustre sorted by (id, index) */
};

static int usage(FILE *out, int status)
{
    fputs("usage: iolens dxt [--show-incomplete] LOG\n"
          "Print the DXT I/O traces of a Darshan log as darshan-dxt-parser does.\n"
          "  --show-incomplete  print what is there even if a module's data is incomplete\n"
          "  --version          print the version and exit\n",
          out);
    return status;
}

static const iolens_lustre *sort_lustre;

static int cmp_lustre(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t ix = sort_lustre->id[x], iy = sort_lustre->id[y];
    if (ix != iy)
        return ix < iy ? -1 : 1;
    return (x > y) - (x < y);
}

static int index_lustre(struct dxt_run *r)
{
    size_t n = r->lustre->count;
    r->lustre_order = malloc((n ? n : 1) * sizeof *r->lustre_order);
    if (!r->lustre_order)
        return -1;
    for (size_t i = 0; i < n; i++)
        r->lustre_order[i] = i;
    sort_lustre = r->lustre;
    qsort(r->lustre_order, n, sizeof *r->lustre_order, cmp_lustre);
    return 0;
}

/* The last LUSTRE record read with this id (upstream's hash keeps the last), or -1. */
static long find_lustre(const struct dxt_run *r, uint64_t id)
{
    if (!r->lustre)
        return -1;
    size_t lo = 0, hi = r->lustre->count;   /* first position with id > `id` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->lustre->id[r->lustre_order[mid]] <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || r->lustre->id[r->lustre_order[lo - 1]] != id)
        return -1;
    return (long)r->lustre_order[lo - 1];
}

/* Partial-data handling (spec 9.3 with darshan-dxt-parser's texts).  Returns 0 to
 * go on, -1 to stop with failure. */
static int check_partial(struct dxt_run *r, const iolens_module_info *mi)
{
    const char *name = mi->name;
    static const char advice[] =
        "\n# To avoid this error, consult the darshan-runtime\n"
        "# documentation and consider setting the\n"
        "# DARSHAN_EXCLUDE_DIRS or DXT_TRIGGER_CONF_PATH\n"
        "# environment variable to prevent Darshan from\n"
        "# instrumenting unecessary files.\n";
    char msg[1024];
    snprintf(msg, sizeof msg, "\n# *%s*: The %s module contains incomplete data!\n"
             "#            This happens when a module runs out of\n"
             "#            memory to store new record data.\n%s",
             r->show_incomplete ? "WARNING" : "ERROR", name, advice);
    iol_text_flush(&r->out);
    if (r->show_incomplete) {
        iol_text_puts(&r->out, msg);
    } else {
        fputs(msg, stderr);
        fputs("\n# You can display the (incomplete) data that is\n"
              "# present in this log using the --show-incomplete\n"
              "# option to darshan-dxt-parser.\n", stderr);
    }
    /* Our own line goes to stderr: stdout stays darshan-dxt-parser's text. */
    iol_text_flush(&r->out);
    iol_partial_hint(stderr, "dxt", r->path, r->log, mi);
    return r->show_incomplete ? 0 : -1;
}

static int parse_failed(struct dxt_run *r, const char *name)
{
    iol_text_flush(&r->out);
    fprintf(stderr, "Error: failed to parse %s module record.\n", name);
    fprintf(stderr, "iolens dxt: %s: %s\n", r->path, iolens_log_error(r->log));
    return -1;
}

static int load_lustre(struct dxt_run *r)
{
    if (iolens_log_lustre(r->log, &r->lustre) != IOLENS_OK)
        return parse_failed(r, "LUSTRE");
    if (index_lustre(r) != 0) {
        fprintf(stderr, "iolens dxt: out of memory\n");
        return -1;
    }
    return 0;
}

/* The Lustre layout of a DXT_POSIX record's file, or NULL. */
static const iol_dxt_layout *layout_of(const struct dxt_run *r, int module, uint64_t id,
                                       iol_dxt_layout *lay)
{
    long li = module == IOL_MOD_DXT_POSIX ? find_lustre(r, id) : -1;
    if (li < 0)
        return NULL;
    const iolens_lustre *l = r->lustre;
    size_t c0 = l->comp_start[li], o0 = l->ost_start[li];
    lay->ncomp = l->comp_start[li + 1] - c0;
    lay->comp = l->comp + c0 * LUSTRE_COMP_NUM_INDICES;
    lay->nost = l->ost_start[li + 1] - o0;
    lay->ost = l->ost + o0;
    return lay;
}

#define SEG_BATCH 4096

/* One record: header, then its segments a batch at a time (writes first). */
static int print_record(struct dxt_run *r, iolens_dxt_iter *it, int module,
                        const iolens_dxt_rec *rec, size_t nthreads, iolens_dxt_seg *segs)
{
    iol_dxt_layout lay;
    const iol_dxt_layout *lo = layout_of(r, module, rec->id, &lay);
    iol_dxt_print_header(&r->out, r->log, rec, nthreads, lo);
    int64_t k = 0;
    size_t got;
    int rc;
    while ((rc = iolens_dxt_iter_segments(it, segs, SEG_BATCH, &got)) == IOLENS_OK && got)
        for (size_t j = 0; j < got; j++, k++) {
            int write = k < rec->write_count;
            iol_dxt_print_segment(&r->out, module, rec, &segs[j], write,
                                  write ? k : k - rec->write_count, lo);
        }
    return rc;
}

/* A DXT module, streamed record by record; a damaged record ends it with the
 * records before it printed (as darshan-dxt-parser, which reads one at a time). */
static int print_dxt_module(struct dxt_run *r, int module, const char *name)
{
    iolens_dxt_iter *it = NULL;
    iol_dxt_threads *threads = NULL;
    iolens_dxt_seg *segs = malloc(SEG_BATCH * sizeof *segs);
    iolens_dxt_rec rec;
    int rc = segs ? iolens_dxt_iter_open(r->log, module, &it) : IOLENS_E_NOMEM;
    while (rc == IOLENS_OK && (rc = iolens_dxt_iter_next(it, &rec)) == 1) {
        size_t nthreads = 1;
        rc = IOLENS_OK;
        if (rec.has_thread_id && !threads)
            rc = iol_dxt_threads_open(r->log, module, &threads);
        if (rc == IOLENS_OK && rec.has_thread_id)
            rc = iol_dxt_threads_next(threads, &nthreads);
        if (rc == IOLENS_OK)
            rc = print_record(r, it, module, &rec, nthreads, segs);
    }
    iol_dxt_threads_close(threads);
    iolens_dxt_iter_close(it);
    free(segs);
    return rc < 0 ? parse_failed(r, name) : 0;
}

/* One module of the loop of spec section 10 item 3.  Returns 0 or -1 (stop). */
static int run_module(struct dxt_run *r, int i)
{
    const iolens_header *h = iolens_log_header(r->log);
    const iolens_module_info *mi = iolens_module_info_get(i);
    iol_text_flush(&r->out);             /* warnings come after what stdout holds */
    if (!mi) {
        fprintf(stderr, "# Warning: module id %d is unknown. You may need a newer version "
                        "of the Darshan utilities to parse it.\n", i);
        return 0;
    }
    if (i == IOL_MOD_DXT_REGION)
        return 0;        /* the segments' regions: not printed (docs/cli.md, "dxt") */
    if (mi->kind == IOLENS_KIND_OPAQUE || i == IOL_MOD_NULL) {
        fprintf(stderr, "Warning: no log utility handlers defined for module %s, SKIPPING.\n",
                mi->name);
        return 0;
    }
    int dxt = mi->kind == IOLENS_KIND_DXT;
    if (!dxt && i != IOL_MOD_LUSTRE)
        return 0;
    if (dxt)
        iol_text_printf(&r->out, "\n# ***************************************************\n"
                        "# %s module data\n"
                        "# ***************************************************\n", mi->name);
    if ((h->partial_flag >> i & 1) && check_partial(r, mi) != 0)
        return -1;
    return dxt ? print_dxt_module(r, i, mi->name) : load_lustre(r);
}

static int run(struct dxt_run *r)
{
    const iolens_header *h = iolens_log_header(r->log);
    iol_print_preamble(&r->out, h, iolens_log_job(r->log));
    if (!h->mod[IOL_MOD_DXT_POSIX].len && !h->mod[IOL_MOD_DXT_MPIIO].len) {
        iol_text_puts(&r->out, "\n# no DXT module data available for this Darshan log.\n");
        return 0;
    }
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (h->mod[i].len && run_module(r, i) != 0)
            return -1;
    return 0;
}

int iol_cmd_dxt(int argc, char **argv)
{
    struct dxt_run r = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--show-incomplete"))
            r.show_incomplete = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout, IOL_EXIT_OK);
        else if (!strcmp(argv[i], "--version"))
            return iol_cli_print_version("dxt");
        else if (argv[i][0] == '-' && argv[i][1])
            return usage(stderr, iol_cli_usage_error("dxt", "unknown option '%s'", argv[i]));
        else if (r.path)
            return usage(stderr, iol_cli_usage_error("dxt", "one log only"));
        else
            r.path = argv[i];
    }
    if (!r.path)
        return usage(stderr, iol_cli_usage_error("dxt", "no log given"));

    char err[512];
    if (iolens_log_open(r.path, &r.log, err, sizeof err) != IOLENS_OK) {
        fprintf(stderr, "iolens dxt: %s: %s\n", r.path, err);
        return DXT_EXIT_FAIL;
    }
    if (iol_text_init(&r.out, stdout) != 0) {
        fprintf(stderr, "iolens dxt: out of memory\n");
        iolens_log_close(r.log);
        return DXT_EXIT_FAIL;
    }
    int rc = run(&r);
    iol_text_free(&r.out);
    if (r.out.err && rc == 0) {
        fprintf(stderr, "iolens dxt: error writing the output\n");
        rc = -1;
    }
    iolens_lustre_free(r.lustre);
    free(r.lustre_order);
    iolens_log_close(r.log);
    return rc == 0 ? 0 : DXT_EXIT_FAIL;
}
