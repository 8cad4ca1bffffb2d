/* Equal-length column buffers passed in from numpy, for the export's C helpers
 * (core_tracks.c, core_protobuf.c, core_json.c). */
#include "core.h"

int iol_py_columns(PyObject *const *objs, int n, const Py_ssize_t *itemsize,
                   const int *writable, Py_buffer *bufs, Py_ssize_t *rows, const char *who)
{
    *rows = -1;
    for (int k = 0; k < n; k++) {
        int flags = PyBUF_C_CONTIGUOUS | (writable && writable[k] ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objs[k], &bufs[k], flags) < 0) {
            iol_py_release_columns(bufs, k);
            return -1;
        }
        if (*rows < 0)
            *rows = bufs[k].len / itemsize[k];
        if (bufs[k].len != *rows * itemsize[k]) {
            iol_py_release_columns(bufs, k + 1);
            PyErr_Format(PyExc_ValueError, "%s: columns of unequal length", who);
            return -1;
        }
    }
    if (*rows < 0)
        *rows = 0;
    return 0;
}

void iol_py_release_columns(Py_buffer *bufs, int n)
{
    while (n-- > 0)
        PyBuffer_Release(&bufs[n]);
}
