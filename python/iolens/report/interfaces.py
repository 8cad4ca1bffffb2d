"""The I/O interfaces the report compares, as data.

An interface is what users think in (HDF5, PnetCDF); a module is what the log
stores (H5F + H5D, PNETCDF_FILE + PNETCDF_VAR).  `perf_module` is the module
whose records feed the parser-style performance estimate (section 9.7 of the
format spec); `time_modules` contribute read/write/metadata time."""
from __future__ import annotations

from dataclasses import dataclass, field

from .._meta import (data_modules, file_system_layers, modules, modules_with, summary_modules,
                     trace_modules)

# The report's module lists, derived from the module table (the role column of
# modules.def, and which counters each table has), so that a new module joins
# every list that fits it through its modules.def line and counter table alone.

# I/O interfaces with a fixed counter record, and the prefix of their counters.
PREFIX = {m.name: m.prefix for m in modules().values()
          if m.role == "io" and m.kind == "counters"}
IO_MODULES = tuple(PREFIX)
# Interfaces whose records move data: they carry the bytes and the fastest/slowest
# rank counters of shared files (not the file-level H5F / PNETCDF_FILE).
DATA_MODULES = data_modules()
# Those that record their four most common access sizes.
ACCESS_SIZE_MODULES = modules_with("io", "ACCESS1_ACCESS")
# Those with open-to-close timestamps (the access timeline).
TIMELINE_MODULES = modules_with("io", "BYTES_READ", "FASTEST_RANK", "F_OPEN_START_TIMESTAMP",
                                "F_CLOSE_END_TIMESTAMP")
# Those that count sequential and consecutive accesses.
SEQUENTIAL_MODULES = modules_with("io", "SEQ_READS", "CONSEC_READS")
# Those whose records name a dataset or variable inside a file (a file_rec_id).
DATASET_MODULES = tuple(m.name for m in modules().values()
                        if m.role == "io" and m.has_file_rec_id)
TRACE_MODULES = trace_modules()
HEATMAP_MODULES = modules_with("heatmap")
LAYOUT_MODULES = modules_with("layout")
# Program phases (REGION, docs/regions.md).
PHASE_MODULES = modules_with("phase")
# Interfaces at the bottom of the I/O stack (modules.def `layer` FILESYSTEM), whose
# files sit on mount points (per-mount bytes of MPI-IO or HDF5 would count the same
# traffic twice).  DAOS records carry no name (log-format spec 5.3), so they place
# no file on a mount point (report/files.py leaves unnamed modules out).
FILE_SYSTEM_MODULES = file_system_layers()

# The heat map names an API by its module's name without the hyphen ("MPIIO"), as DXT
# module names do ("DXT_MPIIO"); users read the module's own name ("MPI-IO").
_API_NAMES = {m.name.replace("-", ""): m.name for m in modules().values() if m.role == "io"}


def api_name(api: str) -> str:
    """The user-facing name of a heat-map API or DXT module: "MPIIO" and "DXT_MPIIO"
    read "MPI-IO"."""
    bare = api[len("DXT_"):] if api.startswith("DXT_") else api
    return _API_NAMES.get(bare, bare)


# Modules whose per-file metrics and totals `iolens parse` prints (9.5-9.7): the
# modules.def `summary` column.
PARSER_PERF_MODULES = summary_modules()


@dataclass(frozen=True)
class Interface:
    name: str
    perf_modules: tuple      # first one present in the log is used for bytes/perf
    time_modules: tuple      # all present ones add read/write/meta time
    ops: tuple = field(default=())   # (label, (counter, ...)) pairs

    def modules(self) -> tuple:
        return tuple(dict.fromkeys(self.perf_modules + self.time_modules))


def _ops(prefix: str, *pairs):
    return tuple((label, tuple(prefix + c for c in counters))
                 for label, counters in pairs)


