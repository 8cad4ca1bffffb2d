/* Static metadata from the C core: module table, counter names, descriptions,
 * combine rules, record-id hash.  Python never hand-writes these lists. */
#include "core.h"

static const char *const combine_names[] = {
    [IOL_COMBINE_NONE] = "none",         [IOL_COMBINE_SUM] = "sum",
    [IOL_COMBINE_MAX] = "max",           [IOL_COMBINE_MIN_NZ] = "min_nonzero",
    [IOL_COMBINE_FIRST] = "first",       [IOL_COMBINE_OR] = "or",
    [IOL_COMBINE_MAXTIME] = "maxtime",   [IOL_COMBINE_COMMON] = "common",
    [IOL_COMBINE_RANK] = "rank",         [IOL_COMBINE_RANKBYTES] = "rankbytes",
    [IOL_COMBINE_RANKTIME] = "ranktime", [IOL_COMBINE_VARIANCE] = "variance",
};
#define N_COMBINE (sizeof combine_names / sizeof combine_names[0])

static const char *const kind_names[] = {
    [IOLENS_KIND_COUNTERS] = "counters", [IOLENS_KIND_LUSTRE] = "lustre",
    [IOLENS_KIND_DXT] = "dxt",           [IOLENS_KIND_HEATMAP] = "heatmap",
    [IOLENS_KIND_MDHIM] = "mdhim",       [IOLENS_KIND_OPAQUE] = "opaque",
};

static const char *const role_names[] = {
    [IOLENS_ROLE_NONE] = "none",       [IOLENS_ROLE_IO] = "io",
    [IOLENS_ROLE_TRACE] = "trace",     [IOLENS_ROLE_HEATMAP] = "heatmap",
    [IOLENS_ROLE_LAYOUT] = "layout",   [IOLENS_ROLE_PLATFORM] = "platform",
};

static const char *const layer_names[] = {
    [IOLENS_LAYER_NONE] = "none",             [IOLENS_LAYER_HIGHLEVEL] = "high-level",
    [IOLENS_LAYER_MIDDLEWARE] = "middleware", [IOLENS_LAYER_FILESYSTEM] = "file-system",
};

static const char *const runtime_names[] = {
    [IOLENS_RUNTIME_NONE] = "none", [IOLENS_RUNTIME_LIB] = "lib", [IOLENS_RUNTIME_MPI] = "mpi",
};

/* LUSTRE per-component counters, expanded from the module's table. */
#define INT(n, c, d)
#define FLT(n, c, d)
#define COMP(n, c, d) #n,
static const char *const lustre_comp_names[] = {
#include "lustre.def"
};
#undef COMP
#define COMP(n, c, d) d,
static const char *const lustre_comp_desc[] = {
#include "lustre.def"
};
#undef INT
#undef FLT
#undef COMP

