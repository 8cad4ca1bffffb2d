/* Writing 3.41 logs from Python: the Writer type (columns in, one module region
 * per call) and write_copy(), which re-encodes a whole log in C. */
#include "core.h"
#include <stdlib.h>

/* ---------------------------------------------------------------- write_copy */
static int copy_opaque(iolens_log *in, iolens_writer *w, int id)
{
    const iolens_header *h = iolens_log_header(in);
    const void *payload;
    size_t len;
    if (h->big_endian)      /* stored in writer byte order: cannot be re-labelled LE */
        return IOLENS_OK;
    int rc = iolens_log_region(in, id, &payload, &len);
    return rc ? rc : iolens_writer_put_region(w, id, h->mod_ver[id], payload, len);
}

/* Decode module `id` of `in` and encode it into `w` at the current version. */
static int copy_module(iolens_log *in, iolens_writer *w, int id, int kind)
{
    int rc;
    if (kind == IOLENS_KIND_COUNTERS || kind == IOLENS_KIND_MDHIM) {
        iolens_records *r;
        if ((rc = iolens_log_records(in, id, &r)) == IOLENS_OK) {
            rc = iolens_writer_put_records(w, r);
            iolens_records_free(r);
        }
    } else if (kind == IOLENS_KIND_DXT) {
        iolens_dxt *d;
        if ((rc = iolens_log_dxt(in, id, &d)) == IOLENS_OK) {
            rc = iolens_writer_put_dxt(w, d);
            iolens_dxt_free(d);
        }
    } else if (kind == IOLENS_KIND_HEATMAP) {
        iolens_heatmap *hm;
        if ((rc = iolens_log_heatmap(in, &hm)) == IOLENS_OK) {
            rc = iolens_writer_put_heatmap(w, hm);
            iolens_heatmap_free(hm);
        }
    } else if (kind == IOLENS_KIND_LUSTRE) {
        iolens_lustre *l;
        if ((rc = iolens_log_lustre(in, &l)) == IOLENS_OK) {
            rc = iolens_writer_put_lustre(w, l);
            iolens_lustre_free(l);
        }
    } else {
        rc = copy_opaque(in, w, id);
    }
    return rc;
}

static int copy_log(iolens_log *in, iolens_writer *w)
{
    const iolens_header *h = iolens_log_header(in);
    int rc = iolens_writer_set_job(w, iolens_log_job(in));
    size_t n = iolens_log_name_count(in);
    for (size_t i = 0; rc == IOLENS_OK && i < n; i++) {
        uint64_t id;
        const char *name;
        rc = iolens_log_name_at(in, i, &id, &name);
        if (rc == IOLENS_OK)
            rc = iolens_writer_add_name(w, id, name);
    }
    for (int id = 0; rc == IOLENS_OK && id < IOL_MAX_MODULES; id++) {
        const iolens_module_info *m = iolens_module_info_get(id);
        if (m && h->mod[id].len > 0)
            rc = copy_module(in, w, id, m->kind);
    }
    iolens_writer_set_partial(w, h->partial_flag);
    return rc;
}

PyObject *iol_py_write_copy(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"src", "dst", "comp_type", NULL};
    PyObject *src = NULL, *dst = NULL;
    int comp = IOLENS_COMP_ZLIB;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&O&|i", kwlist, PyUnicode_FSConverter, &src,
                                     PyUnicode_FSConverter, &dst, &comp)) {
        Py_XDECREF(src);
        return NULL;
    }
    char err[1024] = "";
    iolens_log *in = NULL;
    iolens_writer *w = NULL;
    int rc = iolens_log_open(PyBytes_AS_STRING(src), &in, err, sizeof err);
    if (rc == IOLENS_OK && (rc = iolens_writer_open(PyBytes_AS_STRING(dst), comp, &w)) != IOLENS_OK)
        snprintf(err, sizeof err, "%s", w ? iolens_writer_error(w) : "cannot create the copy");
    if (rc == IOLENS_OK) {
        rc = copy_log(in, w);
        if (rc != IOLENS_OK) {
            snprintf(err, sizeof err, "%s%s", iolens_log_error(in), iolens_writer_error(w));
            iolens_writer_abort(w);
        } else {
            rc = iolens_writer_close_err(w, err, sizeof err);
        }
    }
    if (in)
        iolens_log_close(in);
    Py_DECREF(src);
    Py_DECREF(dst);
    if (rc != IOLENS_OK)
        return iol_py_raise(rc, err);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- Writer
 * Every method keeps the GIL while it uses the writer handle, so Python threads
 * sharing one Writer cannot race on it (handles are not thread-safe, log.h). */
