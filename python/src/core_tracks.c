/* iolens._core.TrackPlacer: the track of each traced operation within its lane,
 * for the exports (iolens/export/placement.py says why and in what order).
 *
 * Contracts:
 * - place(lane, start, end, mod, out) takes equal-length buffers (int32 lane
 *   codes in [0, nlanes), int64 start and end ns, int8 module: 1 = MPI-IO) in
 *   processing order (start, longer first, MPI-IO first at a tie) and writes each
 *   operation's track into `out` (int32).  Tracks are numbered across all lanes
 *   in the order they are first used (0, 1, 2, ...), so a caller finds the new
 *   ones by their numbers; within a lane, tracks are made in order (the k-th
 *   track of a lane is its "overlap k").  Calls continue one another: the open
 *   operations of every lane are kept between calls.
 * - Within a lane: a POSIX operation that lies inside the open MPI-IO operation
 *   on top of a track goes on that track (its child); any other operation goes to
 *   the first track with nothing open at its start, else to a new track.
 * - Memory follows the operations open at once in a lane, never the trace.
 *
 * processing_order(start, end, mod, order) -> bool: for rows sorted by start
 * (int64 start and end ns, int8 mod), writes into `order` (int64) the rows in
 * processing order: within each run of equal starts, longer first, then MPI-IO
 * first, then as they came (so a parent comes before the operations it
 * contains).  Returns False, leaving `order` unwritten, when no two rows share a
 * start (then the order is the rows' own). */
#include "core.h"
#include <string.h>

typedef struct open_op {
    int64_t end;
    int8_t mod;
} open_op;

typedef struct stack {               /* one track: its open operations, nested */
    open_op *ops;
    int32_t n, cap;
    int32_t id;                      /* the track's number across lanes */
} stack;

typedef struct lane {
    stack *tracks;
    int32_t n, cap;
    int32_t mpiio;                   /* MPI-IO operations pushed and not yet popped */
} lane;

typedef struct {
    PyObject_HEAD
    lane *lanes;
    Py_ssize_t nlanes;
    int32_t ntracks;                 /* tracks made so far, in all lanes */
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

/* Pop the operations of a track that ended by s. */
static void close_ended(lane *ln, stack *st, int64_t s)
{
    while (st->n && st->ops[st->n - 1].end <= s)
        ln->mpiio -= st->ops[--st->n].mod == MPIIO;
}

/* The track of one operation (its id), pushed on it; -1 when out of memory.  Only a
 * POSIX operation in a lane with MPI-IO operations open can nest, so every other
 * operation takes the first free track without looking at the rest. */
static int32_t place_one(TrackPlacer *self, lane *ln, int64_t s, int64_t e, int8_t m)
{
    int32_t nest = -1, free_track = -1;
    int may_nest = m != MPIIO && ln->mpiio > 0;
    for (int32_t k = 0; k < ln->n; k++) {
        stack *st = &ln->tracks[k];
        close_ended(ln, st, s);
        if (st->n && nest < 0 && e <= st->ops[st->n - 1].end
            && st->ops[st->n - 1].mod == MPIIO && m != MPIIO)
            nest = k;
        else if (!st->n && free_track < 0) {
            free_track = k;
            if (!may_nest)
                break;
        }
    }
    int32_t k = nest >= 0 ? nest : free_track;
    if (k < 0) {
        if (self->ntracks == INT32_MAX
            || (ln->n == ln->cap && grow((void **)&ln->tracks, &ln->cap, sizeof(stack)) < 0))
            return -1;
        k = ln->n++;
        ln->tracks[k].id = self->ntracks++;
    }
    stack *st = &ln->tracks[k];
    if (st->n == st->cap && grow((void **)&st->ops, &st->cap, sizeof(open_op)) < 0)
        return -1;
    st->ops[st->n].end = e;
    st->ops[st->n].mod = m;
    st->n++;
    ln->mpiio += m == MPIIO;
    return st->id;
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
        out[i] = place_one(self, &self->lanes[ln[i]], s[i], e[i], m[i]);
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

typedef struct tied {
    int64_t end, row;
    int8_t mod;
} tied;

/* Processing order within a run of equal starts: longer, then MPI-IO, first;
 * then the rows' own order (so that any sort of it is stable). */
static int tied_cmp(const void *pa, const void *pb)
{
    const tied *a = pa, *b = pb;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    if (a->mod != b->mod)
        return a->mod > b->mod ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* Runs of tied starts are short in practice (a few dozen ranks at one clock
 * tick): insertion sort there, qsort beyond. */
static void sort_tied(tied *g, Py_ssize_t n)
{
    if (n > 32) {
        qsort(g, (size_t)n, sizeof(tied), tied_cmp);
        return;
    }
    for (Py_ssize_t k = 1; k < n; k++) {
        tied t = g[k];
        Py_ssize_t m = k;
        for (; m > 0 && tied_cmp(&g[m - 1], &t) > 0; m--)
            g[m] = g[m - 1];
        g[m] = t;
    }
}

PyObject *iol_py_processing_order(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[4];
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    Py_buffer b[4];
    static const Py_ssize_t size[4] = { 8, 8, 1, 8 };
    static const int writable[4] = { 0, 0, 0, 1 };
    Py_ssize_t n;
    if (iol_py_columns(o, 4, size, writable, b, &n, "processing_order") < 0)
        return NULL;
    const int64_t *start = b[0].buf, *end = b[1].buf;
    const int8_t *mod = b[2].buf;
    int64_t *order = b[3].buf;
    tied *group = NULL;
    Py_ssize_t cap = 0, first_tie = 1;
    while (first_tie < n && start[first_tie] != start[first_tie - 1])
        first_tie++;
    PyObject *ret = Py_NewRef(first_tie < n ? Py_True : Py_False);
    for (Py_ssize_t i = 0; first_tie < n && i < n;) {
        Py_ssize_t j = i + 1;
        while (j < n && start[j] == start[i])
            j++;
        if (j - i == 1) {
            order[i] = i;
            i = j;
            continue;
        }
        if (j - i > cap) {
            cap = j - i > 2 * cap ? j - i : 2 * cap;
            tied *g = realloc(group, (size_t)cap * sizeof(tied));
            if (!g) {
                Py_SETREF(ret, PyErr_NoMemory());
                break;
            }
            group = g;
        }
        for (Py_ssize_t k = i; k < j; k++)
            group[k - i] = (tied){ end[k], k, mod[k] };
        sort_tied(group, j - i);
        for (Py_ssize_t k = i; k < j; k++)
            order[k] = group[k - i].row;
        i = j;
    }
    free(group);
    iol_py_release_columns(b, 4);
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
     "place(lane, start_ns, end_ns, mod, out): track of each operation into out (numbered "
     "across lanes in order of first use)."},
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
