/* The text of darshan-parser's --total (log-format spec 9.5), --file (9.6) and
 * --perf (9.7) blocks, printed from the figures the format library derives
 * (iolens/metrics.h): this file only formats. */
#include <inttypes.h>
#include "parse.h"

void iol_total_print(iol_text *t, const iolens_total_result *r)
{
    const iolens_module_info *mi = r->module;
    for (size_t k = 0; k < r->n_int; k++) {
        iol_text_puts(t, "total_");
        iol_text_puts(t, mi->int_names[k]);
        iol_text_put(t, ": ", 2);
        iol_text_i64(t, r->ints[k]);
        iol_text_putc(t, '\n');
    }
    for (size_t k = 0; k < r->n_flt; k++) {
        iol_text_puts(t, "total_");
        iol_text_puts(t, mi->flt_names[k]);
        iol_text_put(t, ": ", 2);
        iol_text_f6(t, r->flts[k]);
        iol_text_putc(t, '\n');
    }
}

static void print_cat(iol_text *t, const char *label, const iolens_file_category *c)
{
    iol_text_printf(t, "# %s: %" PRId64 " %" PRId64 " %" PRId64 "\n", label, c->count,
                    c->bytes, c->max_offset);
}

void iol_files_print(iol_text *t, const iolens_files_result *r)
{
    iol_text_puts(t,
        "\n# Total file counts\n"
        "# -----\n"
        "# <file_type>: type of file access:\n"
        "#    *read_only: file was only read\n"
        "#    *write_only: file was only written\n"
        "#    *read_write: file was read and written\n"
        "#    *unique: file was opened by a single process only\n"
        "#    *shared: file was accessed by a group of processes (maybe all processes)\n"
        "# <file_count> total number of files of this type\n"
        "# <total_bytes> total number of bytes moved to/from files of this type\n"
        "# <max_byte_offset> maximum byte offset accessed for a file of this type\n"
        "\n# <file_type> <file_count> <total_bytes> <max_byte_offset>\n");
    print_cat(t, "total", &r->total);
    print_cat(t, "read_only", &r->read_only);
    print_cat(t, "write_only", &r->write_only);
    print_cat(t, "read_write", &r->read_write);
    print_cat(t, "unique", &r->unique);
    print_cat(t, "shared", &r->shared);
}

void iol_perf_print(iol_text *t, const iolens_perf_result *r)
{
    iol_text_printf(t,
        "\n# performance\n"
        "# -----------\n"
        "# total_bytes: %" PRId64 "\n"
        "#\n"
        "# I/O timing for unique files (seconds):\n"
        "# ...........................\n"
        "# unique files: slowest_rank_io_time: %lf\n"
        "# unique files: slowest_rank_meta_only_time: %lf\n"
        "# unique files: slowest_rank_rw_only_time: %lf\n"
        "# unique files: slowest_rank: %d\n"
        "#\n"
        "# I/O timing for shared files (seconds):\n"
        "# ...........................\n"
        "# shared files: time_by_slowest: %lf\n"
        "#\n"
        "# Aggregate performance, including both shared and unique files:\n"
        "# ...........................\n"
        "# agg_time_by_slowest: %lf # seconds\n"
        "# agg_perf_by_slowest: %lf # MiB/s\n",
        r->total_bytes, r->slowest_rank_io_time, r->slowest_rank_meta_only_time,
        r->slowest_rank_rw_only_time, r->slowest_rank, r->shared_time_by_slowest,
        r->agg_time_by_slowest, r->agg_perf_by_slowest);
}
