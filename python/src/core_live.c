/* live_read_copy: one round of the live reader over a whole copy
 * (iolens_live_read_copy, include/iolens/live_read.h), for
 * iolens.live.snapshot.  The state arrays are numpy arrays the caller keeps
 * between rounds; nothing is allocated here that outlives the call. */
#include "core.h"
#include "iolens/live_read.h"

/* Per layer: what the call returns in a row of `out` (float64). */
enum { OUT_RECORDS, OUT_CHANGED, OUT_BUSY, OUT_LAST, OUT_DELTA, OUT_ROW = OUT_DELTA + 8 };

/* The buffers one layer holds during the call. */
typedef struct layer_bufs {
    Py_buffer terms, lasts, cols[4];
    int have_terms, have_lasts, n_cols;
} layer_bufs;

static void release_layer(layer_bufs *b)
{
    if (b->have_terms)
        PyBuffer_Release(&b->terms);
    if (b->have_lasts)
        PyBuffer_Release(&b->lasts);
    iol_py_release_columns(b->cols, b->n_cols);
    b->have_terms = b->have_lasts = b->n_cols = 0;
}

/* One (module, record_words, moved_figures, terms, last_words, seq, figs,
 * words, moved) tuple; words and moved may be None. */
static int parse_layer(PyObject *item, layer_bufs *b, iolens_live_layer *l,
                       iolens_live_state *st)
{
    unsigned int module, record_words, moved_figures;
    PyObject *objs[4], *words, *moved;
    if (!PyTuple_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "live_read_copy: a layer is a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(item, "IIIy*y*OOOO", &module, &record_words, &moved_figures,
                          &b->terms, &b->lasts, &objs[0], &objs[1], &words, &moved))
        return -1;
    b->have_terms = b->have_lasts = 1;
    if (b->terms.len % sizeof(iolens_live_term) || b->lasts.len % 4 || record_words == 0 ||
        record_words > INT32_MAX / 8) {
        PyErr_SetString(PyExc_ValueError, "live_read_copy: bad layer");
        return -1;
    }
    /* the columns: seq, figs, then words and moved when given */
    Py_ssize_t itemsize[4] = {4, 8 * IOLENS_LIVE_FIGURES};
    int n = 2, at_words = -1, at_moved = -1;
    if (words != Py_None) {
        itemsize[n] = (Py_ssize_t)record_words * 8;
        objs[at_words = n++] = words;
    }
    if (moved != Py_None) {
        itemsize[n] = 8;
        objs[at_moved = n++] = moved;
    }
    const int writable[4] = {1, 1, 1, 1};
    Py_ssize_t cap;
    if (iol_py_columns(objs, n, itemsize, writable, b->cols, &cap, "live_read_copy") < 0)
        return -1;
    b->n_cols = n;
    *st = (iolens_live_state){(size_t)cap, b->cols[0].buf, b->cols[1].buf,
                              at_words < 0 ? NULL : b->cols[at_words].buf,
                              at_moved < 0 ? NULL : b->cols[at_moved].buf};
    *l = (iolens_live_layer){module,
                             {record_words, (size_t)b->terms.len / sizeof(iolens_live_term),
                              b->terms.buf, (size_t)b->lasts.len / 4, b->lasts.buf,
                              moved_figures},
                             st};
    return 0;
}

/* (mask, busy, records): bit l of mask set when layer l has records read again,
 * -1 when a layer's state is too small (then grow it to its records); the
 * records of each layer's region, as a tuple. */
static PyObject *results(const iolens_live_copy_result *res, size_t n, double *out)
{
    long mask = 0;
    Py_ssize_t busy = 0;
    PyObject *records = PyTuple_New((Py_ssize_t)n);
    if (!records)
        return NULL;
    for (size_t l = 0; l < n; l++) {
        PyObject *count = PyLong_FromSize_t(res->records[l]);
        if (!count) {
            Py_DECREF(records);
            return NULL;
        }
        PyTuple_SET_ITEM(records, (Py_ssize_t)l, count);
        double *row = out + l * OUT_ROW;
        const iolens_live_result *r = &res->layer[l];
        row[OUT_RECORDS] = (double)res->records[l];
        row[OUT_CHANGED] = (double)r->changed;
        row[OUT_BUSY] = (double)r->busy;
        row[OUT_LAST] = r->last;
        memcpy(row + OUT_DELTA, r->delta, sizeof r->delta);
        mask |= r->changed ? 1L << l : 0;
        busy += (Py_ssize_t)r->busy;
    }
    return Py_BuildValue("lnN", res->grow ? -1L : mask, busy, records);
}

PyObject *iol_py_live_read_copy(PyObject *self, PyObject *args)
{
    (void)self;
    int fd, retries;
    unsigned long long size, seq_off, seq_len, pool_off;
    unsigned int shift;
    PyObject *layers_obj;
    Py_buffer head, out;
    if (!PyArg_ParseTuple(args, "iKO!KKKIiw*w*", &fd, &size, &PyTuple_Type, &layers_obj,
                          &seq_off, &seq_len, &pool_off, &shift, &retries, &head, &out))
        return NULL;
    PyObject *result = NULL;
    size_t n = (size_t)PyTuple_GET_SIZE(layers_obj);
    layer_bufs bufs[IOLENS_LIVE_LAYERS] = {0};
    iolens_live_layer layers[IOLENS_LIVE_LAYERS];
    iolens_live_state states[IOLENS_LIVE_LAYERS];
    iolens_live_copy_result res;
    if (n > IOLENS_LIVE_LAYERS || head.len != IOLENS_LIVE_HEAD ||
        out.len != (Py_ssize_t)(n * OUT_ROW * sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "live_read_copy: bad argument sizes");
        goto done;
    }
    for (size_t l = 0; l < n; l++)
        if (parse_layer(PyTuple_GET_ITEM(layers_obj, l), &bufs[l], &layers[l], &states[l]) < 0)
            goto done;
    iolens_live_seqs seqs = {seq_off, seq_len, pool_off, shift};
    int rc = iolens_live_read_copy(fd, size, layers, n, &seqs, retries, &res);
    if (rc != IOLENS_OK) {
        iol_py_raise(rc, "live_read_copy");
        goto done;
    }
    memcpy(head.buf, res.head, IOLENS_LIVE_HEAD);
    result = results(&res, n, out.buf);
done:
    for (size_t l = 0; l < n && l < IOLENS_LIVE_LAYERS; l++)
        release_layer(&bufs[l]);
    PyBuffer_Release(&head);
    PyBuffer_Release(&out);
    return result;
}
