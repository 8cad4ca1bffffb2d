"""Table functions: each takes the ReportData and returns a Table, or None
when the log has no data for it."""
from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from . import activity, files, stats
from .interfaces import DATA_MODULES, PARSER_PERF_MODULES, PREFIX
from .perf import file_categories, per_file
from .source import _info
from .units import human_bytes, human_seconds


@dataclass
class Cell:
    text: str
    key: str | None = None     # stable name, for tests and scripts
    value: str | None = None   # the raw number as `iolens parse` prints it


@dataclass
class Table:
    columns: list
    rows: list = field(default_factory=list)


def seconds(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f} s"


def _when(sec, nsec=0) -> str:
    try:
        stamp = dt.datetime.fromtimestamp(int(sec), dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(sec)
    return stamp.strftime("%Y-%m-%d %H:%M:%S UTC") + (f" (+{int(nsec)} ns)" if nsec else "")


def job(data):
    j = data.job
    rows = [("executable and arguments", data.exe or "(not recorded)"),
            ("user id", str(j.get("uid", ""))), ("job id", str(j.get("jobid", ""))),
            ("processes", str(j.get("nprocs", ""))),
            ("start time", _when(j.get("start_time_sec", 0), j.get("start_time_nsec", 0))),
            ("end time", _when(j.get("end_time_sec", 0), j.get("end_time_nsec", 0))),
            ("run time", seconds(data.run_time)), ("log format version", str(data.version))]
    if data.file is not None:
        rows.append(("report restricted to file", data.file))
    for key, value in (j.get("metadata") or {}).items():
        rows.append((f"metadata: {key}", str(value)))
    return Table(["field", "value"], [[Cell(a, key=f"job.{a}"), b] for a, b in rows])


def modules(data):
    partial = set(data.partial_modules())
    if not data.modules and not partial:
        return ("No module recorded anything: the program did no I/O that the runtime "
                "instruments, or the runtime was disabled.")
    rows = []
    for name, info in data.modules.items():
        frame = data.frame(name) if name in PREFIX else None
        count = "" if frame is None else f"{len(frame):,}"
        rows.append([name, str(_info(info, "version", "")), count,
                     Cell("PARTIAL" if name in partial else "complete", key=f"partial.{name}")])
    # A module can be flagged partial without having written any data region.
    for name in sorted(partial - set(data.modules)):
        rows.append([name, "", "0", Cell("PARTIAL (no data region)", key=f"partial.{name}")])
    return Table(["module", "record version", "records", "data"], rows)


def overview(data):
    rows = []
    for name, module, p, frac in stats.overview(data):
        exact = module in PARSER_PERF_MODULES
        rows.append([
            Cell(f"{name}" + ("" if module == name else f" ({module})"), key=f"iface.{name}"),
            Cell(human_bytes(p.bytes_read), f"{module}.bytes_read", str(p.bytes_read)),
            Cell(human_bytes(p.bytes_written), f"{module}.bytes_written", str(p.bytes_written)),
            Cell(f"{p.agg_time_by_slowest:.6f} s", f"{module}.agg_time_by_slowest",
                 "%f" % p.agg_time_by_slowest),
            Cell(f"{p.agg_perf_by_slowest:.2f}" + ("" if exact else " *"),
                 f"{module}.agg_perf_by_slowest", "%f" % p.agg_perf_by_slowest),
            Cell("n/a" if math.isnan(frac) else f"{100 * frac:.1f} %", f"{module}.io_fraction")])
    if not rows:
        return None
    return Table(["interface", "bytes read", "bytes written", "I/O time (slowest rank + shared)",
                  "estimated MiB/s", "share of run time in I/O"], rows)


def cost(data):
    frame = stats.cost(data)
    if not len(frame):
        return None
    return Table(["interface", "read (s/process)", "write (s/process)", "metadata (s/process)"],
                 [[name] + [f"{v:.6f}" for v in row] for name, row in frame.iterrows()])


def common_accesses(data):
    frame = stats.common_accesses(data)
    if not len(frame):
        return None
    return Table(["module", "access size (bytes)", "count"],
                 [[m, f"{int(s):,}", f"{int(c):,}"] for m, s, c in frame.itertuples(index=False)])


def file_kinds(data):
    rows = []
    # the parser's modules first, then the other data modules (H5D, PNETCDF_VAR)
    others = tuple(m for m in DATA_MODULES if m not in PARSER_PERF_MODULES)
    for module, frame in data.frames(PARSER_PERF_MODULES + others):
        cats = file_categories(per_file(frame, PREFIX[module]))
        for cat, (count, nbytes, offset) in cats.iterrows():
            rows.append([module, cat, Cell(str(count), f"{module}.files.{cat}", str(count)),
                         Cell(human_bytes(nbytes), f"{module}.bytes.{cat}", str(nbytes)),
                         human_bytes(offset + 1) if offset > 0 else "n/a"])
    if not rows:
        return None
    return Table(["module", "kind", "files", "data moved", "largest offset reached"], rows)


def by_mount(data):
    frame = files.by_mount(data)
    if not len(frame):
        return None
    return Table(["module", "mount point", "fs type", "files", "read", "written"],
                 [[r.module, r.mount, r.fs, str(r.files), human_bytes(r.read), human_bytes(r.written)]
                  for r in frame.head(3 * files.TOP_N).itertuples(index=False)])


def _top(data, key):
    frame = files.top_files(data, key)
    if not len(frame):
        return None
    return Table(["module", "file", "read", "written", "I/O time (s, all processes)"],
                 [[r.module, r.name, human_bytes(r.read), human_bytes(r.written), f"{r.time:.6f}"]
                  for r in frame.itertuples(index=False)])


def top_by_time(data):
    return _top(data, "time")


def top_by_bytes(data):
    return _top(data, "bytes")


def special_files(data):
    frame = files.special_files(data)
    if not len(frame):
        return "None: every file in this log is the program's own."
    return Table(["kind", "module", "file", "read", "written", "I/O time (s, all processes)"],
                 [[r.kind, r.module, r.name, human_bytes(r.read), human_bytes(r.written),
                   f"{r.time:.6f}"] for r in frame.itertuples(index=False)])


def shared_files(data):
    frame = files.shared_files(data)
    if not len(frame):
        return None
    rows = []
    for r in frame.itertuples(index=False):
        rows.append([r[0], r[1], f"{r[2]} ({r[3]:.6f} s, {human_bytes(r[4])})",
                     f"{r[5]} ({r[6]:.6f} s, {human_bytes(r[7])})",
                     human_seconds(_std_dev(r[8])), human_bytes(_std_dev(r[9]))])
    return Table(["module", "file", "fastest rank (time, bytes)", "slowest rank (time, bytes)",
                  "std. dev. of I/O time", "std. dev. of bytes"], rows)


def _std_dev(variance) -> float:
    # The log stores variances (s², B²); their square roots are in the units users
    # read.  A rounding error can leave a variance a hair below zero.
    return math.nan if math.isnan(variance) else math.sqrt(max(float(variance), 0.0))


def dxt_threads(data):
    frame = activity.dxt_threads(data)
    if frame is None:
        return activity.NO_THREAD_IDS
    if not len(frame):
        return None
    per_rank = frame.groupby(["module", "rank"])["thread"].nunique()
    rows = [[m, str(r), str(t), str(per_rank[(m, r)]), str(o), human_bytes(b), seconds(f),
             seconds(last), seconds(busy)]
            for m, r, t, o, b, f, last, busy in frame.itertuples(index=False)]
    return Table(["interface", "rank", "thread", "threads in rank", "operations", "bytes",
                  "first start", "last end", "busy time"], rows)


def _dims(row, prefix, n):
    """Chunk sizes as the shape is written, slowest dimension first (the counters
    keep D1 = the fastest)."""
    dims = [int(row.get(f"{prefix}{k}", 0)) for k in range(n, 0, -1)]
    dims = [d for d in dims if d]
    return " x ".join(map(str, dims)) if dims else "-"


def datasets(data):
    """HDF5 datasets and PnetCDF variables: shape, element size, chunking, traffic."""
    rows = []
    for module, frame in data.frames(("H5D", "PNETCDF_VAR")):
        p = "H5D_" if module == "H5D" else "PNETCDF_VAR_"
        ndims = "DATASPACE_NDIMS" if module == "H5D" else "NDIMS"
        npoints = "DATASPACE_NPOINTS" if module == "H5D" else "NPOINTS"
        coll = p + ("USE_MPIIO_COLLECTIVE" if module == "H5D" else "COLL_WRITES")
        for r in frame.to_dict("records"):
            name = r["name"] or "(unnamed)"
            chunk = _dims(r, "H5D_CHUNK_SIZE_D", 5) if module == "H5D" else (
                "record variable" if r.get("PNETCDF_VAR_IS_RECORD_VAR") else "-")
            rows.append([
                "HDF5" if module == "H5D" else "PnetCDF", name,
                "shared" if r["rank"] < 0 else str(r["rank"]),
                f"{int(r[p + ndims])}-D, {int(r[p + npoints])} elements",
                f"{int(r[p + 'DATATYPE_SIZE'])} B", chunk,
                human_bytes(r[p + "BYTES_READ"]), human_bytes(r[p + "BYTES_WRITTEN"]),
                "yes" if r.get(coll, 0) > 0 else "no"])
    if not rows:
        return None
    rows.sort(key=lambda row: row[1])
    return Table(["interface", "dataset / variable", "rank", "shape", "element", "chunking",
                  "read", "written", "collective"], rows)
