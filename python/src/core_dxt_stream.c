/* iolens._core.DxtReader: a DXT module read in chunks of at most N segments
 * (iolens_dxt_iter underneath), so that Python can index a trace of any length
 * while holding one chunk at a time (the explorer's out-of-core indexer).
 *
 * Contracts:
 * - read(max) returns the next segments (at most max) in stored order with the
 *   headers of the records met on the way, or None once the module is done.
 *   Segments of record i are its writes, then its reads, as iolens_log_dxt gives.
 * - The reader holds a strong reference to its Log; closing the Log closes the
 *   reader's iterator first (the iterator uses the log's file), after which
 *   read() raises.  The GIL is held throughout: a log handle is not thread-safe. */
#include "core.h"
#include <stdlib.h>
#include <string.h>

enum { SCRATCH = 4096 };              /* segments decoded per library call */

struct IolDxtReader {
    PyObject_HEAD
    IolLogObject *log;                /* strong reference */
    iolens_dxt_iter *it;              /* NULL when done, failed or detached */
    IolDxtReader *prev, *next;        /* the log's list of open readers */
    int detached;                     /* the log was closed under the reader */
    int failed;                       /* a read raised this library error: every later
                                         one raises it too, never a clean end */
    int in_record;                    /* the current record may have segments left */
    int64_t rec;                      /* index of the current record, -1 before any */
    int64_t wc;                       /* its write count: the first wc segments are writes */
    uint64_t pos;                     /* its segments read so far */
    iolens_dxt_seg scratch[SCRATCH];
};

/* ------------------------------------------------------------ the log's list */
static void unlink_reader(IolDxtReader *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else if (r->log && r->log->readers == r)
        r->log->readers = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->prev = r->next = NULL;
}

static void finish(IolDxtReader *r)
{
    if (r->it) {
        iolens_dxt_iter_close(r->it);
        r->it = NULL;
        unlink_reader(r);
    }
}

void iol_py_dxt_readers_detach(IolLogObject *log)
{
    while (log->readers) {
        IolDxtReader *r = log->readers;
        finish(r);
        r->detached = 1;
    }
}

/* ------------------------------------------------------------ one chunk */
typedef struct chunk {               /* segment columns, one allocation each */
    int64_t *rec, *offset, *length;
    double *start, *end;
    uint64_t *tid;
    int8_t *write;
} chunk;

static void chunk_free(void *p)
{
    chunk *c = p;
    if (!c)
        return;
    free(c->rec);
    free(c->offset);
    free(c->length);
    free(c->start);
    free(c->end);
    free(c->tid);
    free(c->write);
    free(c);
}

/* Capacity for max segments; untouched pages of large blocks cost no memory. */
static chunk *chunk_new(size_t max)
{
    chunk *c = calloc(1, sizeof *c);
    size_t n = max ? max : 1;
    if (!c)
        return NULL;
    c->rec = malloc(n * 8);
    c->offset = malloc(n * 8);
    c->length = malloc(n * 8);
    c->start = malloc(n * 8);
    c->end = malloc(n * 8);
    c->tid = malloc(n * 8);
    c->write = malloc(n);
    if (!c->rec || !c->offset || !c->length || !c->start || !c->end || !c->tid || !c->write) {
        chunk_free(c);
        return NULL;
    }
    return c;
}

typedef struct recs {                /* headers of the records met in one read() */
    size_t n, cap;
    uint64_t *id;
    int64_t *rank, *wc, *rc;
    PyObject *hosts;                  /* list of str */
} recs;

static void recs_free(recs *h)
{
    free(h->id);
    free(h->rank);
    free(h->wc);
    free(h->rc);
    Py_XDECREF(h->hosts);
}

/* A chunk for max segments (0: headers only) and an empty header list in *h;
 * NULL with MemoryError set when either cannot be had. */
static chunk *begin_read(size_t max, recs *h)
{
    chunk *c = chunk_new(max);
    *h = (recs){0, 0, NULL, NULL, NULL, NULL, PyList_New(0)};
    if (!c || !h->hosts) {
        chunk_free(c);
        recs_free(h);
        PyErr_NoMemory();
        return NULL;
    }
    return c;
}

