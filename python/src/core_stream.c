/* Column-selecting decoding for Python: a counter module streamed record by record
 * (iolens_record_iter) into just the requested counters, so a frame of a few
 * counters of a huge log never holds the whole decoded region (issue 15: a
 * 1,000,000-record diagnosis in bounded memory).  Returns the same dict as
 * Log.records(), with n_int/n_flt = the number of selected counters. */
#include "core.h"
#include <stdlib.h>
#include <string.h>

/* Growable column arrays, freed together by the owner object. */
typedef struct cols {
    size_t n, cap, ni, nf;
    uint64_t *id, *frid;
    int64_t *rank, *ints;
    double *flts;
    int has_frid;
} cols;

static void cols_free(void *p)
{
    cols *c = p;
    if (!c)
        return;
    free(c->id);
    free(c->frid);
    free(c->rank);
    free(c->ints);
    free(c->flts);
    free(c);
}

static int cols_room(cols *c)
{
    if (c->n < c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 4096;
    if (iol_py_grow((void **)&c->id, cap, 8) || iol_py_grow((void **)&c->rank, cap, 8) ||
        (c->has_frid && iol_py_grow((void **)&c->frid, cap, 8)) ||
        iol_py_grow((void **)&c->ints, cap * c->ni, 8) ||
        iol_py_grow((void **)&c->flts, cap * c->nf, 8))
        return -1;
    c->cap = cap;
    return 0;
}

/* Python sequence of counter indexes -> size_t array (each < limit). */
static int indexes(PyObject *seq, size_t limit, size_t **out, size_t *n)
{
    PyObject *fast = PySequence_Fast(seq, "counter indexes must be a sequence");
    if (!fast)
        return -1;
    *n = (size_t)PySequence_Fast_GET_SIZE(fast);
    *out = malloc((*n ? *n : 1) * sizeof **out);
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        Py_ssize_t k = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
        if (k < 0 || (size_t)k >= limit) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_IndexError, "counter index %zd out of range", k);
            Py_DECREF(fast);
            return -1;
        }
        (*out)[i] = (size_t)k;
    }
    Py_DECREF(fast);
    return 0;
}

/* Stream every record, keeping the selected counters.  Returns an iolens status
 * (or IOLENS_E_NOMEM); *dropped and *version are set. */
static int fill(IolLogObject *self, int module, cols *c, const size_t *ci, const size_t *fi,
                size_t *dropped, uint32_t *version)
{
    iolens_record_iter *it;
    iolens_record r;
    int rc = iolens_record_iter_open(self->log, module, &it);
    if (rc)
        return rc;
    while ((rc = iolens_record_iter_next(it, &r)) == 1) {
        if (cols_room(c)) {
            rc = IOLENS_E_NOMEM;
            break;
        }
        *version = r.stored_version;
        c->id[c->n] = r.id;
        c->rank[c->n] = r.rank;
        if (c->has_frid)
            c->frid[c->n] = r.file_rec_id;
        for (size_t k = 0; k < c->ni; k++)
            c->ints[c->n * c->ni + k] = r.ints[ci[k]];
        for (size_t k = 0; k < c->nf; k++)
            c->flts[c->n * c->nf + k] = r.flts[fi[k]];
        c->n++;
    }
    *dropped = iolens_record_iter_dropped(it);
    iolens_record_iter_close(it);
    return rc;
}

static int put_view(PyObject *d, const char *key, PyObject *owner, const void *p, size_t n)
{
    PyObject *v = p ? iol_py_array(owner, p, n) : Py_NewRef(Py_None);
    return iol_py_set_item(d, key, v);
}

static int put_size(PyObject *d, const char *key, size_t v)
{
    return iol_py_set_item(d, key, PyLong_FromSize_t(v));
}

PyObject *iol_py_records_columns(IolLogObject *self, PyObject *args)
{
    int module;
    PyObject *iseq, *fseq;
    if (!PyArg_ParseTuple(args, "iOO", &module, &iseq, &fseq))
        return NULL;
    const iolens_module_info *mi = iolens_module_info_get(module);
    int frid;
    size_t trailing;
    if (!mi || mi->kind != IOLENS_KIND_COUNTERS)
        return iol_py_raise(IOLENS_E_INVALID_ARG, "records_columns: not a counter module");
    /* DFS/DAOS ids (trailing bytes) are not columns: the caller decodes those whole */
    if (iolens_module_layout_extras(module, &frid, &trailing) != 0 || trailing)
        Py_RETURN_NONE;
    size_t *ci = NULL, *fi = NULL, ni = 0, nf = 0, dropped = 0;
    uint32_t version = iolens_log_header(self->log)->mod_ver[module];
    cols *c = calloc(1, sizeof *c);
    if (!c)
        return PyErr_NoMemory();
    PyObject *owner = iol_py_owner(c, cols_free), *d = NULL;
    if (!owner) {
        cols_free(c);
        return NULL;
    }
    if (indexes(iseq, mi->n_int, &ci, &ni) || indexes(fseq, mi->n_flt, &fi, &nf))
        goto out;
    c->ni = ni;
    c->nf = nf;
    c->has_frid = module == IOL_MOD_H5D || module == IOL_MOD_PNETCDF_VAR;
    /* the GIL stays held: the log handle is not thread-safe */
    int rc = fill(self, module, c, ci, fi, &dropped, &version);
    if (rc < 0) {
        if (rc == IOLENS_E_NOMEM)
            PyErr_NoMemory();
        else
            iol_py_log_raise(self, rc);
        goto out;
    }
    size_t n = c->n;
    int32_t *codes;
    PyObject *code_arr = iol_py_new_array(n * sizeof *codes, (void **)&codes);
    if (!code_arr || iol_py_name_codes(self, c->id, 8, n, codes) < 0 || !(d = PyDict_New())) {
        Py_XDECREF(code_arr);
        goto out;
    }
    int bad = put_size(d, "count", n) || put_size(d, "n_int", ni) || put_size(d, "n_flt", nf)
        || put_size(d, "stored_version", version) || put_size(d, "dropped", dropped)
        || put_size(d, "aux_size", 0)
        || put_view(d, "id", owner, c->id, n * 8) || put_view(d, "rank", owner, c->rank, n * 8)
        || put_view(d, "ints", owner, c->ints, n * ni * 8)
        || put_view(d, "flts", owner, c->flts, n * nf * 8)
        || put_view(d, "file_rec_id", owner, c->has_frid ? (void *)c->frid : NULL, n * 8)
        || put_view(d, "aux", owner, NULL, 0) || put_view(d, "tail_start", owner, NULL, 0)
        || put_view(d, "tail", owner, NULL, 0)
        || iol_py_set_item(d, "name_code", code_arr);
    if (bad)
        Py_CLEAR(d);
out:
    free(ci);
    free(fi);
    Py_DECREF(owner);
    return d;
}
