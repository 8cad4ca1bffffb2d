"""Reading Darshan logs into pandas.

>>> import iolens
>>> with iolens.open("run.darshan") as log:
...     posix = log.records("POSIX")        # one row per record
...     trace = log.dxt("POSIX")            # one row per DXT segment

All decoding happens in C (libiolens-log): values are in host byte order,
already upgraded to the current record layout of each module, with correct
values where upstream readers lose data (see docs/deviations.md).
"""
from __future__ import annotations

import dataclasses
import functools
import os
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _core, _frames, platform as _platform
from ._meta import ModuleInfo, modules, module_info, record_id
from .errors import UnknownModuleError

_COMPRESSION = {_core.COMP_ZLIB: "zlib", _core.COMP_BZIP2: "bzip2", _core.COMP_NONE: "none"}


def parse_metadata(text: str) -> Dict[str, str]:
    """Job metadata "key=value\\n..." as darshan-parser reads it: lines split at the
    first '=', empty lines and lines without '=' ignored, later keys win."""
    out = {}
    for line in text.split("\n"):
        if "=" in line:
            key, value = line.split("=", 1)
            out[key] = value
    return out


class Log:
    """An open Darshan log (any 3.x version).  Use as a context manager or call close().

    Attributes (computed once): version, compression, big_endian, job, exe, mounts,
    modules, partial, partial_flag, names.  Methods: records(), dxt(),
    dxt_records(), heatmap(), lustre(), name().
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = os.fspath(path)
        self._c = _core.Log(self.path)

    # ------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Release the C handle.  Frames already returned stay valid."""
        self._c.close()

    def __enter__(self) -> "Log":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<iolens.Log {self.path!r} version={self.version} modules={list(self.modules)}>"

    # ------------------------------------------------------------ header, job
    @functools.cached_property
    def header(self) -> dict:
        """Raw header fields: version, major, minor, big_endian, comp_type, header_size,
        partial_flag, job_region, names_region and modules [(id, offset, length, version)]."""
        return self._c.header()

    @property
    def version(self) -> str:
        """Log format version string, e.g. "3.41"."""
        return self.header["version"]

    @property
    def compression(self) -> str:
        """"zlib", "bzip2" or "none"."""
        return _COMPRESSION.get(self.header["comp_type"], "unknown")

    @property
    def big_endian(self) -> bool:
        return self.header["big_endian"]

    @functools.cached_property
    def _job(self) -> dict:
        return self._c.job()

    @functools.cached_property
    def job(self) -> dict:
        """uid, start_time_sec, start_time_nsec, end_time_sec, end_time_nsec, nprocs, jobid,
        run_time (as darshan-parser computes it), log_ver and metadata (dict)."""
        j = self._job
        out = {k: j[k] for k in ("uid", "start_time_sec", "start_time_nsec", "end_time_sec",
                                 "end_time_nsec", "nprocs", "jobid", "run_time")}
        out["log_ver"] = self.version
        out["metadata"] = parse_metadata(j["metadata_text"])
        return out

    @property
    def metadata_text(self) -> str:
        """The job metadata exactly as stored."""
        return self._job["metadata_text"]

    @property
    def exe(self) -> str:
        """Command line as upstream reports it (empty when the log has no mount table)."""
        return self._job["exe"]

    @property
    def mounts(self) -> List[Tuple[str, str]]:
        """(mount point, fs type) pairs, longest mount point first (upstream order)."""
        return list(self._job["mounts"])

    @property
    def platform(self) -> Dict[str, str]:
        """The platform facts the runtime recorded (node count, processes per node,
        hosts, CPU, memory, GPUs, network, scheduler, per-mount facts): the
        platform keys of the job metadata, as text (docs/runtime.md); empty for
        logs without them."""
        return _platform.platform(self.job["metadata"])

    @functools.cached_property
    def mount_facts(self) -> pd.DataFrame:
        """One row per mount: mount, fs_type, kind ("node-local", "shared",
        "unknown"), block_size (bytes, NaN when not recorded), source."""
        return _platform.mount_facts(self.mounts, self.platform)

    # ------------------------------------------------------------ modules
    @functools.cached_property
    def modules(self) -> Dict[str, dict]:
        """Modules with a data region: name -> {id, version (as stored), partial, length,
        offset}.  Unknown module ids appear as "MOD<id>"."""
        out = {}
        flag = self.header["partial_flag"]
        for mid, off, length, ver in self.header["modules"]:
            if length == 0:
                continue
            try:
                name = module_info(mid).name
            except UnknownModuleError:
                name = f"MOD{mid}"
            out[name] = {"id": mid, "version": ver, "partial": bool(flag >> mid & 1),
                         "length": length, "offset": off}
        return out

    @property
    def partial_flag(self) -> int:
        """The header's partial flag (bit i = module i incomplete), renumbered to current ids."""
        return self.header["partial_flag"]

    @property
    def partial(self) -> Dict[str, bool]:
        """Modules whose partial bit is set (with or without a data region)."""
        flag = self.partial_flag
        out = {}
        for mid in range(_core.MAX_MODULES):
            if flag >> mid & 1:
                try:
                    out[module_info(mid).name] = True
                except UnknownModuleError:
                    out[f"MOD{mid}"] = True
        return out

    # ------------------------------------------------------------ names
    @functools.cached_property
    def names(self) -> Dict[int, str]:
        """Record id -> name (first occurrence wins; an empty name is replaced by a later one)."""
        return dict(self._c.names())

    @property
    def name_bytes(self) -> Dict[int, bytes]:
        """Record id -> name as the bytes the log holds.  ``names`` gives bytes that
        are not UTF-8 as ``surrogateescape`` characters; both write back unchanged
        (``Writer.add_names`` takes either)."""
        return {i: n.encode("utf-8", "surrogateescape") for i, n in self.names.items()}

    def name(self, rec_id: int) -> Optional[str]:
        """Name of one record id, or None."""
        return self.names.get(int(rec_id))

    @functools.cached_property
    def _name_lookup(self) -> np.ndarray:
        return _frames.name_lookup(self._c.name_table())

    # ------------------------------------------------------------ records
    def _present(self, info: ModuleInfo) -> bool:
        return info.name in self.modules

    def records(self, module: Union[str, int], columns=None) -> pd.DataFrame:
        """All records of a counter module (POSIX, MPI-IO/MPIIO, STDIO, H5F, H5D,
        PNETCDF_FILE, PNETCDF_VAR, BG/Q, DFS, DAOS, MDHIM, NULL), in file order.

        Columns: ``id`` (uint64), ``rank`` (int64, -1 = shared), ``name`` (str or None),
        ``file_rec_id`` (H5D, PNETCDF_VAR only), then every integer counter (int64) and
        every floating-point counter (float64) by name.  DFS/DAOS add ``pool``,
        ``container`` (uuid text, None when unknown) (and DAOS ``oid_hi``, ``oid_lo``); MDHIM adds
        ``MDHIM_SERVER_COUNTS`` (array per record).  A module absent from the log gives
        an empty frame with the same columns.  ``df.attrs`` holds module,
        stored_version and dropped (records the upgrade skipped).

        ``columns`` (a list of counter names) keeps only those counters, after id,
        rank, name (and file_rec_id): the frame then holds copies of just these
        columns and the full decoded records are freed on return (less memory for
        analyses that read a few counters of a large log).
        """
        info = module_info(module)
        if info.kind not in ("counters", "mdhim"):
            raise UnknownModuleError(
                f"{info.name} is not a counter module; use dxt(), heatmap() or lustre()")
        if columns is not None and info.kind == "counters" and self._present(info):
            df = self._selected_records(info, columns)
            if df is not None:
                return df
        d = self._c.records(info.id) if self._present(info) else None
        return _frames.records_frame(info, d, self._name_lookup, columns)

    def _selected_records(self, info: ModuleInfo, columns) -> Optional[pd.DataFrame]:
        """records(columns=...) streamed by the C core: only the chosen counters are
        ever held (never the whole decoded region); None where it does not apply
        (DFS/DAOS, whose ids come from the whole decoder)."""
        ci, fi = _frames.selected_counters(info, columns)
        d = self._c.records_columns(info.id, ci, fi)
        if d is None:
            return None
        chosen = dataclasses.replace(info, counters=tuple(info.counters[i] for i in ci),
                                     fcounters=tuple(info.fcounters[i] for i in fi))
        df = _frames.records_frame(chosen, d, self._name_lookup, None)
        df.attrs["module"] = info.name
        return df

    @staticmethod
    def _dxt_module(module: Union[str, int]) -> ModuleInfo:
        info = module_info(module)
        if info.kind != "dxt":
            info = module_info("DXT_" + info.name.replace("-", ""))
        return info

    def regions(self) -> pd.DataFrame:
        """The REGION records (program phases, docs/regions.md): one row per region,
        rank and layer (POSIX, STDIO, MPI-IO, HDF5, PNETCDF) with the region's
        ``count``, ``open_at_end``, ``total_time``, ``max_time``, ``start``, ``end``
        and the layer's ``bytes_read``, ``bytes_written``, ``data_ops``, ``meta_ops``
        and ``io_time`` inside it.  Empty when the log has no regions."""
        from .region_frame import regions_frame
        return regions_frame(self.records("REGION"))

    def dxt(self, module: Union[str, int] = "POSIX") -> pd.DataFrame:
        """DXT trace segments of "POSIX" (DXT_POSIX) or "MPIIO"/"MPI-IO" (DXT_MPIIO).

        One row per segment in stored order (for each record its writes, then its
        reads): ``id``, ``rank``, ``name`` and ``hostname`` (categoricals; name NaN if
        the record has no name), ``op`` (categorical "read"/"write"), ``offset``,
        ``length``, ``start``, ``end`` (seconds since job start), ``thread`` (Int64:
        the thread within its rank, numbered from 0 in order of its first traced
        operation; <NA> when the stored version has no thread ids, i.e. the 3.5.0
        versions), ``region`` (string: the name of the region the call ran in, from our
        DXT_REGION extension, docs/regions.md; <NA> outside every region and for logs
        without it), plus ``thread_id`` (the raw pthread id) when it has them.
        """
        info = self._dxt_module(module)
        d = self._c.dxt(info.id) if self._present(info) else None
        return _frames.dxt_frame(d, self._name_lookup, info.name)

    def dxt_records(self, module: Union[str, int] = "POSIX") -> pd.DataFrame:
        """One row per DXT record: id, rank, name, hostname, write_count, read_count."""
        info = self._dxt_module(module)
        # streamed: only the headers are kept, so this costs no memory per segment
        d = self._c.dxt_reader(info.id).headers() if self._present(info) else None
        return _frames.dxt_record_frame(d, self._name_lookup)

    def heatmap(self, api: Optional[str] = None) -> pd.DataFrame:
        """HEATMAP bins, one row per (record, bin).

        Columns: ``api`` (the instrumented API from the record name "heatmap:<API>":
        "POSIX", "MPIIO", "STDIO", "DFS", "DAOS"), ``id``, ``rank``, ``bin`` (0-based
        index), ``start`` (bin start, seconds since job start = bin * width),
        ``width`` (bin width in seconds), ``read_bytes``, ``write_bytes``.
        ``api`` filters to one API ("MPI-IO" is accepted for "MPIIO").
        """
        info = module_info("HEATMAP")
        d = self._c.heatmap() if self._present(info) else None
        df = _frames.heatmap_frame(d, self._name_lookup, _heatmap_api_ids())
        if api is not None:
            df = df[df["api"] == api.replace("-", "").upper()].reset_index(drop=True)
        return df

    def layers(self, path: Optional[str] = None) -> pd.DataFrame:
        """The records of every I/O layer (H5D, PNETCDF_VAR, H5F, PNETCDF_FILE,
        MPI-IO, STDIO, POSIX, DFS, DAOS), one row each, joined by the file they
        belong to: ``file``, ``layer``, ``object`` (dataset or variable),
        ``rank``, ``id``, ``bytes_read``, ``bytes_written``, ``read_time``,
        ``write_time``, ``meta_time``.  With `path`, that file's rows only:
        an HDF5 dataset beside the MPI-IO and POSIX records it caused."""
        from .layers import layers
        return layers(self, path)

    def lustre(self) -> pd.DataFrame:
        """LUSTRE layouts, one row per component: id, rank, name, num_comps, num_stripes,
        component (0-based), the LUSTRE_COMP_* counters, pool_name, ost_ids (array)."""
        info = module_info("LUSTRE")
        d = self._c.lustre() if self._present(info) else None
        return _frames.lustre_frame(info, d, self._name_lookup)


@functools.lru_cache(maxsize=1)
def _heatmap_api_ids() -> Dict[int, str]:
    """Record id of "heatmap:<API>" for every counter module's API name."""
    apis = {m.name.replace("-", "") for m in modules().values() if m.kind == "counters"}
    return {record_id("heatmap:" + a): a for a in apis}


def open(path: Union[str, os.PathLike]) -> Log:  # noqa: A001 - mirrors builtins.open
    """Open a Darshan log; raises an iolens.LogError subclass if it cannot be read."""
    return Log(path)