typedef struct IolWriterObject {
    PyObject_HEAD
    iolens_writer *w;
} IolWriterObject;

static PyObject *writer_raise(IolWriterObject *self, int rc)
{
    return iol_py_raise(rc, self->w ? iolens_writer_error(self->w) : "");
}

/* The end of every put/add method: NULL if a Python error is set (`failed`), the
 * writer's error as an exception if rc says one, else None. */
static PyObject *writer_result(IolWriterObject *self, int failed, int rc)
{
    if (failed)
        return NULL;
    if (rc != IOLENS_OK)
        return writer_raise(self, rc);
    Py_RETURN_NONE;
}

static int writer_check(IolWriterObject *self)
{
    if (self->w)
        return 0;
    PyErr_SetString(PyExc_ValueError, "writer is closed");
    return -1;
}

static int writer_init(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "comp_type", NULL};
    PyObject *path = NULL;
    int comp = IOLENS_COMP_ZLIB;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|i", kwlist, PyUnicode_FSConverter, &path, &comp))
        return -1;
    iolens_writer *w = NULL;
    int rc = iolens_writer_open(PyBytes_AS_STRING(path), comp, &w);
    Py_DECREF(path);
    if (rc != IOLENS_OK) {
        iol_py_raise(rc, w ? iolens_writer_error(w) : "");
        if (w)
            iolens_writer_abort(w);
        return -1;
    }
    self->w = w;
    return 0;
}