static PyObject *str_list(const char *const *v, size_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *s = PyUnicode_FromString(v && v[i] ? v[i] : "");
        if (!s)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static PyObject *combine_list(const unsigned char *v, size_t n)
{
    const char *tmp[256];
    if (n > 256)
        n = 256;
    for (size_t i = 0; i < n; i++)
        tmp[i] = (v && v[i] < N_COMBINE && combine_names[v[i]]) ? combine_names[v[i]] : "none";
    return str_list(tmp, n);
}

/* What each counter measures (iolens_counter_unit): "seconds", "bytes", ... */
static PyObject *unit_list(const iolens_module_info *m, int flt, size_t n)
{
    const char *tmp[256];
    if (n > 256)
        n = 256;
    for (size_t k = 0; k < n; k++)
        tmp[k] = iolens_unit_name(iolens_counter_unit(m, flt, k));
    return str_list(tmp, n);
}

static PyObject *module_dict(const iolens_module_info *m)
{
    int lustre = m->kind == IOLENS_KIND_LUSTRE;
    size_t nc = sizeof lustre_comp_names / sizeof lustre_comp_names[0];
    const char *kind = (m->kind >= 0 && m->kind <= IOLENS_KIND_OPAQUE) ? kind_names[m->kind] : "?";
    const char *role = (m->role >= 0 && m->role <= IOLENS_ROLE_PLATFORM) ? role_names[m->role] : "?";
    const char *layer = (m->layer >= 0 && m->layer <= IOLENS_LAYER_FILESYSTEM)
                            ? layer_names[m->layer] : "?";
    const char *runtime = (m->runtime >= 0 && m->runtime <= IOLENS_RUNTIME_MPI)
                              ? runtime_names[m->runtime] : "?";
    int file_rec_id = 0;
    size_t trailing = 0;
    iolens_module_layout_extras(m->id, &file_rec_id, &trailing);   /* stays 0 if none */
    PyObject *d = PyDict_New();
    if (!d || iol_py_set_item(d, "id", PyLong_FromLong(m->id))
        || iol_py_set_item(d, "name", PyUnicode_FromString(m->name))
        || iol_py_set_item(d, "version", PyLong_FromUnsignedLong(m->version))
        || iol_py_set_item(d, "kind", PyUnicode_FromString(kind))
        || iol_py_set_item(d, "role", PyUnicode_FromString(role))
        || iol_py_set_item(d, "symbol", PyUnicode_FromString(m->symbol))
        || iol_py_set_item(d, "file_rec_id", PyBool_FromLong(file_rec_id))
        || iol_py_set_item(d, "summaries", PyBool_FromLong(m->summaries))
        || iol_py_set_item(d, "layer", PyUnicode_FromString(layer))
        || iol_py_set_item(d, "depth", PyLong_FromLong(m->depth))
        || iol_py_set_item(d, "runtime", PyUnicode_FromString(runtime))
        || iol_py_set_item(d, "record_size", PyLong_FromSize_t(iolens_module_record_size(m->id)))
        || iol_py_set_item(d, "int_units", unit_list(m, 0, lustre ? nc : m->n_int))
        || iol_py_set_item(d, "flt_units", unit_list(m, 1, m->n_flt))
        || iol_py_set_item(d, "int_names", lustre ? str_list(lustre_comp_names, nc) : str_list(m->int_names, m->n_int))
        || iol_py_set_item(d, "flt_names", str_list(m->flt_names, m->n_flt))
        || iol_py_set_item(d, "int_desc", lustre ? str_list(lustre_comp_desc, nc) : str_list(m->int_desc, m->n_int))
        || iol_py_set_item(d, "flt_desc", str_list(m->flt_desc, m->n_flt))
        || iol_py_set_item(d, "int_combine", combine_list(lustre ? NULL : m->int_combine, lustre ? nc : m->n_int))
        || iol_py_set_item(d, "flt_combine", combine_list(m->flt_combine, m->n_flt))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

PyObject *iol_py_module_table(PyObject *self, PyObject *noargs)
{
    PyObject *list = PyList_New(0);
    for (int id = 0; list && id < IOL_MAX_MODULES; id++) {
        const iolens_module_info *m = iolens_module_info_get(id);
        if (!m)
            continue;
        PyObject *d = module_dict(m);
        if (!d || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

PyObject *iol_py_record_id(PyObject *self, PyObject *arg)
{
    Py_buffer b;
    PyObject *tmp = NULL;
    if (PyUnicode_Check(arg)) {
        tmp = PyUnicode_AsEncodedString(arg, "utf-8", "surrogateescape");
        if (!tmp)
            return NULL;
        arg = tmp;
    }
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) {
        Py_XDECREF(tmp);
        return NULL;
    }
    uint64_t id = iolens_record_id(b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    Py_XDECREF(tmp);
    return PyLong_FromUnsignedLongLong(id);
}

PyObject *iol_py_strerror(PyObject *self, PyObject *arg)
{
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(iolens_strerror((int)code));
}

PyObject *iol_py_module_id(PyObject *self, PyObject *arg)
{
    const char *s = PyUnicode_AsUTF8(arg);
    if (!s)
        return NULL;
    return PyLong_FromLong(iolens_module_id(s));
}

/* The platform keys of the job metadata (counters/platform.def), in order of
 * usefulness: [(key, cap, anonymise, description)]. */
PyObject *iol_py_platform_keys(PyObject *self, PyObject *noargs)
{
    static const struct {
        const char *key, *anon, *desc;
        long cap;
    } keys[] = {
#define PKEY(key, cap, anon, desc) {#key, #anon, desc, cap},
#include "platform.def"
#undef PKEY
    };
    size_t n = sizeof keys / sizeof *keys;
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *t = Py_BuildValue("(slss)", keys[i].key, keys[i].cap, keys[i].anon, keys[i].desc);
        if (!t)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}
