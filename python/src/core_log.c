/* iolens._core.Log: one open log (header, job, names); record decoding lives in
 * core_frames.c.  Names are turned into Python strings once, lazily, with an
 * id -> index map so that record frames can carry an int32 name code per row. */
#include "core.h"
#include <stdlib.h>

static PyObject *decode_text(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape");
}

/* ---------------------------------------------------------------- id map */
static int idmap_init(iol_idmap *m, size_t n)
{
    m->ids = malloc((n ? n : 1) * sizeof *m->ids);
    m->n = n;
    m->slots = NULL;
    m->mask = 0;
    return m->ids ? 0 : -1;
}

static size_t idmap_slot(const iol_idmap *m, uint64_t id)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 17) & m->mask;
    while (m->slots[i].val >= 0 && m->slots[i].key != id)
        i = (i + 1) & m->mask;
    return i;
}

/* The hash table over ids[] (unique ids: the library deduplicates names). */
static int idmap_build(iol_idmap *m)
{
    size_t cap = 16;
    while (cap < 2 * m->n)
        cap <<= 1;
    m->slots = malloc(cap * sizeof *m->slots);
    if (!m->slots)
        return -1;
    for (size_t i = 0; i < cap; i++)
        m->slots[i].val = -1;
    m->mask = cap - 1;
    for (size_t i = 0; i < m->n; i++) {
        iol_idslot *slot = &m->slots[idmap_slot(m, m->ids[i])];
        if (slot->val < 0) {
            slot->key = m->ids[i];
            slot->val = (int32_t)i;
        }
    }
    return 0;
}

static void idmap_free(iol_idmap *m)
{
    free(m->slots);
    free(m->ids);
    m->slots = NULL;
    m->ids = NULL;
    m->n = 0;
}

int iol_py_name_codes(IolLogObject *self, const void *ids, size_t stride, size_t n,
                      int32_t *codes)
{
    iol_idmap *m = &self->map;
    const char *p = ids;
    size_t next = 0;                  /* the name after the last one found */
    for (size_t i = 0; i < n; i++, p += stride) {
        uint64_t id;
        memcpy(&id, p, 8);
        int32_t c;
        if (next < m->n && m->ids[next] == id) {
            c = (int32_t)next;
        } else if (!m->ids) {
            c = -1;
        } else {
            if (!m->slots && idmap_build(m) < 0) {
                PyErr_NoMemory();
                return -1;
            }
            c = m->slots[idmap_slot(m, id)].val;
        }
        codes[i] = c;
        if (c >= 0)
            next = (size_t)c + 1;
    }
    return 0;
}

/* Build self->names and the id map on first use.  Returns 0 or -1 (exception). */
static int ensure_names(IolLogObject *self)
{
    if (self->names)
        return 0;
    size_t n = iolens_log_name_count(self->log);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list || idmap_init(&self->map, n) < 0) {
        Py_XDECREF(list);
        idmap_free(&self->map);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        const char *name;
        int rc = iolens_log_name_at(self->log, i, &id, &name);
        PyObject *s = rc == IOLENS_OK ? decode_text(name) : NULL;
        if (!s) {
            if (rc != IOLENS_OK)
                iol_py_log_raise(self, rc);
            Py_DECREF(list);
            idmap_free(&self->map);
            return -1;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
        self->map.ids[i] = id;
    }
    /* Only str inside: no cycles possible, so the collector need not walk 1M items. */
    PyObject_GC_UnTrack(list);
    self->names = list;
    return 0;
}

/* Decode all records of `module`, names first (frames carry name codes). */
int iol_py_decode_records(IolLogObject *self, int module, iolens_records **out)
{
    if (ensure_names(self) < 0)
        return -1;
    int rc = iolens_log_records(self->log, module, out);
    if (rc != IOLENS_OK) {
        iol_py_log_raise(self, rc);
        return -1;
    }
    iolens_log_region_release(self->log, module);   /* decoded: the payload is not needed */
    return 0;
}