# The interfaces as users know them, with the operations their figures show.
# HDF5 and PnetCDF are two modules each (file records and dataset/variable
# records): which two is knowledge of those libraries, kept here with the labels.
_KNOWN = (
    Interface("POSIX", ("POSIX",), ("POSIX",), _ops(
        "POSIX_", ("read", ("READS",)), ("write", ("WRITES",)),
        ("open", ("OPENS",)), ("stat", ("STATS",)), ("seek", ("SEEKS",)),
        ("mmap", ("MMAPS",)), ("fsync", ("FSYNCS", "FDSYNCS")),
        ("rename", ("RENAME_SOURCES",)))),
    Interface("MPI-IO", ("MPI-IO",), ("MPI-IO",), _ops(
        "MPIIO_", ("indep. read", ("INDEP_READS",)),
        ("indep. write", ("INDEP_WRITES",)),
        ("coll. read", ("COLL_READS",)), ("coll. write", ("COLL_WRITES",)),
        ("split read", ("SPLIT_READS",)), ("split write", ("SPLIT_WRITES",)),
        ("nb read", ("NB_READS",)), ("nb write", ("NB_WRITES",)),
        ("open", ("INDEP_OPENS", "COLL_OPENS")), ("sync", ("SYNCS",)),
        ("set view", ("VIEWS",)), ("hints", ("HINTS",)))),
    Interface("STDIO", ("STDIO",), ("STDIO",), _ops(
        "STDIO_", ("read", ("READS",)), ("write", ("WRITES",)),
        ("open", ("OPENS", "FDOPENS")), ("seek", ("SEEKS",)),
        ("flush", ("FLUSHES",)))),
    Interface("HDF5", ("H5D",), ("H5D", "H5F"), _ops(
        "H5D_", ("dataset read", ("READS",)), ("dataset write", ("WRITES",)),
        ("dataset open", ("OPENS",)), ("dataset flush", ("FLUSHES",)))
        + _ops("H5F_", ("file open", ("OPENS",)),
               ("file flush", ("FLUSHES",)))),
    Interface("PnetCDF", ("PNETCDF_VAR", "PNETCDF_FILE"),
              ("PNETCDF_VAR", "PNETCDF_FILE"), _ops(
        "PNETCDF_VAR_", ("indep. read", ("INDEP_READS",)),
        ("indep. write", ("INDEP_WRITES",)), ("coll. read", ("COLL_READS",)),
        ("coll. write", ("COLL_WRITES",)), ("nb read", ("NB_READS",)),
        ("nb write", ("NB_WRITES",)), ("var open", ("OPENS",)))
        + _ops("PNETCDF_FILE_", ("file create", ("CREATES",)),
               ("file open", ("OPENS",)), ("redef", ("REDEFS",)),
               ("wait", ("INDEP_WAITS", "COLL_WAITS")), ("sync", ("SYNCS",)))),
    # DFS and DAOS: every call counter of the module (dfs.def, daos.def) has a bar;
    # nb read/write (DFS) are the share of reads/writes given an event.
    Interface("DFS", ("DFS",), ("DFS",), _ops(
        "DFS_", ("read", ("READS", "READXS")), ("write", ("WRITES", "WRITEXS")),
        ("nb read", ("NB_READS",)), ("nb write", ("NB_WRITES",)),
        ("open", ("OPENS", "GLOBAL_OPENS")), ("dup", ("DUPS",)), ("lookup", ("LOOKUPS",)),
        ("stat", ("STATS",)), ("get size", ("GET_SIZES",)),
        ("punch", ("PUNCHES",)), ("remove", ("REMOVES",)))),
    Interface("DAOS", ("DAOS",), ("DAOS",), _ops(
        "DAOS_", ("obj fetch", ("OBJ_FETCHES",)),
        ("obj update", ("OBJ_UPDATES",)), ("obj open", ("OBJ_OPENS",)),
        ("obj punch", ("OBJ_PUNCHES", "OBJ_DKEY_PUNCHES", "OBJ_AKEY_PUNCHES")),
        ("obj list", ("OBJ_DKEY_LISTS", "OBJ_AKEY_LISTS", "OBJ_RECX_LISTS")),
        ("array read", ("ARRAY_READS",)), ("array write", ("ARRAY_WRITES",)),
        ("array open", ("ARRAY_OPENS",)),
        ("array size", ("ARRAY_GET_SIZES", "ARRAY_SET_SIZES", "ARRAY_STATS")),
        ("array punch", ("ARRAY_PUNCHES",)), ("array destroy", ("ARRAY_DESTROYS",)),
        ("kv get", ("KV_GETS",)), ("kv put", ("KV_PUTS",)), ("kv open", ("KV_OPENS",)),
        ("kv remove", ("KV_REMOVES",)), ("kv list", ("KV_LISTS",)),
        ("kv destroy", ("KV_DESTROYS",)))),
)


def _generated(module: str) -> Interface:
    """An I/O module no known interface covers (a new one): an interface of its
    own, its operation counters labelled by their names; its bytes and
    performance only when its records move data (the parser's counters)."""
    info = modules()[module]
    ops = tuple((c[len(info.prefix):].lower().replace("_", " "), (c,))
                for c in info.operation_counters())
    return Interface(module, (module,) if module in DATA_MODULES else (), (module,), ops)


_COVERED = {m for i in _KNOWN for m in i.modules()}
INTERFACES = _KNOWN + tuple(_generated(m) for m in IO_MODULES if m not in _COVERED)


def present(data) -> list:
    """Interfaces with at least one record in the log (in table order)."""
    return [i for i in INTERFACES if any(data.has(m) for m in i.modules())]


def perf_module(data, iface: Interface):
    return next((m for m in iface.perf_modules if data.has(m)), None)
