/* iolens._core: module definition and initialisation. */
#include "core.h"

static PyMethodDef core_functions[] = {
    {"module_table", iol_py_module_table, METH_NOARGS,
     "List of dicts describing every module known to the C core (names, counters, rules)."},
    {"platform_keys", iol_py_platform_keys, METH_NOARGS,
     "The platform keys of the job metadata: [(key, cap, anonymise, description)]."},
    {"module_id", iol_py_module_id, METH_O, "Module id by printed name or symbol; -1 if none."},
    {"record_id", iol_py_record_id, METH_O, "Darshan record id (64-bit Jenkins hash) of a name."},
    {"derive", iol_py_derive, METH_VARARGS,
     "derive(path, module): darshan-parser's --total/--file/--perf figures as a dict."},
    {"strerror", iol_py_strerror, METH_O, "Short text of an iolens_status code."},
    {"write_copy", (PyCFunction)(void (*)(void))iol_py_write_copy, METH_VARARGS | METH_KEYWORDS,
     "write_copy(src, dst, comp_type=0): re-encode a log as a 3.41 log."},
    {"encode_slice_packets", iol_py_encode_slice_packets, METH_VARARGS,
     "encode_slice_packets(delta, begin, track, name_iid, file_iid, offset, size): the "
     "export's Perfetto slice packets (core_protobuf.c)."},
    {"processing_order", iol_py_processing_order, METH_VARARGS,
     "processing_order(start, end, mod, order): the export's order at tied starts "
     "(core_tracks.c)."},
    {"encode_json_slices", iol_py_encode_json_slices, METH_VARARGS,
     "encode_json_slices(pid, tid, name, start, end, file, offset, size, names, files): the "
     "export's Chrome \"X\" events (core_json.c)."},
    {"live_read_copy", iol_py_live_read_copy, METH_VARARGS,
     "live_read_copy(fd, size, layers, seq_off, seq_len, pool_off, shift, retries, head, "
     "out) -> (mask, busy): one round of the live reader over a whole copy (core_live.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "iolens._core",
    .m_doc = "C core of iolens: decodes Darshan logs into column buffers.",
    .m_size = -1,
    .m_methods = core_functions,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0)
        return -1;
    return PyModule_AddObjectRef(m, name, (PyObject *)t);
}

static int add_constants(PyObject *m)
{
    return PyModule_AddIntConstant(m, "COMP_ZLIB", IOLENS_COMP_ZLIB)
        || PyModule_AddIntConstant(m, "COMP_BZIP2", IOLENS_COMP_BZIP2)
        || PyModule_AddIntConstant(m, "COMP_NONE", IOLENS_COMP_NONE)
        || PyModule_AddIntConstant(m, "MAX_MODULES", IOL_MAX_MODULES);
}

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    if (add_type(m, &IolArray_Type, "Array") < 0 || add_type(m, &IolLog_Type, "Log") < 0
        || add_type(m, &IolWriter_Type, "Writer") < 0
        || add_type(m, &IolDxtReader_Type, "DxtReader") < 0
        || add_type(m, &IolTrackPlacer_Type, "TrackPlacer") < 0 || add_constants(m) < 0
        || iol_py_errors_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