int iol_py_take_region(IolLogObject *self, int module, void **payload, size_t *len)
{
    if (ensure_names(self) < 0)
        return -1;
    int rc = iolens_log_region_take(self->log, module, payload, len);
    if (rc != IOLENS_OK) {
        iol_py_log_raise(self, rc);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- helpers */
PyObject *iol_py_log_raise(IolLogObject *self, int status)
{
    return iol_py_raise(status, self->log ? iolens_log_error(self->log) : "");
}

int iol_py_log_check(IolLogObject *self)
{
    if (self->log)
        return 0;
    PyErr_SetString(PyExc_ValueError, "I/O operation on a closed log");
    return -1;
}

/* ---------------------------------------------------------------- type */
static int log_init(IolLogObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&", kwlist, PyUnicode_FSConverter, &path))
        return -1;
    char errbuf[512] = "";
    iolens_log *log = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = iolens_log_open(PyBytes_AS_STRING(path), &log, errbuf, sizeof errbuf);
    Py_END_ALLOW_THREADS
    if (rc != IOLENS_OK) {
        /* The library leaves the path out of its messages; name it once here. */
        char msg[sizeof errbuf + 4096];
        snprintf(msg, sizeof msg, "%s: %s", PyBytes_AS_STRING(path),
                 *errbuf ? errbuf : iolens_strerror(rc));
        Py_DECREF(path);
        iol_py_raise(rc, msg);
        return -1;
    }
    Py_DECREF(path);
    iol_py_dxt_readers_detach(self);
    if (self->log)
        iolens_log_close(self->log);
    self->log = log;
    return 0;
}

static void log_release(IolLogObject *self)
{
    iol_py_dxt_readers_detach(self);
    Py_CLEAR(self->names);
    idmap_free(&self->map);
    if (self->log) {
        iolens_log_close(self->log);
        self->log = NULL;
    }
}

static void log_dealloc(IolLogObject *self)
{
    log_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *log_close(IolLogObject *self, PyObject *noargs)
{
    /* Arrays handed out own their memory separately, so closing is always safe. */
    log_release(self);
    Py_RETURN_NONE;
}

static PyObject *region_tuple(iolens_region r)
{
    return Py_BuildValue("(KK)", (unsigned long long)r.off, (unsigned long long)r.len);
}

static PyObject *module_regions(const iolens_header *h)
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < IOL_MAX_MODULES; i++) {
        if (!h->mod[i].len && !h->mod_ver[i])
            continue;
        PyObject *t = Py_BuildValue("(iKKI)", i, (unsigned long long)h->mod[i].off,
                                    (unsigned long long)h->mod[i].len, h->mod_ver[i]);
        if (!t || PyList_Append(list, t) < 0)
            Py_CLEAR(list);
        Py_XDECREF(t);
    }
    return list;
}

static PyObject *log_header(IolLogObject *self, PyObject *noargs)
{
    if (iol_py_log_check(self))
        return NULL;
    const iolens_header *h = iolens_log_header(self->log);
    PyObject *d = PyDict_New();
    if (!d || iol_py_set_item(d, "version", decode_text(h->version))
        || iol_py_set_item(d, "major", PyLong_FromLong(h->major))
        || iol_py_set_item(d, "minor", PyLong_FromLong(h->minor))
        || iol_py_set_item(d, "big_endian", PyBool_FromLong(h->big_endian))
        || iol_py_set_item(d, "comp_type", PyLong_FromLong(h->comp_type))
        || iol_py_set_item(d, "header_size", PyLong_FromSize_t(h->header_size))
        || iol_py_set_item(d, "partial_flag", PyLong_FromUnsignedLongLong(h->partial_flag))
        || iol_py_set_item(d, "job_region", region_tuple(h->job))
        || iol_py_set_item(d, "names_region", region_tuple(h->names))
        || iol_py_set_item(d, "modules", module_regions(h))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *mount_list(const iolens_job *j)
{
    PyObject *list = PyList_New((Py_ssize_t)j->nmounts);
    for (size_t i = 0; list && i < j->nmounts; i++) {
        PyObject *p = decode_text(j->mounts[i].path);
        PyObject *t = decode_text(j->mounts[i].fstype);
        PyObject *pair = (p && t) ? PyTuple_Pack(2, p, t) : NULL;
        Py_XDECREF(p);
        Py_XDECREF(t);
        if (!pair)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, pair);
    }
    return list;
}

static PyObject *log_job(IolLogObject *self, PyObject *noargs)
{
    if (iol_py_log_check(self))
        return NULL;
    const iolens_job *j = iolens_log_job(self->log);
    const iolens_header *h = iolens_log_header(self->log);
    PyObject *d = PyDict_New();
    if (!d || iol_py_set_item(d, "uid", PyLong_FromLongLong(j->uid))
        || iol_py_set_item(d, "start_time_sec", PyLong_FromLongLong(j->start_sec))
        || iol_py_set_item(d, "start_time_nsec", PyLong_FromLongLong(j->start_nsec))
        || iol_py_set_item(d, "end_time_sec", PyLong_FromLongLong(j->end_sec))
        || iol_py_set_item(d, "end_time_nsec", PyLong_FromLongLong(j->end_nsec))
        || iol_py_set_item(d, "nprocs", PyLong_FromLongLong(j->nprocs))
        || iol_py_set_item(d, "jobid", PyLong_FromLongLong(j->jobid))
        || iol_py_set_item(d, "run_time", PyFloat_FromDouble(iolens_job_runtime(j, h->minor)))
        || iol_py_set_item(d, "metadata_text", decode_text(j->metadata))
        || iol_py_set_item(d, "exe", decode_text(j->exe ? j->exe : ""))
        || iol_py_set_item(d, "exe_mounts", decode_text(j->exe_mounts ? j->exe_mounts : ""))
        || iol_py_set_item(d, "mounts", mount_list(j))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *log_names(IolLogObject *self, PyObject *noargs)
{
    if (iol_py_log_check(self) || ensure_names(self))
        return NULL;
    size_t n = iolens_log_name_count(self->log);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        uint64_t id;
        const char *name;
        iolens_log_name_at(self->log, i, &id, &name);
        PyObject *t = Py_BuildValue("(KO)", (unsigned long long)id,
                                    PyList_GET_ITEM(self->names, (Py_ssize_t)i));
        if (!t)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

/* The list of name strings that record frames index with their name codes. */
static PyObject *log_name_table(IolLogObject *self, PyObject *noargs)
{
    if (iol_py_log_check(self) || ensure_names(self))
        return NULL;
    return Py_NewRef(self->names);
}

static PyObject *log_region(IolLogObject *self, PyObject *arg)
{
    int module = (int)PyLong_AsLong(arg);
    if ((module == -1 && PyErr_Occurred()) || iol_py_log_check(self))
        return NULL;
    const void *payload;
    size_t len;
    int rc = iolens_log_region(self->log, module, &payload, &len);
    if (rc != IOLENS_OK)
        return iol_py_log_raise(self, rc);
    return PyBytes_FromStringAndSize(payload, (Py_ssize_t)len);
}

/* Frame methods need the names; make sure they exist before decoding. */
static PyObject *iol_py_records_m(IolLogObject *self, PyObject *a)
{
    if (iol_py_log_check(self))
        return NULL;
    return iol_py_records(self, a);
}

#define WITH_NAMES(fn)                                                        \
    static PyObject *fn##_m(IolLogObject *self, PyObject *a)                  \
    {                                                                         \
        if (iol_py_log_check(self) || ensure_names(self))                     \
            return NULL;                                                      \
        return fn(self, a);                                                   \
    }
WITH_NAMES(iol_py_dxt)
WITH_NAMES(iol_py_records_columns)
WITH_NAMES(iol_py_heatmap)
WITH_NAMES(iol_py_lustre)
WITH_NAMES(iol_py_dxt_reader)

static PyMethodDef log_methods[] = {
    {"close", (PyCFunction)log_close, METH_NOARGS, "Release the log (arrays handed out stay valid)."},
    {"header", (PyCFunction)log_header, METH_NOARGS, "Header fields as a dict."},
    {"job", (PyCFunction)log_job, METH_NOARGS, "Job record, exe and mount table as a dict."},
    {"names", (PyCFunction)log_names, METH_NOARGS, "List of (record id, name) in log order."},
    {"name_table", (PyCFunction)log_name_table, METH_NOARGS, "Name strings indexed by name codes."},
    {"region", (PyCFunction)log_region, METH_O, "Decompressed payload of a module region (bytes)."},
    {"records", (PyCFunction)iol_py_records_m, METH_VARARGS, "Decode a counter module: dict of column buffers."},
    {"records_columns", (PyCFunction)iol_py_records_columns_m, METH_VARARGS,
     "Stream a counter module keeping only the given counters: dict of column buffers."},
    {"dxt", (PyCFunction)iol_py_dxt_m, METH_VARARGS, "Decode a DXT module: dict of column buffers."},
    {"dxt_reader", (PyCFunction)iol_py_dxt_reader_m, METH_VARARGS,
     "A DxtReader over a DXT module: its segments in chunks of bounded size."},
    {"heatmap", (PyCFunction)iol_py_heatmap_m, METH_NOARGS, "Decode HEATMAP: dict of column buffers."},
    {"lustre", (PyCFunction)iol_py_lustre_m, METH_NOARGS, "Decode LUSTRE: dict of column buffers."},
    {"derive", (PyCFunction)iol_py_log_derive, METH_O,
     "derive(module): darshan-parser's --total/--file/--perf figures as a dict."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject IolLog_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iolens._core.Log",
    .tp_doc = "Log(path): an open Darshan log (low level; use iolens.open).",
    .tp_basicsize = sizeof(IolLogObject),
    .tp_dealloc = (destructor)log_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = log_methods,
    .tp_init = (initproc)log_init,
    .tp_new = PyType_GenericNew,
};
