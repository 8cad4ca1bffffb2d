/* Whole-region decoding for Python: each method decodes one module with
 * libiolens-log and returns a dict of column buffers (core_array.c) that view
 * the library's arrays without copying.  Per-row name codes index the log's
 * name table (Log.name_table()); -1 = no name. */
#include "core.h"
#include "iolens/dxt_region.h"
#include <stdlib.h>

static void free_records(void *p) { iolens_records_free(p); }
static void free_dxt(void *p) { iolens_dxt_free(p); }
static void free_heatmap(void *p) { iolens_heatmap_free(p); }
static void free_lustre(void *p) { iolens_lustre_free(p); }

/* d[key] = view of n bytes at p (owned by owner), or None when p is NULL and
 * allow_none is set. */
static int put_view(PyObject *d, const char *key, PyObject *owner, const void *p,
                    size_t n, int allow_none)
{
    PyObject *v = (!p && allow_none) ? Py_NewRef(Py_None) : iol_py_array(owner, p, n);
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static int put_size(PyObject *d, const char *key, size_t v)
{
    PyObject *o = PyLong_FromSize_t(v);
    int rc = o ? PyDict_SetItemString(d, key, o) : -1;
    Py_XDECREF(o);
    return rc;
}

/* d["name_code"] = int32 per record: index of its id's name, or -1.  The ids are
 * `stride` bytes apart from `ids` on (8 = an array of ids). */
static int put_codes_as(IolLogObject *self, PyObject *d, const char *key, const void *ids,
                        size_t stride, size_t n)
{
    int32_t *codes;
    PyObject *a = iol_py_new_array(n * sizeof *codes, (void **)&codes);
    if (!a)
        return -1;
    if (iol_py_name_codes(self, ids, stride, n, codes) < 0) {
        Py_DECREF(a);
        return -1;
    }
    int rc = PyDict_SetItemString(d, key, a);
    Py_DECREF(a);
    return rc;
}

static int put_name_codes_strided(IolLogObject *self, PyObject *d, const void *ids,
                                  size_t stride, size_t n)
{
    return put_codes_as(self, d, "name_code", ids, stride, n);
}

static int put_name_codes(IolLogObject *self, PyObject *d, const uint64_t *ids, size_t n)
{
    return put_name_codes_strided(self, d, ids, sizeof *ids, n);
}

/* Wrap a decoded structure: owner frees it with free_fn.  NULL on error. */
static PyObject *new_result(void *decoded, void (*free_fn)(void *), PyObject **owner)
{
    *owner = iol_py_owner(decoded, free_fn);
    if (!*owner)
        return NULL;
    PyObject *d = PyDict_New();
    if (!d)
        Py_CLEAR(*owner);
    return d;
}

static PyObject *finish(PyObject *d, PyObject *owner, int failed)
{
    Py_XDECREF(owner);
    if (failed) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

/* Size of one stored record when the stored records already are the decoded
 * layout - current version, host byte order, no file_rec_id, aux or histogram:
 * id, rank, the integer and the float counters back to back - else 0. */
static size_t raw_row_size(IolLogObject *self, int module)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    const iolens_header *h = iolens_log_header(self->log);
    int file_rec_id;
    size_t trailing;
    if (!mi || mi->kind != IOLENS_KIND_COUNTERS
        || iolens_module_layout_extras(module, &file_rec_id, &trailing) != 0 || file_rec_id || trailing)
        return 0;
    if (module < 0 || module >= IOL_MAX_MODULES || h->mod_ver[module] != mi->version
        || h->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
        return 0;
    return 16 + 8 * (mi->n_int + mi->n_flt);
}

/* Records already in the decoded layout: the frame views the decompressed payload
 * itself ("rows", row_size bytes per record), which the log hands over - no
 * decoding pass and no second copy of the region. */
static PyObject *raw_records(IolLogObject *self, int module, size_t size)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    void *payload = NULL;
    size_t len = 0;
    if (iol_py_take_region(self, module, &payload, &len) < 0)
        return NULL;
    PyObject *owner, *d = new_result(payload, free, &owner);
    if (!d)
        return NULL;
    size_t n = len / size;
    int bad = put_size(d, "count", n) || put_size(d, "n_int", mi->n_int)
        || put_size(d, "n_flt", mi->n_flt) || put_size(d, "stored_version", mi->version)
        || put_size(d, "dropped", 0) || put_size(d, "aux_size", 0)
        || put_size(d, "row_size", size)
        || put_view(d, "rows", owner, payload, n * size, 0)
        || PyDict_SetItemString(d, "file_rec_id", Py_None) < 0
        || PyDict_SetItemString(d, "aux", Py_None) < 0
        || PyDict_SetItemString(d, "tail_start", Py_None) < 0
        || PyDict_SetItemString(d, "tail", Py_None) < 0
        || put_name_codes_strided(self, d, payload, size, n);
    return finish(d, owner, bad);
}

PyObject *iol_py_records(IolLogObject *self, PyObject *args)
{
    int module;
    if (!PyArg_ParseTuple(args, "i", &module))
        return NULL;
    size_t row = raw_row_size(self, module);
    if (row)
        return raw_records(self, module, row);
    iolens_records *r = NULL;
    if (iol_py_decode_records(self, module, &r) < 0)
        return NULL;
    PyObject *owner, *d = new_result(r, free_records, &owner);
    if (!d)
        return NULL;
    size_t n = r->count, ntail = r->tail_start ? r->tail_start[n] : 0;
    int bad = put_size(d, "count", n) || put_size(d, "n_int", r->n_int)
        || put_size(d, "n_flt", r->n_flt) || put_size(d, "stored_version", r->stored_version)
        || put_size(d, "dropped", (size_t)r->dropped) || put_size(d, "aux_size", r->aux_size)
        || put_view(d, "id", owner, r->id, n * 8, 0)
        || put_view(d, "rank", owner, r->rank, n * 8, 0)
        || put_view(d, "ints", owner, r->ints, n * r->n_int * 8, 0)
        || put_view(d, "flts", owner, r->flts, n * r->n_flt * 8, 0)
        || put_view(d, "file_rec_id", owner, r->file_rec_id, n * 8, 1)
        || put_view(d, "aux", owner, r->aux, n * r->aux_size, 1)
        || put_view(d, "tail_start", owner, r->tail_start, (n + 1) * sizeof(size_t), 1)
        || put_view(d, "tail", owner, r->tail, ntail * 8, 1)
        || put_name_codes(self, d, r->id, n);
    return finish(d, owner, bad);
}

/* Distinct hostnames as a list plus an int32 code per record. */
static int put_hostnames(PyObject *d, const char (*host)[65], size_t n)
{
    int32_t *codes;
    PyObject *arr = iol_py_new_array(n * sizeof *codes, (void **)&codes);
    PyObject *list = PyList_New(0), *seen = PyDict_New();
    int bad = !arr || !list || !seen;
    for (size_t i = 0; !bad && i < n; i++) {
        PyObject *s = PyUnicode_DecodeUTF8(host[i], (Py_ssize_t)strnlen(host[i], 65),
                                           "surrogateescape");
        PyObject *code = s ? PyDict_GetItemWithError(seen, s) : NULL;
        if (code) {
            codes[i] = (int32_t)PyLong_AsLong(code);
        } else if (s && !PyErr_Occurred()) {
            codes[i] = (int32_t)PyList_GET_SIZE(list);
            PyObject *c = PyLong_FromLong(codes[i]);
            bad = !c || PyDict_SetItem(seen, s, c) < 0 || PyList_Append(list, s) < 0;
            Py_XDECREF(c);
        } else {
            bad = 1;
        }
        Py_XDECREF(s);
    }
    bad = bad || PyDict_SetItemString(d, "host_code", arr) < 0
        || PyDict_SetItemString(d, "hostnames", list) < 0;
    Py_XDECREF(arr);
    Py_XDECREF(list);
    Py_XDECREF(seen);
    return bad ? -1 : 0;
}

/* Per segment: index of its record (int64) and op (int8: 1 write, 0 read). */
static int put_segment_index(PyObject *d, const iolens_dxt *x)
{
    int64_t *rec;
    int8_t *op;
    PyObject *a = iol_py_new_array(x->nseg * sizeof *rec, (void **)&rec);
    PyObject *b = iol_py_new_array(x->nseg * sizeof *op, (void **)&op);
    int bad = !a || !b;
    for (size_t i = 0; !bad && i < x->count; i++) {
        size_t s0 = x->seg_start[i], s1 = x->seg_start[i + 1];
        for (size_t s = s0; s < s1 && s < x->nseg; s++) {
            rec[s] = (int64_t)i;
            op[s] = (int64_t)(s - s0) < x->write_count[i];
        }
    }
    bad = bad || PyDict_SetItemString(d, "seg_rec", a) < 0
        || PyDict_SetItemString(d, "seg_write", b) < 0;
    Py_XDECREF(a);
    Py_XDECREF(b);
    return bad ? -1 : 0;
}

/* d["region_code"]: the name code of each segment's region (our DXT_REGION
 * extension), or None when the log has none.  0 (outside) and NOT_KNOWN ids
 * have no name, so their code is the no-name one. */
static int put_region_codes(IolLogObject *self, PyObject *d, const iolens_dxt *x)
{
    uint64_t *region = NULL;
    int rc = iolens_log_dxt_regions(self->log, x, &region);
    if (rc == IOLENS_E_NOT_PRESENT)
        return PyDict_SetItemString(d, "region_code", Py_None);
    if (rc != IOLENS_OK) {
        iol_py_log_raise(self, rc);
        return -1;
    }
    iolens_log_region_release(self->log, IOLENS_DXT_REGION_MODULE);
    rc = put_codes_as(self, d, "region_code", region, sizeof *region, x->nseg);
    free(region);
    return rc;
}

PyObject *iol_py_dxt(IolLogObject *self, PyObject *args)
{
    int module;
    if (!PyArg_ParseTuple(args, "i", &module))
        return NULL;
    iolens_dxt *x = NULL;
    int rc = iolens_log_dxt(self->log, module, &x);
    if (rc != IOLENS_OK)
        return iol_py_log_raise(self, rc);
    iolens_log_region_release(self->log, module);   /* decoded: the payload is not needed */
    PyObject *owner, *d = new_result(x, free_dxt, &owner);
    if (!d)
        return NULL;
    size_t n = x->count, ns = x->nseg;
    int bad = put_size(d, "count", n) || put_size(d, "nseg", ns)
        || put_size(d, "stored_version", x->stored_version)
        || put_view(d, "id", owner, x->id, n * 8, 0)
        || put_view(d, "rank", owner, x->rank, n * 8, 0)
        || put_view(d, "write_count", owner, x->write_count, n * 8, 0)
        || put_view(d, "read_count", owner, x->read_count, n * 8, 0)
        || put_view(d, "seg_start", owner, x->seg_start, (n + 1) * sizeof(size_t), 0)
        || put_view(d, "offset", owner, x->offset, ns * 8, 0)
        || put_view(d, "length", owner, x->length, ns * 8, 0)
        || put_view(d, "start", owner, x->start, ns * 8, 0)
        || put_view(d, "end", owner, x->end, ns * 8, 0)
        || put_view(d, "thread_id", owner, x->thread_id, ns * 8, 1)
        || put_hostnames(d, (const char (*)[65])x->hostname, n)
        || put_segment_index(d, x)
        || put_name_codes(self, d, x->id, n)
        || put_region_codes(self, d, x);
    return finish(d, owner, bad);
}

PyObject *iol_py_heatmap(IolLogObject *self, PyObject *noargs)
{
    iolens_heatmap *h = NULL;
    int rc = iolens_log_heatmap(self->log, &h);
    if (rc != IOLENS_OK)
        return iol_py_log_raise(self, rc);
    PyObject *owner, *d = new_result(h, free_heatmap, &owner);
    if (!d)
        return NULL;
    size_t n = h->count, nb = h->bin_start ? h->bin_start[n] : 0;
    int bad = put_size(d, "count", n)
        || put_view(d, "id", owner, h->id, n * 8, 0)
        || put_view(d, "rank", owner, h->rank, n * 8, 0)
        || put_view(d, "bin_width", owner, h->bin_width, n * 8, 0)
        || put_view(d, "nbins", owner, h->nbins, n * 8, 0)
        || put_view(d, "bin_start", owner, h->bin_start, (n + 1) * sizeof(size_t), 0)
        || put_view(d, "write_bins", owner, h->write_bins, nb * 8, 0)
        || put_view(d, "read_bins", owner, h->read_bins, nb * 8, 0)
        || put_name_codes(self, d, h->id, n);
    return finish(d, owner, bad);
}

static PyObject *pool_names(const iolens_lustre *l, size_t ncomp)
{
    PyObject *list = PyList_New((Py_ssize_t)ncomp);
    for (size_t i = 0; list && i < ncomp; i++) {
        const char *p = l->pool_name[i];
        PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)strnlen(p, 17), "surrogateescape");
        if (!s)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

PyObject *iol_py_lustre(IolLogObject *self, PyObject *noargs)
{
    iolens_lustre *l = NULL;
    int rc = iolens_log_lustre(self->log, &l);
    if (rc != IOLENS_OK)
        return iol_py_log_raise(self, rc);
    PyObject *owner, *d = new_result(l, free_lustre, &owner);
    if (!d)
        return NULL;
    size_t n = l->count;
    size_t nc = l->comp_start ? l->comp_start[n] : 0, no = l->ost_start ? l->ost_start[n] : 0;
    PyObject *pools = pool_names(l, nc);
    int bad = !pools || PyDict_SetItemString(d, "pool_name", pools) < 0
        || put_size(d, "count", n) || put_size(d, "n_comp_counters", LUSTRE_COMP_NUM_INDICES)
        || put_view(d, "id", owner, l->id, n * 8, 0)
        || put_view(d, "rank", owner, l->rank, n * 8, 0)
        || put_view(d, "num_comps", owner, l->num_comps, n * 8, 0)
        || put_view(d, "num_stripes", owner, l->num_stripes, n * 8, 0)
        || put_view(d, "comp_start", owner, l->comp_start, (n + 1) * sizeof(size_t), 0)
        || put_view(d, "comp", owner, l->comp, nc * LUSTRE_COMP_NUM_INDICES * 8, 0)
        || put_view(d, "ost_start", owner, l->ost_start, (n + 1) * sizeof(size_t), 0)
        || put_view(d, "ost", owner, l->ost, no * 8, 0)
        || put_name_codes(self, d, l->id, n);
    Py_XDECREF(pools);
    return finish(d, owner, bad);
}
