/* Internal interface of the iolens._core extension, shared by its source files.
 *
 * The extension is a thin layer over libiolens-log: it decodes whole module
 * regions in C and hands the decoded column arrays to Python as buffer objects
 * (no copy, no Python object per record).  Error codes become Python exceptions
 * through the single table in core_errors.c. */
#ifndef IOLENS_PY_CORE_H
#define IOLENS_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include "iolens/log.h"

/* ---- errors (core_errors.c) */
int iol_py_errors_init(PyObject *module);
/* Raise the exception class mapped to `status` with `detail` (or the status
 * text when detail is empty).  Always returns NULL. */
PyObject *iol_py_raise(int status, const char *detail);

/* ---- buffers (core_array.c) */
extern PyTypeObject IolArray_Type;
/* Owner of library-allocated memory: calls free_fn(ptr) when the last array
 * referencing it goes away. */
PyObject *iol_py_owner(void *ptr, void (*free_fn)(void *));
/* A writable 1-D byte buffer over [ptr, ptr+nbytes) that keeps `owner` alive.
 * ptr may be NULL when nbytes is 0.  Returns a new reference or NULL. */
PyObject *iol_py_array(PyObject *owner, const void *ptr, size_t nbytes);
/* A fresh zero-initialised buffer that owns its own memory (malloc). */
PyObject *iol_py_new_array(size_t nbytes, void **data);

/* ---- equal-length columns (core_columns.c) */
/* Buffers of n objects (C-contiguous; writable where writable[k], which may be
 * NULL) whose lengths are the same number of rows of itemsize[k] bytes each.
 * 0 with every buffer held, or -1 with an exception set and none held. */
int iol_py_columns(PyObject *const *objs, int n, const Py_ssize_t *itemsize,
                   const int *writable, Py_buffer *bufs, Py_ssize_t *rows, const char *who);
void iol_py_release_columns(Py_buffer *bufs, int n);

/* ---- export track placement (core_tracks.c) */
extern PyTypeObject IolTrackPlacer_Type;
/* processing_order(start, end, mod, order) -> bool (core_tracks.c) */
PyObject *iol_py_processing_order(PyObject *self, PyObject *args);
/* encode_slice_packets(...) -> bytes (core_protobuf.c) */
PyObject *iol_py_encode_slice_packets(PyObject *self, PyObject *args);
/* encode_json_slices(...) -> bytes (core_json.c) */
PyObject *iol_py_encode_json_slices(PyObject *self, PyObject *args);

/* live_read_copy(...) -> (mask, busy) (core_live.c) */
PyObject *iol_py_live_read_copy(PyObject *self, PyObject *args);

/* ---- open logs (core_log.c) */
typedef struct iol_idslot {
    uint64_t key;
    int32_t val;                  /* -1 = empty slot */
} iol_idslot;

typedef struct iol_idmap {        /* record id -> name index */
    uint64_t *ids;                /* id of each name index (the library's names are */
    size_t n;                     /* unique, often in the order records come in) */
    iol_idslot *slots;            /* open addressing, built on the first lookup that */
    size_t mask;                  /* the order does not answer */
} iol_idmap;

typedef struct IolDxtReader IolDxtReader;

typedef struct IolLogObject {
    PyObject_HEAD
    iolens_log *log;
    PyObject *names;              /* list of str in library iteration order */
    iol_idmap map;
    IolDxtReader *readers;        /* open chunked DXT readers (core_dxt_stream.c) */
} IolLogObject;

extern PyTypeObject IolLog_Type;
/* Name index in self->names (-1 = none) of n ids `stride` bytes apart, into
 * codes[]; cheap when the ids come in name-table order.  0, or -1 with
 * MemoryError set. */
int iol_py_name_codes(IolLogObject *self, const void *ids, size_t stride, size_t n,
                      int32_t *codes);
/* Decode all records of `module` and make sure the names exist.  Returns 0, or
 * -1 with a Python exception set. */
int iol_py_decode_records(IolLogObject *self, int module, iolens_records **out);
/* Like iol_py_decode_records, but hands over the module's decompressed payload
 * (stored layout; caller frees it) instead of decoding it. */
int iol_py_take_region(IolLogObject *self, int module, void **payload, size_t *len);
/* Raise the log's last error for `status`.  Returns NULL. */
PyObject *iol_py_log_raise(IolLogObject *self, int status);
/* Raise if the log is closed; returns 0 when open. */
int iol_py_log_check(IolLogObject *self);

/* ---- decoded frames (core_frames.c): Log methods */
PyObject *iol_py_records(IolLogObject *self, PyObject *args);
/* (module, int counter indexes, float counter indexes): streamed, selected (core_stream.c) */
PyObject *iol_py_records_columns(IolLogObject *self, PyObject *args);
PyObject *iol_py_dxt(IolLogObject *self, PyObject *args);
PyObject *iol_py_heatmap(IolLogObject *self, PyObject *noargs);
PyObject *iol_py_lustre(IolLogObject *self, PyObject *noargs);

/* ---- chunked DXT reading (core_dxt_stream.c) */
extern PyTypeObject IolDxtReader_Type;
/* Log.dxt_reader(module): a DxtReader over one DXT module. */
PyObject *iol_py_dxt_reader(IolLogObject *self, PyObject *args);
/* Close the iterators of the log's open readers (before the log itself goes). */
void iol_py_dxt_readers_detach(IolLogObject *self);

/* ---- metadata (core_meta.c) */
PyObject *iol_py_module_table(PyObject *self, PyObject *noargs);
PyObject *iol_py_platform_keys(PyObject *self, PyObject *noargs);
PyObject *iol_py_record_id(PyObject *self, PyObject *arg);
PyObject *iol_py_strerror(PyObject *self, PyObject *arg);
PyObject *iol_py_module_id(PyObject *self, PyObject *arg);

/* ---- darshan-parser's derived figures (core_metrics.c) */
PyObject *iol_py_derive(PyObject *self, PyObject *args);       /* derive(path, module) */
PyObject *iol_py_log_derive(IolLogObject *self, PyObject *arg); /* Log.derive(module) */

/* ---- writing (core_write.c) */
extern PyTypeObject IolWriter_Type;
PyObject *iol_py_write_copy(PyObject *self, PyObject *args, PyObject *kwds);

/* d[key] = v, stealing the reference to v; v == NULL (a failed constructor)
 * is passed through as an error.  Returns 0 or -1 with an exception set. */
static inline int iol_py_set_item(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

/* Resize the malloc'd array *p to n elements of `size` bytes (room for one when n
 * is 0); 0, or -1 with *p unchanged (the column builders grow by doubling). */
static inline int iol_py_grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, (n ? n : 1) * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

#endif
