"""Module and counter metadata, read from the C core at import time.

Nothing here is a hand-written list: names, descriptions, versions and combine
rules all come from the counter tables compiled into the library
(``src/format/counters/*.def``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple, Union

from . import _core
from .errors import UnknownModuleError


# What ModuleInfo.operation_counters takes for a call count (a naming rule on
# the counter tables, like the C library's units).
_OP_WORDS = ("READS", "WRITES", "OPENS", "SEEKS", "STATS", "FSYNCS", "FLUSHES")
_NOT_OPS = ("SEQ_", "CONSEC_", "RW_", "FILE_")


@dataclass(frozen=True)
class ModuleInfo:
    """Static description of one Darshan module.

    ``counters``/``fcounters`` are the integer and floating-point counter names in
    record order (for LUSTRE: the per-component counters); ``descriptions`` and
    ``combine`` map each counter name to its description and to the rule that
    combines two processes' values ("sum", "max", "min_nonzero", "first", ...).
    ``kind`` is the record layout: "counters", "lustre", "dxt", "heatmap", "mdhim",
    "opaque".  ``role`` is what the module tells about a job: "io" (an I/O
    interface), "trace", "heatmap", "layout", "platform", "phase" (REGION:
    program phases, docs/regions.md) or "none" (NULL);
    ``symbol`` is its name in C identifiers ("MPIIO" for "MPI-IO");
    ``has_file_rec_id`` says whether its records carry the id of their file's
    record (H5D, PNETCDF_VAR), from the decoder's layout table; ``summaries``
    says whether darshan-parser derives --total/--file/--perf figures for it
    (modules.def `summary` column; iolens.derived.parser_figures);
    ``units`` maps each counter to what it measures ("count", "bytes", "offset",
    "seconds", "timestamp", "rank", "id", "variance", "other": the C library's
    naming rule, src/format/counter_units.c); ``record_size`` is the bytes of one
    record of a fixed-size layout (0 for the others).  ``layer`` is where an I/O
    module sits in the I/O stack ("high-level", "middleware", "file-system" or
    "none"), ``depth`` its place in the stack (1 = what the application calls,
    0 = not in the stack) and ``runtime`` which runtimes write it ("lib": every
    runtime, "mpi": the MPI runtimes only, "none"): modules.def's `layer`,
    `depth` and `runtime` columns.
    """

    id: int
    name: str
    version: int
    kind: str
    role: str
    symbol: str
    has_file_rec_id: bool
    summaries: bool
    record_size: int
    layer: str
    depth: int
    runtime: str
    counters: Tuple[str, ...]
    fcounters: Tuple[str, ...]
    descriptions: Dict[str, str]
    combine: Dict[str, str]
    units: Dict[str, str]

    @property
    def prefix(self) -> str:
        """What every counter name of the module starts with: "MPIIO_"."""
        return self.symbol + "_"

    def has_counter(self, suffix: str) -> bool:
        """Whether the table has the counter prefix + suffix ("F_READ_TIME")."""
        return self.prefix + suffix in self.descriptions

    def counters_in(self, *units: str) -> Tuple[str, ...]:
        """Counter names, in record order, that measure one of `units` ("seconds", ...)."""
        return tuple(c for c, u in self.units.items() if u in units)

    def operation_counters(self) -> Tuple[str, ...]:
        """Counter names, in record order, that count calls of one kind: a count
        whose name after the prefix ends with an operation word (READS, OPENS, ...)
        and is not a pattern count (SEQ_, CONSEC_, RW_ switches, FILE_ kinds)."""
        return tuple(c for c in self.counters_in("count")
                     if c[len(self.prefix):].endswith(_OP_WORDS)
                     and not c[len(self.prefix):].startswith(_NOT_OPS))


def _load() -> Dict[int, ModuleInfo]:
    table = {}
    for m in _core.module_table():
        names = tuple(m["int_names"]) + tuple(m["flt_names"])
        table[m["id"]] = ModuleInfo(
            id=m["id"], name=m["name"], version=m["version"], kind=m["kind"],
            role=m["role"], symbol=m["symbol"], has_file_rec_id=m["file_rec_id"],
            summaries=m["summaries"], record_size=m["record_size"],
            layer=m["layer"], depth=m["depth"], runtime=m["runtime"],
            counters=tuple(m["int_names"]), fcounters=tuple(m["flt_names"]),
            descriptions=dict(zip(names, m["int_desc"] + m["flt_desc"])),
            combine=dict(zip(names, m["int_combine"] + m["flt_combine"])),
            units=dict(zip(names, m["int_units"] + m["flt_units"])))
    return table


_BY_ID = _load()
_BY_NAME = {m.name: m for m in _BY_ID.values()}


def modules() -> Dict[str, ModuleInfo]:
    """All modules known to the C core, by printed name ("POSIX", "MPI-IO", ...), in id order."""
    return dict(_BY_NAME)


def modules_with(role: str, *counters: str) -> Tuple[str, ...]:
    """Printed names, in id order, of the modules of a role ("io", "trace", ...)
    whose counter tables have every one of `counters` (suffixes after the prefix).
    The report derives its module lists from this, so a new module joins them
    through its modules.def line and counter table alone."""
    return tuple(m.name for m in _BY_ID.values()
                 if m.role == role and all(m.has_counter(c) for c in counters))


def summary_modules() -> Tuple[str, ...]:
    """Printed names, in id order, of the modules darshan-parser gives --total,
    --file and --perf figures (modules.def `summary` column)."""
    return tuple(m.name for m in _BY_ID.values() if m.summaries)


def stack_order() -> Tuple[str, ...]:
    """The I/O stack, top (what the application calls: H5D) to bottom (DAOS):
    the modules with a `depth`, by depth then id (modules.def `depth` column)."""
    stacked = [m for m in _BY_ID.values() if m.depth > 0]
    return tuple(m.name for m in sorted(stacked, key=lambda m: (m.depth, m.id)))


def layer_modules(layer: str) -> Tuple[str, ...]:
    """Printed names, in id order, of the modules of one layer of the I/O stack:
    "high-level" (H5D, PNETCDF_VAR, ...), "middleware" (MPI-IO) or "file-system"."""
    return tuple(m.name for m in _BY_ID.values() if m.layer == layer)


def file_system_layers() -> Tuple[str, ...]:
    """The bottom of the I/O stack, in id order: the modules whose calls reach
    storage (POSIX, STDIO, DFS, DAOS).  Bytes of the layers above them are the
    same data again."""
    return layer_modules("file-system")


def layered_seconds(by_module: Dict[str, float]) -> float:
    """One process's I/O time from its seconds per I/O module: the file-system
    layers add up (each is its own path to storage: fread/fwrite's own system
    calls are not intercepted, DFS/DAOS calls never reach the kernel), and a layer
    above them (MPI-IO, HDF5, PnetCDF) contains their time, so the larger of the
    two counts.  Never the sum of all layers, which counts the same time twice.
    Modules outside the stack (depth 0) are left out."""
    base = 0.0
    above = [0.0]
    for name, seconds in by_module.items():
        info = module_info(name)
        if info.layer == "file-system":
            base += seconds
        elif info.depth > 0:
            above.append(seconds)
    return max([base] + above)


def data_modules() -> Tuple[str, ...]:
    """I/O modules, in id order, whose records move data: they have bytes and the
    fastest/slowest-rank counters of shared files (not H5F or PNETCDF_FILE)."""
    return modules_with("io", "BYTES_READ", "FASTEST_RANK")


def trace_modules() -> Tuple[str, ...]:
    """The per-operation trace modules (DXT_POSIX, DXT_MPIIO), in id order: those
    of role trace with DXT records (DXT_REGION, beside them, has none)."""
    return tuple(m for m in modules_with("trace") if module_info(m).kind == "dxt")


def traced_module(trace: str) -> str:
    """The module a trace module traces: "DXT_MPIIO" -> "MPI-IO" (its name is
    "DXT_" + that module's symbol)."""
    return module_info(module_info(trace).name[len("DXT_"):]).name


def trace_of(module: str):
    """The trace module of a module ("MPI-IO" -> "DXT_MPIIO"), or None."""
    want = "DXT_" + module_info(module).symbol
    return next((t for t in trace_modules() if t == want), None)


def module_info(module: Union[str, int]) -> ModuleInfo:
    """ModuleInfo by id, printed name ("MPI-IO"), symbol ("MPIIO") or any letter case.

    Raises UnknownModuleError for anything else.
    """
    if isinstance(module, int):
        if module in _BY_ID:
            return _BY_ID[module]
    elif isinstance(module, str):
        for cand in (module, module.upper()):
            mid = _core.module_id(cand)
            if mid >= 0 and mid in _BY_ID:
                return _BY_ID[mid]
    raise UnknownModuleError(f"unknown module {module!r}")


def counter_names(module: Union[str, int]) -> Tuple[str, ...]:
    """Integer then floating-point counter names of a module, in record order."""
    m = module_info(module)
    return m.counters + m.fcounters


def record_id(name: Union[str, bytes]) -> int:
    """The Darshan record id (64-bit Jenkins hash) of a record name."""
    return _core.record_id(name)