static void writer_dealloc(IolWriterObject *self)
{
    if (self->w)
        iolens_writer_abort(self->w);   /* never closed: do not leave a half log */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A C-contiguous buffer of exactly n items of `size` bytes (n < 0: any count). */
static int get_column(PyObject *o, Py_buffer *b, size_t size, Py_ssize_t n, const char *what)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((size_t)b->len % size || (n >= 0 && (size_t)b->len != (size_t)n * size)) {
        PyErr_Format(PyExc_ValueError, "%s: buffer of %zd bytes does not hold %zd items of %zu bytes",
                     what, b->len, n, size);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static void release_all(Py_buffer *b, int n)
{
    for (int i = 0; i < n; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
}

/* Text to store: bytes, or a str whose bytes that are not UTF-8 came from the
 * reader as surrogateescape (so every name read goes back as the same bytes).
 * A new bytes object, or NULL with an exception (a NUL cannot be stored). */
static PyObject *stored_text(PyObject *o)
{
    PyObject *b = PyBytes_Check(o) ? Py_NewRef(o)
                : PyUnicode_Check(o) ? PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape")
                : NULL;
    if (!b && !PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "text must be str or bytes, not %.100s", Py_TYPE(o)->tp_name);
    if (b && strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
        PyErr_SetString(PyExc_ValueError, "text to store contains a NUL byte");
        Py_CLEAR(b);
    }
    return b;
}

/* stored_text kept alive in `keep` (a list); its bytes, or NULL with an exception. */
static const char *kept_text(PyObject *keep, PyObject *o)
{
    PyObject *b = stored_text(o);
    if (!b)
        return NULL;
    int bad = PyList_Append(keep, b);
    Py_DECREF(b);
    return bad ? NULL : PyBytes_AS_STRING(b);
}

static PyObject *writer_set_job(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"uid", "start_sec", "start_nsec", "end_sec", "end_nsec", "nprocs",
                             "jobid", "metadata", "exe", "mounts", NULL};
    iolens_job j;
    memset(&j, 0, sizeof j);
    const char *meta = "", *exe = "";
    PyObject *meta_o = NULL, *exe_o = NULL, *mounts = NULL, *keep = PyList_New(0);
    if (!keep || writer_check(self)
        || !PyArg_ParseTupleAndKeywords(args, kwds, "LLLLLLL|OOO", kwlist, &j.uid, &j.start_sec,
                                        &j.start_nsec, &j.end_sec, &j.end_nsec, &j.nprocs,
                                        &j.jobid, &meta_o, &exe_o, &mounts)
        || (meta_o && !(meta = kept_text(keep, meta_o)))
        || (exe_o && !(exe = kept_text(keep, exe_o)))) {
        Py_XDECREF(keep);
        return NULL;
    }
    snprintf(j.metadata, sizeof j.metadata, "%s", meta);
    PyObject *seq = mounts ? PySequence_Fast(mounts, "mounts must be a sequence of (path, fstype)")
                           : PyList_New(0);
    if (!seq) {
        Py_DECREF(keep);
        return NULL;
    }
    Py_ssize_t nm = PySequence_Fast_GET_SIZE(seq);
    j.mounts = calloc((size_t)nm + 1, sizeof *j.mounts);
    int ok = j.mounts != NULL;
    for (Py_ssize_t i = 0; ok && i < nm; i++) {
        PyObject *path, *fstype;
        ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OO", &path, &fstype)
            && (j.mounts[i].path = (char *)kept_text(keep, path)) != NULL
            && (j.mounts[i].fstype = (char *)kept_text(keep, fstype)) != NULL;
    }
    j.nmounts = (size_t)nm;
    j.exe = (char *)exe;
    /* The raw string as stored (section 4.4), for writers that use it. */
    size_t cap = strlen(exe) + 1;
    for (Py_ssize_t i = 0; ok && i < nm; i++)
        cap += strlen(j.mounts[i].path) + strlen(j.mounts[i].fstype) + 2;
    char *raw = ok ? malloc(cap) : NULL;
    int rc = IOLENS_E_NOMEM;
    if (raw) {
        size_t o = (size_t)snprintf(raw, cap, "%s", exe);
        for (Py_ssize_t i = 0; i < nm; i++)
            o += (size_t)snprintf(raw + o, cap - o, "\n%s\t%s", j.mounts[i].fstype, j.mounts[i].path);
        j.exe_mounts = raw;
        rc = iolens_writer_set_job(self->w, &j);
    }
    free(raw);
    free(j.mounts);
    Py_DECREF(seq);
    Py_DECREF(keep);
    return writer_result(self, !ok && PyErr_Occurred() != NULL, rc);
}

static PyObject *writer_add_names(IolWriterObject *self, PyObject *args)
{
    PyObject *ids, *names;
    if (writer_check(self) || !PyArg_ParseTuple(args, "OO", &ids, &names))
        return NULL;
    PyObject *ni = PySequence_Fast(ids, "ids must be a sequence");
    PyObject *nn = ni ? PySequence_Fast(names, "names must be a sequence") : NULL;
    int rc = IOLENS_OK;
    if (nn && PySequence_Fast_GET_SIZE(ni) != PySequence_Fast_GET_SIZE(nn))
        PyErr_SetString(PyExc_ValueError, "ids and names differ in length");
    for (Py_ssize_t i = 0; nn && !PyErr_Occurred() && rc == IOLENS_OK
         && i < PySequence_Fast_GET_SIZE(ni); i++) {
        unsigned long long id = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(ni, i));
        PyObject *name = PyErr_Occurred() ? NULL : stored_text(PySequence_Fast_GET_ITEM(nn, i));
        if (name)
            rc = iolens_writer_add_name(self->w, id, PyBytes_AS_STRING(name));
        Py_XDECREF(name);
    }
    Py_XDECREF(ni);
    Py_XDECREF(nn);
    return writer_result(self, PyErr_Occurred() != NULL, rc);
}

static PyObject *writer_put_records(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"module", "id", "rank", "ints", "flts", "file_rec_id", NULL};
    int module;
    PyObject *o[5], *frid = Py_None;
    Py_buffer b[6];
    memset(b, 0, sizeof b);
    if (writer_check(self)
        || !PyArg_ParseTupleAndKeywords(args, kwds, "iOOOO|O", kwlist, &module, &o[0], &o[1],
                                        &o[2], &o[3], &frid))
        return NULL;
    const iolens_module_info *m = iolens_module_info_get(module);
    if (!m || m->kind != IOLENS_KIND_COUNTERS)
        return iol_py_raise(IOLENS_E_UNKNOWN_MODULE, "put_records: not a counter module");
    if (get_column(o[0], &b[0], 8, -1, "id"))
        return NULL;
    Py_ssize_t n = b[0].len / 8;
    int bad = get_column(o[1], &b[1], 8, n, "rank")
        || get_column(o[2], &b[2], 8, n * (Py_ssize_t)m->n_int, "ints")
        || get_column(o[3], &b[3], 8, n * (Py_ssize_t)m->n_flt, "flts")
        || (frid != Py_None && get_column(frid, &b[4], 8, n, "file_rec_id"));
    int rc = IOLENS_OK;
    if (!bad) {
        iolens_records r;
        memset(&r, 0, sizeof r);
        r.module = module;
        r.stored_version = m->version;
        r.count = (size_t)n;
        r.n_int = m->n_int;
        r.n_flt = m->n_flt;
        r.id = b[0].buf;
        r.rank = b[1].buf;
        r.ints = b[2].buf;
        r.flts = b[3].buf;
        r.file_rec_id = b[4].obj ? b[4].buf : NULL;
        rc = iolens_writer_put_records(self->w, &r);
    }
    release_all(b, 6);
    return writer_result(self, bad, rc);
}

