/* live_read_region: one round of the live reader over one module region
 * (iolens_live_read_region, include/iolens/live_read.h), for
 * iolens.live.snapshot.  The state arrays are numpy arrays the caller keeps
 * between rounds; nothing is allocated here that outlives the call. */
#include "core.h"
#include "iolens/live_read.h"

#define LIVE_DOC                                                                         \
    "live_read_region(fd, off, n, record_words, terms, last_words, seq_off, seq_len, "   \
    "pool_off, shift, retries, seq, figs, words, delta) -> (changed, busy, last)\n"      \
    "terms: uint32 triples (word, figure, is_float); last_words: uint32; seq (uint32), " \
    "figs (float64 x 8) and words (int64 x record_words, or None): one row per record "  \
    "kept, updated in place; delta (float64 x 8): the change of the figures' sums."

PyObject *iol_py_live_read_region(PyObject *self, PyObject *args)
{
    (void)self;
    int fd, retries;
    unsigned long long off, seq_off, seq_len, pool_off;
    Py_ssize_t n;
    unsigned int record_words, shift;
    Py_buffer terms, lasts, delta;
    PyObject *cols[3], *words_obj;
    if (!PyArg_ParseTuple(args, "iKnIy*y*KKKIiOOOw*", &fd, &off, &n, &record_words, &terms,
                          &lasts, &seq_off, &seq_len, &pool_off, &shift, &retries, &cols[0],
                          &cols[1], &words_obj, &delta))
        return NULL;
    PyObject *result = NULL;
    int have_words = words_obj != Py_None;
    cols[2] = words_obj;
    Py_ssize_t itemsize[3] = {4, 8 * IOLENS_LIVE_FIGURES, (Py_ssize_t)record_words * 8};
    const int writable[3] = {1, 1, 1};
    Py_buffer bufs[3];
    Py_ssize_t cap;
    if (n < 0 || terms.len % sizeof(iolens_live_term) || lasts.len % 4 ||
        delta.len != 8 * IOLENS_LIVE_FIGURES || record_words == 0) {
        PyErr_SetString(PyExc_ValueError, "live_read_region: bad argument sizes");
        goto out;
    }
    if (iol_py_columns(cols, have_words ? 3 : 2, itemsize, writable, bufs, &cap,
                       "live_read_region") < 0)
        goto out;
    iolens_live_layout layout = {record_words, (size_t)terms.len / sizeof(iolens_live_term),
                                 terms.buf, (size_t)lasts.len / 4, lasts.buf};
    iolens_live_seqs seqs = {seq_off, seq_len, pool_off, shift};
    iolens_live_state state = {(size_t)cap, bufs[0].buf, bufs[1].buf,
                               have_words ? bufs[2].buf : NULL};
    iolens_live_result res;
    int rc = iolens_live_read_region(fd, off, (size_t)n, &layout, &seqs, retries, &state, &res);
    iol_py_release_columns(bufs, have_words ? 3 : 2);
    if (rc != IOLENS_OK) {
        iol_py_raise(rc, "live_read_region");
        goto out;
    }
    memcpy(delta.buf, res.delta, sizeof res.delta);
    result = Py_BuildValue("nnd", (Py_ssize_t)res.changed, (Py_ssize_t)res.busy, res.last);
out:
    PyBuffer_Release(&terms);
    PyBuffer_Release(&lasts);
    PyBuffer_Release(&delta);
    return result;
}
