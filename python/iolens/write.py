"""Writing Darshan 3.41 logs.

``write_copy`` re-encodes any readable log (every 3.x version, either byte
order) as a current-version log; ``Writer`` builds a log from numpy columns.
"""
from __future__ import annotations

import os
from typing import Iterable, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._meta import module_info

_COMP = {"zlib": _core.COMP_ZLIB, "bzip2": _core.COMP_BZIP2, "none": _core.COMP_NONE}

PathLike = Union[str, os.PathLike]


def _comp(compression: str) -> int:
    try:
        return _COMP[compression]
    except KeyError:
        raise ValueError(f"compression must be one of {sorted(_COMP)}") from None


def write_copy(src: PathLike, dst: PathLike, compression: str = "zlib") -> None:
    """Read ``src`` and write it to ``dst`` as a Darshan 3.41 log.

    Records are decoded and re-encoded at the current module versions (DXT at the
    versions the 3.5.0 release reads); names, job data, mounts and partial flags are
    kept.  Opaque AutoPerf regions are copied as they are from little-endian logs
    and dropped from big-endian ones.
    """
    _core.write_copy(os.fspath(src), os.fspath(dst), _comp(compression))


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


class Writer:
    """Build a 3.41 log: set_job(), add_names(), one put_*() per module in ascending
    module id order, then close().  Used as a context manager, an exception aborts
    (the unfinished file is removed)."""

    def __init__(self, path: PathLike, compression: str = "zlib"):
        self._w = _core.Writer(os.fspath(path), _comp(compression))

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self.close()
        else:
            self._w.abort()

    def set_job(self, *, uid: int = 0, start_time_sec: int = 0, start_time_nsec: int = 0,
                end_time_sec: int = 0, end_time_nsec: int = 0, nprocs: int = 1, jobid: int = 0,
                metadata: str = "", exe: str = "",
                mounts: Iterable[Tuple[str, str]] = ()) -> None:
        """Job record; ``metadata`` is the raw "key=value\\n" text, ``mounts`` (path, fstype).
        Text may be str (``surrogateescape`` for bytes that are not UTF-8) or bytes."""
        self._w.set_job(uid, start_time_sec, start_time_nsec, end_time_sec, end_time_nsec,
                        nprocs, jobid, metadata, exe, list(mounts))

    def add_names(self, ids: Sequence[int], names: Sequence[Union[str, bytes]]) -> None:
        """Names as str (bytes that are not UTF-8 as ``surrogateescape``, as the reader
        gives them) or bytes; stored as those bytes."""
        self._w.add_names([int(i) for i in ids], list(names))

    def put_records(self, module, id, rank, counters, fcounters, file_rec_id=None) -> None:
        """All records of a counter module; counters/fcounters are (n, ncounters) arrays."""
        info = module_info(module)
        self._w.put_records(info.id, np.ascontiguousarray(id, dtype=np.uint64), _i64(rank),
                            _i64(counters), np.ascontiguousarray(fcounters, dtype=np.float64),
                            None if file_rec_id is None else
                            np.ascontiguousarray(file_rec_id, dtype=np.uint64))

    def put_dxt(self, module, id, rank, hostnames, write_count, read_count,
                offset, length, start, end) -> None:
        """DXT records; segments of record i (its writes, then its reads) follow those of i-1."""
        info = module_info(module)
        self._w.put_dxt(info.id, np.ascontiguousarray(id, dtype=np.uint64), _i64(rank),
                        list(hostnames), _i64(write_count), _i64(read_count), _i64(offset),
                        _i64(length), np.ascontiguousarray(start, dtype=np.float64),
                        np.ascontiguousarray(end, dtype=np.float64))

    def put_heatmap(self, id, rank, bin_width, nbins, write_bins, read_bins) -> None:
        """HEATMAP records; bins of record i follow those of record i-1."""
        self._w.put_heatmap(np.ascontiguousarray(id, dtype=np.uint64), _i64(rank),
                            np.ascontiguousarray(bin_width, dtype=np.float64), _i64(nbins),
                            _i64(write_bins), _i64(read_bins))

    def put_lustre(self, id, rank, layouts) -> None:
        """LUSTRE records: ``layouts[i]`` is record i's list of components, each a dict
        of LUSTRE_COMP_* counters (short names accepted: "stripe_size") plus
        optional "pool" and "osts" (its OST ids; as many as its stripe count).
        Records must be written already truncated (format spec 7.9)."""
        names = module_info("LUSTRE").counters
        comps, pools, osts = [], [], []
        for layout in layouts:
            for c in layout:
                full = {k if k.startswith("LUSTRE_COMP_") else "LUSTRE_COMP_" + k.upper(): v
                        for k, v in c.items() if k not in ("pool", "osts")}
                unknown = set(full) - set(names)
                if unknown:
                    raise ValueError(f"unknown LUSTRE component counters: {sorted(unknown)}")
                comps.append([int(full.get(n, -1 if n.endswith("MIRROR_ID") else 0))
                              for n in names])
                pools.append(str(c.get("pool", "")))
                osts.extend(int(o) for o in c.get("osts", ()))
        self._w.put_lustre(np.ascontiguousarray(id, dtype=np.uint64), _i64(rank),
                           _i64([len(layout) for layout in layouts]),
                           _i64([sum(len(c.get("osts", ())) for c in layout) for layout in layouts]),
                           _i64(np.asarray(comps, dtype=np.int64).reshape(-1, len(names))),
                           pools, _i64(osts))

    def set_partial(self, flag: int) -> None:
        self._w.set_partial(int(flag))

    def close(self) -> None:
        self._w.close()
