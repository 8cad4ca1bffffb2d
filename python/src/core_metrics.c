/* darshan-parser's derived figures for Python: the --total, --file and --perf
 * results of the format library (iolens/metrics.h) as one dict, so Python never
 * restates their arithmetic.
 *
 *   derive(path, module) / Log.derive(module) -> {
 *     "module": printed name, "records": records folded in,
 *     "total": {counter name: value, ...}        (table order; int or float)
 *     "files": {category: {"count", "bytes", "max_offset"}}
 *     "perf":  {"total_bytes", "slowest_rank_io_time", ...} (seconds, MiB/s) }
 *
 * module: id, printed name or symbol.  Errors: UnknownModuleError (no such
 * module), InvalidArgumentError (a module without darshan-parser figures: the
 * modules.def `summary` column), ModuleNotPresentError (no region in the log),
 * and the decoding errors of the records. */
#include "core.h"
#include "iolens/metrics.h"

/* Feed every record of the module to the three accumulators (no GIL needed). */
static int figures_fill(iolens_log *log, const iolens_module_info *mi, iolens_figures *f)
{
    iolens_record_iter *it;
    iolens_record r;
    int rc;
    if ((rc = iolens_figures_init(f, mi, iolens_log_job(log)->nprocs, IOLENS_FIG_ALL)) != 0 ||
        (rc = iolens_record_iter_open(log, mi->id, &it)) != 0)
        return rc;
    while ((rc = iolens_record_iter_next(it, &r)) == 1)
        if ((rc = iolens_figures_add(f, &r)) != 0)
            break;
    iolens_record_iter_close(it);
    return rc;
}

static PyObject *total_dict(const iolens_total_result *t)
{
    PyObject *d = PyDict_New();
    for (size_t k = 0; d && k < t->n_int; k++)
        if (iol_py_set_item(d, t->module->int_names[k], PyLong_FromLongLong(t->ints[k])))
            Py_CLEAR(d);
    for (size_t k = 0; d && k < t->n_flt; k++)
        if (iol_py_set_item(d, t->module->flt_names[k], PyFloat_FromDouble(t->flts[k])))
            Py_CLEAR(d);
    return d;
}

static PyObject *category_dict(const iolens_file_category *c)
{
    return Py_BuildValue("{sLsLsL}", "count", (long long)c->count, "bytes",
                         (long long)c->bytes, "max_offset", (long long)c->max_offset);
}

static PyObject *files_dict(const iolens_files_result *r)
{
    PyObject *d = PyDict_New();
    if (!d || iol_py_set_item(d, "total", category_dict(&r->total))
        || iol_py_set_item(d, "read_only", category_dict(&r->read_only))
        || iol_py_set_item(d, "write_only", category_dict(&r->write_only))
        || iol_py_set_item(d, "read_write", category_dict(&r->read_write))
        || iol_py_set_item(d, "unique", category_dict(&r->unique))
        || iol_py_set_item(d, "shared", category_dict(&r->shared)))
        Py_CLEAR(d);
    return d;
}

static PyObject *perf_dict(const iolens_perf_result *r)
{
    return Py_BuildValue("{sLsdsdsdsisdsdsd}",
        "total_bytes", (long long)r->total_bytes,
        "slowest_rank_io_time", r->slowest_rank_io_time,
        "slowest_rank_meta_only_time", r->slowest_rank_meta_only_time,
        "slowest_rank_rw_only_time", r->slowest_rank_rw_only_time,
        "slowest_rank", r->slowest_rank,
        "shared_time_by_slowest", r->shared_time_by_slowest,
        "agg_time_by_slowest", r->agg_time_by_slowest,
        "agg_perf_by_slowest", r->agg_perf_by_slowest);
}

static PyObject *figures_dict(const iolens_module_info *mi, const iolens_figures *f)
{
    iolens_total_result t;
    iolens_files_result fr;
    iolens_perf_result pr;
    iolens_total_result_get(f->total, &t);
    iolens_files_result_get(f->files, &fr);
    iolens_perf_result_get(f->perf, &pr);
    PyObject *d = PyDict_New();
    if (!d || iol_py_set_item(d, "module", PyUnicode_FromString(mi->name))
        || iol_py_set_item(d, "records", PyLong_FromUnsignedLongLong(t.records))
        || iol_py_set_item(d, "total", total_dict(&t))
        || iol_py_set_item(d, "files", files_dict(&fr))
        || iol_py_set_item(d, "perf", perf_dict(&pr)))
        Py_CLEAR(d);
    return d;
}

/* Module argument (id, printed name or symbol) -> its info, or NULL with an
 * exception set. */
static const iolens_module_info *summary_module(PyObject *arg)
{
    int id;
    if (PyLong_Check(arg)) {
        id = (int)PyLong_AsLong(arg);
        if (id == -1 && PyErr_Occurred())
            return NULL;
    } else {
        const char *s = PyUnicode_AsUTF8(arg);
        if (!s)
            return NULL;
        id = iolens_module_id(s);
    }
    const iolens_module_info *mi = iolens_module_info_get(id);
    if (!mi) {
        iol_py_raise(IOLENS_E_UNKNOWN_MODULE, "unknown module");
        return NULL;
    }
    if (!mi->summaries) {
        char msg[128];
        snprintf(msg, sizeof msg, "module %s has no darshan-parser figures "
                 "(modules.def summary column)", mi->name);
        iol_py_raise(IOLENS_E_INVALID_ARG, msg);
        return NULL;
    }
    return mi;
}

/* The figures of one module of an open log; `raise` reports a failure status. */
static PyObject *derive_log(iolens_log *log, const iolens_module_info *mi, int *status)
{
    iolens_figures f;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = figures_fill(log, mi, &f);
    Py_END_ALLOW_THREADS
    PyObject *d = rc == 0 ? figures_dict(mi, &f) : NULL;
    iolens_figures_free(&f);
    *status = rc;
    return d;
}

PyObject *iol_py_log_derive(IolLogObject *self, PyObject *arg)
{
    const iolens_module_info *mi = summary_module(arg);
    int rc;
    if (!mi || iol_py_log_check(self))
        return NULL;
    PyObject *d = derive_log(self->log, mi, &rc);
    return rc ? iol_py_log_raise(self, rc) : d;
}

PyObject *iol_py_derive(PyObject *self, PyObject *args)
{
    PyObject *path, *module;
    if (!PyArg_ParseTuple(args, "O&O", PyUnicode_FSConverter, &path, &module))
        return NULL;
    const iolens_module_info *mi = summary_module(module);
    if (!mi) {
        Py_DECREF(path);
        return NULL;
    }
    char err[512] = "";
    iolens_log *log = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    /* names are never needed: they are checked, not held */
    rc = iolens_log_open_ex(PyBytes_AS_STRING(path), IOLENS_OPEN_LAZY_NAMES, &log, err,
                            sizeof err);
    Py_END_ALLOW_THREADS
    PyObject *d = NULL;
    if (rc == 0 && !(d = derive_log(log, mi, &rc)) && rc) {
        const char *detail = iolens_log_error(log);
        snprintf(err, sizeof err, "%s", detail ? detail : "");
    }
    if (rc) {
        char msg[sizeof err + 4096];
        snprintf(msg, sizeof msg, "%s: %s", PyBytes_AS_STRING(path),
                 *err ? err : iolens_strerror(rc));
        iol_py_raise(rc, msg);
    }
    iolens_log_close(log);
    Py_DECREF(path);
    return d;
}