/* Append one header; 0 or -1 with an exception set. */
static int recs_add(recs *h, const iolens_dxt_rec *r)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        if (iol_py_grow((void **)&h->id, cap, 8) || iol_py_grow((void **)&h->rank, cap, 8)
            || iol_py_grow((void **)&h->wc, cap, 8) || iol_py_grow((void **)&h->rc, cap, 8)) {
            PyErr_NoMemory();
            return -1;
        }
        h->cap = cap;
    }
    PyObject *s = PyUnicode_DecodeUTF8(r->hostname, (Py_ssize_t)strnlen(r->hostname, 65),
                                       "surrogateescape");
    if (!s || PyList_Append(h->hosts, s) < 0) {
        Py_XDECREF(s);
        return -1;
    }
    Py_DECREF(s);
    h->id[h->n] = r->id;
    h->rank[h->n] = r->rank;
    h->wc[h->n] = r->write_count;
    h->rc[h->n] = r->read_count;
    h->n++;
    return 0;
}

static void scatter(IolDxtReader *r, chunk *c, size_t at, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const iolens_dxt_seg *s = &r->scratch[k];
        c->rec[at + k] = r->rec;
        c->write[at + k] = (int64_t)(r->pos + k) < r->wc;
        c->offset[at + k] = s->offset;
        c->length[at + k] = s->length;
        c->start[at + k] = s->start;
        c->end[at + k] = s->end;
        c->tid[at + k] = s->thread_id;
    }
    r->pos += n;
}

/* Fill c with up to max segments and h with the headers met.  Returns an
 * iolens status (< 0) or 0; *got is the number of segments. */
static int fill(IolDxtReader *r, chunk *c, size_t max, recs *h, size_t *got)
{
    *got = 0;
    while (*got < max && r->it) {
        if (r->in_record) {
            size_t want = max - *got < SCRATCH ? max - *got : SCRATCH, n = 0;
            int rc = iolens_dxt_iter_segments(r->it, r->scratch, want, &n);
            if (rc < 0)
                return rc;
            if (!n)
                r->in_record = 0;
            scatter(r, c, *got, n);
            *got += n;
            continue;
        }
        iolens_dxt_rec hdr;
        int rc = iolens_dxt_iter_next(r->it, &hdr);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            finish(r);
            break;
        }
        if (recs_add(h, &hdr) < 0)
            return IOLENS_E_NOMEM;   /* the Python error is already set */
        r->rec++;
        r->wc = hdr.write_count;
        r->pos = 0;
        r->in_record = 1;
    }
    return IOLENS_OK;
}

/* d[key] = the first nbytes of *p, which the array then owns: each column is
 * freed on its own, so a caller that keeps some columns of a chunk does not
 * keep the others.  *p is handed over (set to NULL) in every case. */
static int put(PyObject *d, const char *key, void **p, size_t nbytes)
{
    void *mem = *p;
    *p = NULL;
    PyObject *owner = iol_py_owner(mem, free);     /* frees mem if it fails */
    if (!owner)
        return -1;
    PyObject *arr = iol_py_array(owner, mem, nbytes);
    Py_DECREF(owner);
    return iol_py_set_item(d, key, arr);
}

/* Record columns are copies (few rows), writable as Log.dxt's are. */
static PyObject *array_of(const void *p, size_t n)
{
    void *mem;
    PyObject *arr = iol_py_new_array(n, &mem);
    if (arr && n)
        memcpy(mem, p, n);
    return arr;
}

/* The dict read() returns; takes c. */
static PyObject *result(IolDxtReader *r, chunk *c, size_t n, recs *h, int64_t first)
{
    int32_t *codes;
    PyObject *code_arr = iol_py_new_array(h->n * sizeof *codes, (void **)&codes);
    PyObject *d = PyDict_New();
    int bad = !code_arr || !d || iol_py_name_codes(r->log, h->id, 8, h->n, codes) < 0
        || iol_py_set_item(d, "nseg", PyLong_FromSize_t(n))
        || put(d, "seg_rec", (void **)&c->rec, n * 8)
        || put(d, "seg_write", (void **)&c->write, n)
        || put(d, "offset", (void **)&c->offset, n * 8)
        || put(d, "length", (void **)&c->length, n * 8)
        || put(d, "start", (void **)&c->start, n * 8)
        || put(d, "end", (void **)&c->end, n * 8)
        || put(d, "thread_id", (void **)&c->tid, n * 8)
        || iol_py_set_item(d, "rec_first", PyLong_FromLongLong(first))
        || iol_py_set_item(d, "id", array_of(h->id, h->n * 8))
        || iol_py_set_item(d, "rank", array_of(h->rank, h->n * 8))
        || iol_py_set_item(d, "write_count", array_of(h->wc, h->n * 8))
        || iol_py_set_item(d, "read_count", array_of(h->rc, h->n * 8))
        || PyDict_SetItemString(d, "hostnames", h->hosts) < 0
        || PyDict_SetItemString(d, "name_code", code_arr) < 0;
    chunk_free(c);                    /* what was not handed over */
    Py_XDECREF(code_arr);
    if (bad)
        Py_CLEAR(d);
    return d;
}

