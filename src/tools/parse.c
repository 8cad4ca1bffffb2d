/* `iolens parse`: print a log exactly as darshan-parser does (log-format spec
 * section 9): job block, regions, mounts, per-module sections with counter lines,
 * and the --total/--file/--perf summaries.  Exit status: 0; 255 when the log cannot
 * be read or a module has incomplete data and --show-incomplete is not given
 * (darshan-parser's status); 2 for a usage error. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "parse.h"
#include "partial_hint.h"
#include "tools.h"

#define EXIT_LOG_FAILURE IOL_EXIT_LOG
#define EXIT_USAGE IOL_EXIT_USAGE

typedef struct parse_run {
    const char *path;
    iol_parse_opts o;
    iolens_log *log;
    const iolens_header *h;
    const iolens_job *job;
    iol_text out;
    iol_line_ctx lines;
} parse_run;

static const char usage_text[] =
    "usage: iolens parse [options] LOG\n"
    "  --base             counter lines of every record (default)\n"
    "  --total            aggregate counters of each module\n"
    "  --file             file counts by access type\n"
    "  --perf             I/O time and bandwidth estimates\n"
    "  --all              all of the above, plus --show-incomplete\n"
    "  --show-incomplete  print modules whose data is incomplete\n"
    "  --no-uuid          DFS/DAOS: N/A instead of the pool and container uuids\n"
    "                     (the text of a darshan-parser built without libuuid)\n"
    "  --version          print the version and exit\n"
    "Output is darshan-parser's text, byte for byte.\n";

/* Options; returns -1 on a usage error, 1 when the run is finished (help, version). */
static int parse_args(parse_run *p, int argc, char **argv)
{
    memset(&p->o, 0, sizeof p->o);
    p->path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--base")) p->o.base = 1;
        else if (!strcmp(a, "--total")) p->o.total = 1;
        else if (!strcmp(a, "--file")) p->o.file = 1;
        else if (!strcmp(a, "--perf")) p->o.perf = 1;
        else if (!strcmp(a, "--show-incomplete")) p->o.show_incomplete = 1;
        else if (!strcmp(a, "--uuid")) p->o.no_uuids = 0;   /* the default; kept for scripts */
        else if (!strcmp(a, "--no-uuid")) p->o.no_uuids = 1;
        else if (!strcmp(a, "--all"))
            p->o.base = p->o.total = p->o.file = p->o.perf = p->o.show_incomplete = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            iol_cli_print_version("parse");
            return 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "iolens parse: unknown option '%s'\n%s", a, usage_text);
            return -1;
        } else if (p->path) {
            fprintf(stderr, "iolens parse: more than one log given\n%s", usage_text);
            return -1;
        } else {
            p->path = a;
        }
    }
    if (!p->path) {
        fprintf(stderr, "iolens parse: no log given\n%s", usage_text);
        return -1;
    }
    if (!p->o.base && !p->o.total && !p->o.file && !p->o.perf)
        p->o.base = 1;
    return 0;
}

/* ---------------------------------------------------------------- preamble */
/* Job, region and mount blocks: iol_print_preamble (text_preamble.c). */
static int partial_bit(const iolens_header *h, int i)
{
    return (int)((h->partial_flag >> i) & 1);
}

static void print_columns(iol_text *t)
{
    iol_text_puts(t,
        "\n# description of columns:\n"
        "#   <module>: module responsible for this I/O record.\n"
        "#   <rank>: MPI rank.  -1 indicates that the file is shared\n"
        "#      across all processes and statistics are aggregated.\n"
        "#   <record id>: hash of the record's file path\n"
        "#   <counter name> and <counter value>: statistical counters.\n"
        "#      A value of -1 indicates that Darshan could not monitor\n"
        "#      that counter, and its value should be ignored.\n"
        "#   <file name>: full file path for the record.\n"
        "#   <mount pt>: mount point that the file resides on.\n"
        "#   <fs type>: type of file system that the file resides on.\n");
}

/* ---------------------------------------------------------------- modules */
/* A warning on stderr, after what stdout already holds (keeps a terminal's order). */
static void warn(parse_run *p, const char *msg)
{
    iol_text_flush(&p->out);
    fputs(msg, stderr);
}