/* starts[0..n] = running sum of a[i] (+ b[i]). */
static size_t *prefix_sums(const int64_t *a, const int64_t *b, size_t n)
{
    size_t *s = malloc((n + 1) * sizeof *s);
    if (!s)
        return NULL;
    s[0] = 0;
    for (size_t i = 0; i < n; i++)
        s[i + 1] = s[i] + (size_t)a[i] + (b ? (size_t)b[i] : 0);
    return s;
}

static PyObject *writer_put_dxt(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"module", "id", "rank", "hostnames", "write_count", "read_count",
                             "offset", "length", "start", "end", NULL};
    int module;
    PyObject *o[9];
    Py_buffer b[8];
    memset(b, 0, sizeof b);
    if (writer_check(self)
        || !PyArg_ParseTupleAndKeywords(args, kwds, "iOOOOOOOOO", kwlist, &module, &o[0], &o[1],
                                        &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8]))
        return NULL;
    if (get_column(o[0], &b[0], 8, -1, "id"))
        return NULL;
    Py_ssize_t n = b[0].len / 8, ns = -1;
    int bad = get_column(o[1], &b[1], 8, n, "rank") || get_column(o[3], &b[2], 8, n, "write_count")
        || get_column(o[4], &b[3], 8, n, "read_count") || get_column(o[5], &b[4], 8, -1, "offset");
    if (!bad) {
        ns = b[4].len / 8;
        bad = get_column(o[6], &b[5], 8, ns, "length") || get_column(o[7], &b[6], 8, ns, "start")
            || get_column(o[8], &b[7], 8, ns, "end");
    }
    PyObject *hosts = bad ? NULL : PySequence_Fast(o[2], "hostnames must be a sequence");
    iolens_dxt d;
    memset(&d, 0, sizeof d);
    if (hosts && PySequence_Fast_GET_SIZE(hosts) != n)
        PyErr_SetString(PyExc_ValueError, "one hostname per record expected");
    int rc = IOLENS_OK;
    if (hosts && !PyErr_Occurred()) {
        d.hostname = calloc((size_t)n + 1, sizeof *d.hostname);
        d.seg_start = prefix_sums(b[2].buf, b[3].buf, (size_t)n);
        for (Py_ssize_t i = 0; d.hostname && i < n && !PyErr_Occurred(); i++) {
            PyObject *h = stored_text(PySequence_Fast_GET_ITEM(hosts, i));
            if (h)
                snprintf(d.hostname[i], sizeof d.hostname[i], "%s", PyBytes_AS_STRING(h));
            Py_XDECREF(h);
        }
        if (!d.hostname || !d.seg_start)
            PyErr_NoMemory();
        else if (d.seg_start[n] != (size_t)ns)
            PyErr_SetString(PyExc_ValueError, "segment count differs from write_count + read_count");
    }
    if (hosts && !PyErr_Occurred()) {
        d.module = module;
        d.count = (size_t)n;
        d.id = b[0].buf;
        d.rank = b[1].buf;
        d.write_count = b[2].buf;
        d.read_count = b[3].buf;
        d.nseg = (size_t)ns;
        d.offset = b[4].buf;
        d.length = b[5].buf;
        d.start = b[6].buf;
        d.end = b[7].buf;
        rc = iolens_writer_put_dxt(self->w, &d);
    }
    free(d.hostname);
    free(d.seg_start);
    Py_XDECREF(hosts);
    release_all(b, 8);
    return writer_result(self, PyErr_Occurred() != NULL, rc);
}

