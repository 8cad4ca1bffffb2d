/* iolens._core.encode_json_slices: the export's Chrome trace-event "X" events,
 * many at once (iolens/export/chrome_json.py writes everything else).
 *
 * encode_json_slices(pid, tid, name, start, end, file, offset, size, names, files)
 * takes equal-length buffers (int64 pid, tid, start and end ns, offset, size;
 * int8 name index; int32 file code) and two lists of bytes: the slice names and
 * the file names, each already a JSON string with its quotes.  Returns bytes:
 * the events separated by ",\n", e.g.
 *   {"ph":"X","pid":1,"tid":1000,"name":"POSIX read","ts":1.5,"dur":0.25,
 *    "args":{"file":"/a","offset":0,"size":4096}}
 * Times are microseconds with the fewest digits that keep every nanosecond
 * (1500 ns -> 1.5, 240000 ns -> 240, 1 ns -> 0.001): exact, and as short as the
 * times allow (the output is most of an export's cost: it is written to disk).
 * No "cat": the category is optional in the format and ours had one value. */
#include "core.h"
#include <string.h>

/* Decimal digits of v, two at a time (sprintf is several times slower, and this
 * runs for five numbers of every event). */
static char *put_int(char *p, int64_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char digits[24], *d = digits + sizeof digits;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    while (u >= 100) {
        d -= 2;
        memcpy(d, pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        d -= 2;
        memcpy(d, pairs + 2 * u, 2);
    } else
        *--d = (char)('0' + u);
    size_t n = (size_t)(digits + sizeof digits - d);
    memcpy(p, d, n);
    return p + n;
}

static char *put_us(char *p, int64_t ns)
{
    if (ns < 0) {                      /* never for exported times; kept exact anyway */
        *p++ = '-';
        ns = -ns;
    }
    p = put_int(p, ns / 1000);
    int frac = (int)(ns % 1000);
    if (frac) {
        *p++ = '.';
        *p++ = (char)('0' + frac / 100);
        if (frac % 100) {
            *p++ = (char)('0' + frac / 10 % 10);
            if (frac % 10)
                *p++ = (char)('0' + frac % 10);
        }
    }
    return p;
}

static char *put_text(char *p, const char *text)
{
    size_t n = strlen(text);
    memcpy(p, text, n);
    return p + n;
}

static int table(PyObject *list, Py_ssize_t *n, PyObject ***items)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "encode_json_slices: names and files are lists");
        return -1;
    }
    *n = PyList_GET_SIZE(list);
    *items = ((PyListObject *)list)->ob_item;
    for (Py_ssize_t i = 0; i < *n; i++)
        if (!PyBytes_Check((*items)[i])) {
            PyErr_SetString(PyExc_TypeError, "encode_json_slices: tables hold bytes");
            return -1;
        }
    return 0;
}

PyObject *iol_py_encode_json_slices(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[8], *names, *files;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &names, &files))
        return NULL;
    static const Py_ssize_t item[8] = { 8, 8, 1, 8, 8, 4, 8, 8 };
    Py_buffer b[8];
    PyObject *ret = NULL;
    Py_ssize_t n, nnames, nfiles;
    PyObject **name_tab, **file_tab;
    if (table(names, &nnames, &name_tab) < 0 || table(files, &nfiles, &file_tab) < 0
        || iol_py_columns(o, 8, item, NULL, b, &n, "encode_json_slices") < 0)
        return NULL;
    const int64_t *pid = b[0].buf, *tid = b[1].buf, *start = b[3].buf, *end = b[4].buf,
                  *offset = b[6].buf, *size = b[7].buf;
    const int8_t *name = b[2].buf;
    const int32_t *file = b[5].buf;
    size_t need = 0;                   /* bound: fixed text, 6 numbers, the two strings */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (name[i] < 0 || name[i] >= nnames || file[i] < 0 || file[i] >= nfiles) {
            PyErr_SetString(PyExc_ValueError, "encode_json_slices: name or file out of range");
            goto done;
        }
        need += 96 + 6 * 22 + (size_t)PyBytes_GET_SIZE(name_tab[name[i]])
            + (size_t)PyBytes_GET_SIZE(file_tab[file[i]]);
    }
    ret = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)need);
    if (!ret)
        goto done;
    char *out = PyBytes_AS_STRING(ret), *p = out;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i) {
            *p++ = ',';
            *p++ = '\n';
        }
        p = put_int(put_text(p, "{\"ph\":\"X\",\"pid\":"), pid[i]);
        p = put_int(put_text(p, ",\"tid\":"), tid[i]);
        p = put_text(p, ",\"name\":");
        PyObject *s = name_tab[name[i]], *f = file_tab[file[i]];
        memcpy(p, PyBytes_AS_STRING(s), (size_t)PyBytes_GET_SIZE(s));
        p += PyBytes_GET_SIZE(s);
        p = put_us(put_text(p, ",\"ts\":"), start[i]);
        p = put_us(put_text(p, ",\"dur\":"), end[i] - start[i]);
        p = put_text(p, ",\"args\":{\"file\":");
        memcpy(p, PyBytes_AS_STRING(f), (size_t)PyBytes_GET_SIZE(f));
        p += PyBytes_GET_SIZE(f);
        p = put_int(put_text(p, ",\"offset\":"), offset[i]);
        p = put_text(put_int(put_text(p, ",\"size\":"), size[i]), "}}");
    }
    if (_PyBytes_Resize(&ret, p - out) < 0)
        ret = NULL;
done:
    iol_py_release_columns(b, 8);
    return ret;
}