/* Partial data (9.3): the 3.5.0 release's wording.  Returns 1 to stop with 255. */
static int partial_notice(parse_run *p, const iolens_module_info *mi)
{
    const char *name = mi->name;
    char msg[1024];
    snprintf(msg, sizeof msg,
             "\n# *%s*: The %s module contains incomplete data!\n"
             "#            This happens when a module runs out of\n"
             "#            memory to store new record data.\n"
             "\n# To avoid this error, consult the darshan-runtime\n"
             "# documentation and consider setting the\n"
             "# DARSHAN_EXCLUDE_DIRS environment variable to prevent\n"
             "# Darshan from instrumenting unnecessary files.\n",
             p->o.show_incomplete ? "WARNING" : "ERROR", name);
    if (p->o.show_incomplete) {
        iol_text_puts(&p->out, msg);
    } else {
        warn(p, msg);
        fputs("\n# You can display the (incomplete) data that is\n"
              "# present in this log using the --show-incomplete\n"
              "# option to darshan-parser.\n", stderr);
    }
    /* Our own line goes to stderr, so stdout stays darshan-parser's text. */
    iol_text_flush(&p->out);
    iol_partial_hint(stderr, "parse", p->path, p->log, mi);
    return !p->o.show_incomplete;
}

/* A module region that does not decode: one line naming log, module and problem. */
static int module_failure(parse_run *p, const iolens_module_info *mi, int rc)
{
    const char *detail = iolens_log_error(p->log);
    iol_text_flush(&p->out);
    fprintf(stderr, "iolens parse: %s: %s module: %s\n", p->path, mi->name,
            detail && *detail ? detail : iolens_strerror(rc));
    return EXIT_LOG_FAILURE;
}

/* The summaries of one module, fed record by record (iolens/metrics.h). */
static int summaries_init(parse_run *p, const iolens_module_info *mi, iolens_figures *s)
{
    memset(s, 0, sizeof *s);
    if (!mi->summaries)
        return 0;
    return iolens_figures_init(s, mi, p->job->nprocs,
                               (p->o.total ? IOLENS_FIG_TOTAL : 0) |
                               (p->o.file ? IOLENS_FIG_FILES : 0) |
                               (p->o.perf ? IOLENS_FIG_PERF : 0));
}

static void summaries_print(parse_run *p, const iolens_module_info *mi, iolens_figures *s)
{
    if (s->total) {
        iolens_total_result r;
        iolens_total_result_get(s->total, &r);
        iol_text_module_desc(&p->out, mi->id, p->h->mod_ver[mi->id]);
        iol_text_putc(&p->out, '\n');
        iol_total_print(&p->out, &r);
    }
    if (s->files) {
        iolens_files_result r;
        iolens_files_result_get(s->files, &r);
        iol_files_print(&p->out, &r);
    }
    if (s->perf) {
        iolens_perf_result r;
        iolens_perf_result_get(s->perf, &r);
        iol_perf_print(&p->out, &r);
    }
}

/* Counter-kind and MDHIM modules, streamed: each record is printed and folded
 * into the summaries as it is decoded, so memory does not grow with the region. */
static int print_counter_module(parse_run *p, const iolens_module_info *mi)
{
    iolens_record_iter *it;
    iol_rec_printer *pr = NULL;
    iolens_figures sum;
    int rc = iolens_record_iter_open(p->log, mi->id, &it);
    if (rc != 0)
        return module_failure(p, mi, rc);
    if ((rc = summaries_init(p, mi, &sum)) == 0 && p->o.base &&
        !(pr = iol_rec_printer_new(&p->lines, mi)))
        rc = IOLENS_E_NOMEM;
    iolens_record r;
    while (rc == 0 && (rc = iolens_record_iter_next(it, &r)) == 1) {
        if (pr)
            iol_print_record(&p->out, pr, &r);
        rc = iolens_figures_add(&sum, &r);
    }
    if (rc == 0)
        summaries_print(p, mi, &sum);
    iol_rec_printer_free(pr);
    iolens_figures_free(&sum);
    iolens_record_iter_close(it);
    return rc ? module_failure(p, mi, rc) : 0;
}

/* Decode and print the records of one module (section header already out). */
static int print_module_data(parse_run *p, const iolens_module_info *mi)
{
    int rc = 0;
    if (mi->kind == IOLENS_KIND_LUSTRE) {
        iolens_lustre *l;
        if ((rc = iolens_log_lustre(p->log, &l)) != 0)
            return module_failure(p, mi, rc);
        iol_print_lustre(&p->out, &p->lines, l);
        iolens_lustre_free(l);
    } else if (mi->kind == IOLENS_KIND_HEATMAP) {
        iolens_heatmap *hm;
        if ((rc = iolens_log_heatmap(p->log, &hm)) != 0)
            return module_failure(p, mi, rc);
        iol_print_heatmap(&p->out, &p->lines, hm);
        iolens_heatmap_free(hm);
    } else {
        return print_counter_module(p, mi);
    }
    /* the whole-region decoders keep the payload cached: drop it */
    iolens_log_region_release(p->log, mi->id);
    return 0;
}