static PyObject *writer_put_heatmap(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"id", "rank", "bin_width", "nbins", "write_bins", "read_bins", NULL};
    PyObject *o[6];
    Py_buffer b[6];
    memset(b, 0, sizeof b);
    if (writer_check(self)
        || !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOO", kwlist, &o[0], &o[1], &o[2], &o[3],
                                        &o[4], &o[5]))
        return NULL;
    if (get_column(o[0], &b[0], 8, -1, "id"))
        return NULL;
    Py_ssize_t n = b[0].len / 8;
    int bad = get_column(o[1], &b[1], 8, n, "rank") || get_column(o[2], &b[2], 8, n, "bin_width")
        || get_column(o[3], &b[3], 8, n, "nbins");
    iolens_heatmap h;
    memset(&h, 0, sizeof h);
    h.bin_start = bad ? NULL : prefix_sums(b[3].buf, NULL, (size_t)n);
    if (!bad && !h.bin_start)
        PyErr_NoMemory();
    bad = bad || !h.bin_start
        || get_column(o[4], &b[4], 8, (Py_ssize_t)h.bin_start[n], "write_bins")
        || get_column(o[5], &b[5], 8, (Py_ssize_t)h.bin_start[n], "read_bins");
    int rc = IOLENS_OK;
    if (!bad) {
        h.count = (size_t)n;
        h.id = b[0].buf;
        h.rank = b[1].buf;
        h.bin_width = b[2].buf;
        h.nbins = b[3].buf;
        h.write_bins = b[4].buf;
        h.read_bins = b[5].buf;
        rc = iolens_writer_put_heatmap(self->w, &h);
    }
    free(h.bin_start);
    release_all(b, 6);
    return writer_result(self, bad, rc);
}

/* LUSTRE: per record its component and OST counts; comp holds
 * LUSTRE_COMP_NUM_INDICES counters per component, pool_names one str each. */
static int non_negative(const Py_buffer *b, const char *what)
{
    const int64_t *v = b->buf;
    for (Py_ssize_t i = 0; i < b->len / 8; i++)
        if (v[i] < 0) {
            PyErr_Format(PyExc_ValueError, "%s must not be negative", what);
            return -1;
        }
    return 0;
}

static int pool_names(PyObject *list, size_t n, char (**out)[17])
{
    if (!PyList_Check(list) || (size_t)PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "pool_names must be a list of %zu str", n);
        return -1;
    }
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *t = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(list, (Py_ssize_t)i), &len);
        if (!t || len > 15) {
            if (t)
                PyErr_SetString(PyExc_ValueError, "a pool name has at most 15 bytes");
            return -1;
        }
        memcpy((*out)[i], t, (size_t)len);
    }
    return 0;
}

