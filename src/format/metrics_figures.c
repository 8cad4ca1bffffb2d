/* darshan-parser's three figures fed together (iolens/metrics.h): what `iolens
 * parse` and the Python extension both need for one module. */
#include <string.h>
#include "metrics_internal.h"

int iolens_figures_init(iolens_figures *f, const iolens_module_info *mi, int64_t nprocs,
                        int which)
{
    int rc = IOLENS_OK;
    memset(f, 0, sizeof *f);
    if (((which & IOLENS_FIG_TOTAL) && (rc = iolens_total_new(mi, &f->total)) != 0) ||
        ((which & IOLENS_FIG_FILES) && (rc = iolens_files_new(mi, &f->files)) != 0) ||
        ((which & IOLENS_FIG_PERF) && (rc = iolens_perf_new(mi, nprocs, &f->perf)) != 0))
        iolens_figures_free(f);
    return rc;
}

int iolens_figures_add(iolens_figures *f, const iolens_record *r)
{
    /* --total refuses only a record of another shape, which the iterator never
     * gives; such a record is left out of --total alone */
    if (f->total)
        (void)iolens_total_add(f->total, r);
    int rc = f->files ? iolens_files_add(f->files, r) : IOLENS_OK;
    return rc ? rc : f->perf ? iolens_perf_add(f->perf, r) : IOLENS_OK;
}

void iolens_figures_free(iolens_figures *f)
{
    iolens_total_free(f->total);
    iolens_files_free(f->files);
    iolens_perf_free(f->perf);
    memset(f, 0, sizeof *f);
}