/* Which of the 9.2 cases module i falls in; prints warnings for skipped ones.
 * Returns the module's info when it gets a section, else NULL. */
static const iolens_module_info *section_module(parse_run *p, int i)
{
    char msg[256];
    const iolens_module_info *mi = i < IOL_MOD_COUNT_KNOWN ? iolens_module_info_get(i)
                                                           : NULL;
    if (!p->h->mod[i].len)
        return mi;   /* partial bit only: header and notice (unknown ids: none) */
    if (!mi) {
        snprintf(msg, sizeof msg, "# Warning: module id %d is unknown. You may need a "
                 "newer version of the Darshan utilities to parse it.\n", i);
        warn(p, msg);
        return NULL;
    }
    if (i == IOL_MOD_DXT_REGION)
        return NULL;     /* ours, read with DXT: log.dxt()'s region column (docs/regions.md) */
    if (i == IOL_MOD_NULL || mi->kind == IOLENS_KIND_OPAQUE) {
        snprintf(msg, sizeof msg, "# Warning: no log utility handlers defined for "
                 "module %s, SKIPPING.\n", mi->name);
        warn(p, msg);
        return NULL;
    }
    if (mi->kind == IOLENS_KIND_DXT)
        return NULL;
    if (!p->o.base && !mi->summaries)
        return NULL;
    return mi;
}

static int print_module(parse_run *p, int i)
{
    const iolens_module_info *mi = section_module(p, i);
    if (!mi)
        return 0;
    iol_text_printf(&p->out,
        "\n# *******************************************************\n"
        "# %s module data\n"
        "# *******************************************************\n", mi->name);
    if (partial_bit(p->h, i) && partial_notice(p, mi))
        return EXIT_LOG_FAILURE;
    if (!p->h->mod[i].len)
        return 0;
    if (p->o.base) {
        iol_text_module_desc(&p->out, i, p->h->mod_ver[i]);
        iol_text_puts(&p->out, "\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t"
                               "<file name>\t<mount pt>\t<fs type>\n");
    }
    return print_module_data(p, mi);
}

static int print_log(parse_run *p)
{
    iol_print_preamble(&p->out, p->h, p->job);
    if (p->o.base)
        print_columns(&p->out);
    int any = 0;
    for (int i = 0; i < IOL_MAX_MODULES; i++) {
        if (!p->h->mod[i].len && !partial_bit(p->h, i))
            continue;
        any |= p->h->mod[i].len > 0;
        int rc = print_module(p, i);
        if (rc)
            return rc;
    }
    if (!any)
        iol_text_puts(&p->out, "\n# no module data available.\n");
    return 0;
}

int iol_cmd_parse(int argc, char **argv)
{
    parse_run p;
    int rc = parse_args(&p, argc, argv);
    if (rc)
        return rc < 0 ? EXIT_USAGE : 0;
    char err[512] = "";
    /* names are only printed with the counter lines: without --base they are
     * checked but never held */
    rc = iolens_log_open_ex(p.path, p.o.base ? 0 : IOLENS_OPEN_LAZY_NAMES, &p.log, err,
                            sizeof err);
    if (rc) {
        fprintf(stderr, "iolens parse: %s: %s\n", p.path, *err ? err : iolens_strerror(rc));
        return EXIT_LOG_FAILURE;
    }
    p.h = iolens_log_header(p.log);
    p.job = iolens_log_job(p.log);
    if (iol_text_init(&p.out, stdout) != 0 || iol_line_ctx_init(&p.lines, p.log) != 0) {
        iol_text_free(&p.out);
        fprintf(stderr, "iolens parse: %s: out of memory\n", p.path);
        iolens_log_close(p.log);
        return EXIT_LOG_FAILURE;
    }
    p.lines.uuids = !p.o.no_uuids;
    rc = print_log(&p);
    iol_text_free(&p.out);
    iol_line_ctx_free(&p.lines);
    iolens_log_close(p.log);
    if (!rc && p.out.err) {
        fprintf(stderr, "iolens parse: %s: writing the output failed\n", p.path);
        rc = EXIT_LOG_FAILURE;
    }
    return rc;
}
