/* iolens_status -> Python exception classes: the one table.
 *
 * Every class derives from iolens.LogError (attributes: status, detail).  A few
 * also derive from the matching builtin (OSError, MemoryError, ValueError,
 * LookupError) so that generic handlers keep working. */
#include "core.h"

typedef struct err_entry {
    int status;
    const char *name;       /* class name inside iolens._core */
    int parent;             /* index into this table of the iolens parent, -1 = LogError */
    const char *builtin;    /* extra builtin base or NULL */
} err_entry;

/* Order matters: a parent appears before its children. */
static const err_entry err_table[] = {
    {0,                           "CorruptLogError",         -1, NULL},
    {IOLENS_E_IO,                 "LogIOError",              -1, "OSError"},
    {IOLENS_E_NOMEM,              "LogMemoryError",          -1, "MemoryError"},
    {IOLENS_E_TRUNCATED,          "TruncatedLogError",        0, NULL},
    {IOLENS_E_BAD_MAGIC,          "NotALogError",             0, NULL},
    {IOLENS_E_BAD_REGION,         "BadRegionError",           0, NULL},
    {IOLENS_E_DECOMPRESS,         "DecompressError",          0, NULL},
    {IOLENS_E_BAD_JOB,            "BadJobError",              0, NULL},
    {IOLENS_E_BAD_NAMES,          "BadNamesError",            0, NULL},
    {IOLENS_E_BAD_RECORD,         "BadRecordError",           0, NULL},
    {0,                           "UnsupportedError",        -1, NULL},
    {IOLENS_E_BAD_VERSION,        "UnsupportedVersionError", 10, NULL},
    {IOLENS_E_BAD_COMPRESSION,    "UnsupportedCompressionError", 10, NULL},
    {IOLENS_E_BAD_MODULE_VERSION, "UnsupportedModuleVersionError", 10, NULL},
    {IOLENS_E_UNKNOWN_MODULE,     "UnknownModuleError",      10, NULL},
    {IOLENS_E_UNSUPPORTED,        "FeatureNotBuiltError",    10, NULL},
    {IOLENS_E_INVALID_ARG,        "InvalidArgumentError",    -1, "ValueError"},
    {IOLENS_E_NOT_PRESENT,        "ModuleNotPresentError",   -1, "LookupError"},
    {IOLENS_E_NOT_REGULAR,        "NotARegularFileError",     1, NULL},
};
#define N_ERR (sizeof err_table / sizeof err_table[0])

static PyObject *log_error;            /* iolens._core.LogError */
static PyObject *err_class[N_ERR];

static PyObject *builtin_named(const char *name)
{
    PyObject *b = PyEval_GetBuiltins();   /* borrowed */
    return b ? PyDict_GetItemString(b, name) : NULL;
}

static PyObject *make_class(PyObject *module, const char *name, PyObject *bases)
{
    char qual[96];
    snprintf(qual, sizeof qual, "iolens.%s", name);
    PyObject *cls = PyErr_NewException(qual, bases, NULL);
    if (cls && PyModule_AddObjectRef(module, name, cls) < 0)
        Py_CLEAR(cls);
    return cls;
}

int iol_py_errors_init(PyObject *module)
{
    log_error = make_class(module, "LogError", NULL);
    if (!log_error)
        return -1;
    for (size_t i = 0; i < N_ERR; i++) {
        const err_entry *e = &err_table[i];
        PyObject *parent = e->parent < 0 ? log_error : err_class[e->parent];
        PyObject *bases = e->builtin
            ? PyTuple_Pack(2, parent, builtin_named(e->builtin))
            : PyTuple_Pack(1, parent);
        if (!bases)
            return -1;
        err_class[i] = make_class(module, e->name, bases);
        Py_DECREF(bases);
        if (!err_class[i])
            return -1;
    }
    return 0;
}

static PyObject *class_for(int status)
{
    for (size_t i = 0; i < N_ERR; i++)
        if (err_table[i].status == status && status != 0)
            return err_class[i];
    return log_error;
}

PyObject *iol_py_raise(int status, const char *detail)
{
    if (status == IOLENS_E_NOMEM && (!detail || !*detail))
        return PyErr_NoMemory();
    const char *text = (detail && *detail) ? detail : iolens_strerror(status);
    PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    if (!msg)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(class_for(status), msg);
    if (exc) {
        PyObject *code = PyLong_FromLong(status);
        if (code) {
            PyObject_SetAttrString(exc, "status", code);
            PyObject_SetAttrString(exc, "detail", msg);
            Py_DECREF(code);
        }
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    Py_DECREF(msg);
    return NULL;
}
