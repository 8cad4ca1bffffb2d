/* iolens._core.TrackPlacer: the track of each traced operation within its lane,
 * for the exports (iolens/export/placement.py says why and in what order).
 *
 * Contracts:
 * - place(lane, start, end, mod, out) takes equal-length buffers (int32 lane
 *   codes in [0, nlanes), int64 start and end ns, int8 module: 1 = MPI-IO) in
 *   processing order (start, longer first, MPI-IO first at a tie) and writes each
 *   operation's track number within its lane into `out` (int32).  Calls continue
 *   one another: the open operations of every lane are kept between calls.
 * - Within a lane: a POSIX operation that lies inside the open MPI-IO operation
 *   on top of a track goes on that track (its child); any other operation goes to
 *   the first track with nothing open at its start, else to a new track.
 * - Memory follows the operations open at once in a lane, never the trace. */
#include "core.h"
#include <string.h>

typedef struct open_op {
    int64_t end;
    int8_t mod;
} open_op;

typedef struct stack {               /* one track: its open operations, nested */
    open_op *ops;
    int32_t n, cap;
} stack;

typedef struct lane {
    stack *tracks;
    int32_t n, cap;
} lane;

typedef struct {
    PyObject_HEAD
    lane *lanes;
    Py_ssize_t nlanes;
} TrackPlacer;

enum { MPIIO = 1 };

static int grow(void **p, int32_t *cap, size_t size)
{
    int32_t want = *cap ? *cap * 2 : 4;
    void *q = realloc(*p, (size_t)want * size);
    if (!q)
        return -1;
    memset((char *)q + (size_t)*cap * size, 0, (size_t)(want - *cap) * size);
    *p = q;
    *cap = want;
    return 0;
}

/* The track of one operation, pushed on it; -1 when out of memory. */
static int32_t place_one(lane *ln, int64_t s, int64_t e, int8_t m)
{
    int32_t nest = -1, free_track = -1;
    for (int32_t k = 0; k < ln->n; k++) {
        stack *st = &ln->tracks[k];
        while (st->n && st->ops[st->n - 1].end <= s)
            st->n--;
        if (st->n && nest < 0 && e <= st->ops[st->n - 1].end
            && st->ops[st->n - 1].mod == MPIIO && m != MPIIO)
            nest = k;
        else if (!st->n && free_track < 0)
            free_track = k;
    }
    int32_t k = nest >= 0 ? nest : free_track;
    if (k < 0) {
        if (ln->n == ln->cap && grow((void **)&ln->tracks, &ln->cap, sizeof(stack)) < 0)
            return -1;
        k = ln->n++;
    }
    stack *st = &ln->tracks[k];
    if (st->n == st->cap && grow((void **)&st->ops, &st->cap, sizeof(open_op)) < 0)
        return -1;
    st->ops[st->n].end = e;
    st->ops[st->n].mod = m;
    st->n++;
    return k;
}

static PyObject *placer_place(TrackPlacer *self, PyObject *args)
{
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    Py_buffer b[5];
    static const Py_ssize_t size[5] = { 4, 8, 8, 1, 4 };
    static const int writable[5] = { 0, 0, 0, 0, 1 };
    Py_ssize_t n;
    if (iol_py_columns(o, 5, size, writable, b, &n, "TrackPlacer.place") < 0)
        return NULL;
    PyObject *ret = NULL;
    const int32_t *ln = b[0].buf;
    const int64_t *s = b[1].buf, *e = b[2].buf;
    const int8_t *m = b[3].buf;
    int32_t *out = b[4].buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ln[i] < 0 || ln[i] >= self->nlanes) {
            PyErr_SetString(PyExc_ValueError, "TrackPlacer.place: lane code out of range");
            goto done;
        }
        out[i] = place_one(&self->lanes[ln[i]], s[i], e[i], m[i]);
        if (out[i] < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    ret = Py_NewRef(Py_None);
done:
    iol_py_release_columns(b, 5);
    return ret;
}

static PyObject *placer_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    Py_ssize_t nlanes;
    static char *names[] = { "nlanes", NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n", names, &nlanes))
        return NULL;
    if (nlanes < 0) {
        PyErr_SetString(PyExc_ValueError, "TrackPlacer: nlanes < 0");
        return NULL;
    }
    TrackPlacer *self = (TrackPlacer *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->lanes = calloc((size_t)(nlanes ? nlanes : 1), sizeof(lane));
    if (!self->lanes) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->nlanes = nlanes;
    return (PyObject *)self;
}

static void placer_dealloc(TrackPlacer *self)
{
    for (Py_ssize_t i = 0; self->lanes && i < self->nlanes; i++) {
        for (int32_t k = 0; k < self->lanes[i].n; k++)
            free(self->lanes[i].tracks[k].ops);
        free(self->lanes[i].tracks);
    }
    free(self->lanes);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef placer_methods[] = {
    {"place", (PyCFunction)placer_place, METH_VARARGS,
     "place(lane, start_ns, end_ns, mod, out): track number of each operation into out."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject IolTrackPlacer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iolens._core.TrackPlacer",
    .tp_basicsize = sizeof(TrackPlacer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "TrackPlacer(nlanes): tracks of traced operations within their lanes.",
    .tp_new = placer_new,
    .tp_dealloc = (destructor)placer_dealloc,
    .tp_methods = placer_methods,
};