static PyObject *writer_put_lustre(IolWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"id", "rank", "num_comps", "num_stripes", "comp", "pool_names",
                             "ost", NULL};
    PyObject *o[7];
    Py_buffer b[6];
    memset(b, 0, sizeof b);
    if (writer_check(self)
        || !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOO", kwlist, &o[0], &o[1], &o[2], &o[3],
                                        &o[4], &o[5], &o[6]))
        return NULL;
    if (get_column(o[0], &b[0], 8, -1, "id"))
        return NULL;
    Py_ssize_t n = b[0].len / 8;
    iolens_lustre l;
    memset(&l, 0, sizeof l);
    int bad = get_column(o[1], &b[1], 8, n, "rank") || get_column(o[2], &b[2], 8, n, "num_comps")
        || get_column(o[3], &b[3], 8, n, "num_stripes") || non_negative(&b[2], "num_comps")
        || non_negative(&b[3], "num_stripes");
    if (!bad) {
        l.comp_start = prefix_sums(b[2].buf, NULL, (size_t)n);
        l.ost_start = prefix_sums(b[3].buf, NULL, (size_t)n);
        if (!l.comp_start || !l.ost_start) {
            PyErr_NoMemory();
            bad = 1;
        }
    }
    bad = bad
        || get_column(o[4], &b[4], 8, (Py_ssize_t)(l.comp_start[n] * LUSTRE_COMP_NUM_INDICES), "comp")
        || get_column(o[6], &b[5], 8, (Py_ssize_t)l.ost_start[n], "ost")
        || pool_names(o[5], l.comp_start[n], &l.pool_name);
    int rc = IOLENS_OK;
    if (!bad) {
        l.count = (size_t)n;
        l.id = b[0].buf;
        l.rank = b[1].buf;
        l.num_comps = b[2].buf;
        l.num_stripes = b[3].buf;
        l.comp = b[4].buf;
        l.ost = b[5].buf;
        rc = iolens_writer_put_lustre(self->w, &l);
    }
    free(l.comp_start);
    free(l.ost_start);
    free(l.pool_name);
    release_all(b, 6);
    return writer_result(self, bad, rc);
}

static PyObject *writer_set_partial(IolWriterObject *self, PyObject *arg)
{
    unsigned long long flag = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred() || writer_check(self))
        return NULL;
    iolens_writer_set_partial(self->w, flag);
    Py_RETURN_NONE;
}

static PyObject *writer_close(IolWriterObject *self, PyObject *noargs)
{
    if (!self->w)
        Py_RETURN_NONE;
    char err[512] = "";
    int rc = iolens_writer_close_err(self->w, err, sizeof err);
    self->w = NULL;
    if (rc != IOLENS_OK)
        return iol_py_raise(rc, err);
    Py_RETURN_NONE;
}

static PyObject *writer_abort(IolWriterObject *self, PyObject *noargs)
{
    if (self->w)
        iolens_writer_abort(self->w);
    self->w = NULL;
    Py_RETURN_NONE;
}

static PyMethodDef writer_methods[] = {
    {"set_job", (PyCFunction)(void (*)(void))writer_set_job, METH_VARARGS | METH_KEYWORDS,
     "set_job(uid, start_sec, start_nsec, end_sec, end_nsec, nprocs, jobid, metadata='', exe='', mounts=())"},
    {"add_names", (PyCFunction)writer_add_names, METH_VARARGS, "add_names(ids, names)"},
    {"put_records", (PyCFunction)(void (*)(void))writer_put_records, METH_VARARGS | METH_KEYWORDS,
     "put_records(module, id, rank, ints, flts, file_rec_id=None): row-major counter buffers"},
    {"put_dxt", (PyCFunction)(void (*)(void))writer_put_dxt, METH_VARARGS | METH_KEYWORDS,
     "put_dxt(module, id, rank, hostnames, write_count, read_count, offset, length, start, end)"},
    {"put_heatmap", (PyCFunction)(void (*)(void))writer_put_heatmap, METH_VARARGS | METH_KEYWORDS,
     "put_heatmap(id, rank, bin_width, nbins, write_bins, read_bins)"},
    {"put_lustre", (PyCFunction)(void (*)(void))writer_put_lustre, METH_VARARGS | METH_KEYWORDS,
     "put_lustre(id, rank, num_comps, num_stripes, comp, pool_names, ost)"},
    {"set_partial", (PyCFunction)writer_set_partial, METH_O, "set_partial(flag)"},
    {"close", (PyCFunction)writer_close, METH_NOARGS, "Write the header and close."},
    {"abort", (PyCFunction)writer_abort, METH_NOARGS, "Remove the unfinished file."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject IolWriter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iolens._core.Writer",
    .tp_doc = "Writer(path, comp_type=0): a Darshan 3.41 log writer (low level).",
    .tp_basicsize = sizeof(IolWriterObject),
    .tp_dealloc = (destructor)writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = writer_methods,
    .tp_init = (initproc)writer_init,
    .tp_new = PyType_GenericNew,
};
