/* Zero-copy byte buffers over memory allocated by libiolens-log.
 *
 * An Owner (a capsule) frees one library allocation when its last Array is
 * gone; every Array exposes a slice of it through the buffer protocol so that
 * numpy.frombuffer can view it without copying. */
#include "core.h"
#include <stdlib.h>

typedef struct owned_mem {
    void *ptr;
    void (*free_fn)(void *);
} owned_mem;

static void owner_destroy(PyObject *cap)
{
    owned_mem *m = PyCapsule_GetPointer(cap, "iolens.owner");
    if (m) {
        if (m->ptr)
            m->free_fn(m->ptr);
        free(m);
    }
}

PyObject *iol_py_owner(void *ptr, void (*free_fn)(void *))
{
    owned_mem *m = malloc(sizeof *m);
    if (!m) {
        free_fn(ptr);
        return PyErr_NoMemory();
    }
    m->ptr = ptr;
    m->free_fn = free_fn;
    PyObject *cap = PyCapsule_New(m, "iolens.owner", owner_destroy);
    if (!cap) {
        free_fn(ptr);
        free(m);
    }
    return cap;
}

typedef struct IolArray {
    PyObject_HEAD
    PyObject *owner;
    char *ptr;
    Py_ssize_t nbytes;
} IolArray;

/* Stands in for a NULL pointer of an empty array (buffers must not be NULL). */
static char empty_storage[8];

PyObject *iol_py_array(PyObject *owner, const void *ptr, size_t nbytes)
{
    IolArray *a = PyObject_New(IolArray, &IolArray_Type);
    if (!a)
        return NULL;
    Py_XINCREF(owner);
    a->owner = owner;
    a->ptr = (ptr && nbytes) ? (char *)ptr : empty_storage;
    a->nbytes = ptr ? (Py_ssize_t)nbytes : 0;
    return (PyObject *)a;
}

PyObject *iol_py_new_array(size_t nbytes, void **data)
{
    void *p = calloc(nbytes ? nbytes : 1, 1);
    if (!p)
        return PyErr_NoMemory();
    PyObject *owner = iol_py_owner(p, free);
    if (!owner)
        return NULL;
    PyObject *a = iol_py_array(owner, p, nbytes);
    Py_DECREF(owner);
    if (a && data)
        *data = p;
    return a;
}

static void array_dealloc(IolArray *a)
{
    Py_XDECREF(a->owner);
    PyObject_Free(a);
}

static int array_getbuffer(IolArray *a, Py_buffer *view, int flags)
{
    return PyBuffer_FillInfo(view, (PyObject *)a, a->ptr, a->nbytes, 0, flags);
}

static Py_ssize_t array_len(IolArray *a) { return a->nbytes; }

static PyBufferProcs array_as_buffer = {
    .bf_getbuffer = (getbufferproc)array_getbuffer,
};
static PySequenceMethods array_as_sequence = {
    .sq_length = (lenfunc)array_len,
};

PyTypeObject IolArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iolens._core.Array",
    .tp_doc = "Bytes of one decoded column, owned by the C library (view with numpy.frombuffer).",
    .tp_basicsize = sizeof(IolArray),
    .tp_dealloc = (destructor)array_dealloc,
    .tp_as_buffer = &array_as_buffer,
    .tp_as_sequence = &array_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};