/* 0 when r can be read; -1 with the exception set when its log was closed or an
 * earlier read found the region damaged. */
static int usable(IolDxtReader *r)
{
    if (r->detached) {
        PyErr_Format(PyExc_ValueError, "DxtReader: the log was closed");
        return -1;
    }
    if (r->failed) {
        iol_py_log_raise(r->log, r->failed);
        return -1;
    }
    return 0;
}

static PyObject *reader_read(IolDxtReader *r, PyObject *arg)
{
    Py_ssize_t max = PyLong_AsSsize_t(arg);
    if (max == -1 && PyErr_Occurred())
        return NULL;
    if (max <= 0)
        return PyErr_Format(PyExc_ValueError, "read(max): max must be positive, not %zd", max);
    if (usable(r) < 0)
        return NULL;
    if (!r->it)
        Py_RETURN_NONE;
    recs h;
    chunk *c = begin_read((size_t)max, &h);
    if (!c)
        return NULL;
    int64_t first = r->rec + 1;
    size_t got = 0;
    int rc = fill(r, c, (size_t)max, &h, &got);
    PyObject *out = NULL;
    if (rc < 0) {
        if (!PyErr_Occurred())
            iol_py_log_raise(r->log, rc);
        finish(r);                    /* a broken region is not read further */
        r->failed = rc;
        chunk_free(c);
    } else if (!got && !h.n) {
        chunk_free(c);
        out = Py_NewRef(Py_None);
    } else {
        out = result(r, c, got, &h, first);   /* takes c */
    }
    recs_free(&h);
    return out;
}

/* The headers of the records not started yet, their segments skipped: record
 * columns in bounded memory however long the trace (Log.dxt_records). */
static PyObject *reader_headers(IolDxtReader *r, PyObject *noargs)
{
    if (usable(r) < 0)
        return NULL;
    recs h;
    chunk *c = begin_read(0, &h);
    if (!c)
        return NULL;
    int64_t first = r->rec + 1;
    int rc = IOLENS_OK;
    while (r->it) {
        iolens_dxt_rec hdr;
        int more = iolens_dxt_iter_next(r->it, &hdr);   /* skips the previous segments */
        if (more <= 0) {
            rc = more;
            if (!more)
                finish(r);
            break;
        }
        if (recs_add(&h, &hdr) < 0) {
            rc = IOLENS_E_NOMEM;
            break;
        }
        r->rec++;
        r->in_record = 0;
    }
    PyObject *out = NULL;
    if (rc < 0) {
        if (!PyErr_Occurred())
            iol_py_log_raise(r->log, rc);
        finish(r);
        r->failed = rc;
        chunk_free(c);
    } else {
        out = result(r, c, 0, &h, first);
    }
    recs_free(&h);
    return out;
}

static void reader_dealloc(IolDxtReader *r)
{
    finish(r);
    Py_CLEAR(r->log);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyMethodDef reader_methods[] = {
    {"read", (PyCFunction)reader_read, METH_O,
     "read(max): dict of the next <= max segments (columns) and the record headers met, "
     "or None at the end."},
    {"headers", (PyCFunction)reader_headers, METH_NOARGS,
     "headers(): the same dict for all records not started yet, their segments skipped "
     "(nseg = 0)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject IolDxtReader_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iolens._core.DxtReader",
    .tp_doc = "A DXT module read chunk by chunk (from Log.dxt_reader(module)).",
    .tp_basicsize = sizeof(IolDxtReader),
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = reader_methods,
};

PyObject *iol_py_dxt_reader(IolLogObject *self, PyObject *args)
{
    int module;
    if (!PyArg_ParseTuple(args, "i", &module))
        return NULL;
    iolens_dxt_iter *it;
    int rc = iolens_dxt_iter_open(self->log, module, &it);
    if (rc != IOLENS_OK)
        return iol_py_log_raise(self, rc);
    IolDxtReader *r = PyObject_New(IolDxtReader, &IolDxtReader_Type);
    if (!r) {
        iolens_dxt_iter_close(it);
        return NULL;
    }
    r->log = (IolLogObject *)Py_NewRef((PyObject *)self);
    r->it = it;
    r->detached = 0;
    r->failed = 0;
    r->in_record = 0;
    r->rec = -1;
    r->wc = 0;
    r->pos = 0;
    r->prev = NULL;
    r->next = self->readers;
    if (self->readers)
        self->readers->prev = r;
    self->readers = r;
    return (PyObject *)r;
}
