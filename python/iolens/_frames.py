"""Turn the column buffers of iolens._core into pandas DataFrames.

The C core decodes a whole module region and hands over its arrays; here they
are viewed with numpy.frombuffer (no copy) and assembled with pd.concat, which
keeps the views.  Strings are never created per row: record names are shared
references into the log's name table, and DXT strings are categoricals.
"""
from __future__ import annotations

import uuid
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from ._meta import ModuleInfo


def view(buf, dtype, shape=None) -> np.ndarray:
    """numpy view of a core buffer (None stays None)."""
    if buf is None:
        return None
    a = np.frombuffer(buf, dtype=dtype)
    return a.reshape(shape) if shape is not None else a


def name_lookup(name_table: List[str]) -> np.ndarray:
    """Object array of the names followed by None, so that code -1 gives None."""
    arr = np.empty(len(name_table) + 1, dtype=object)
    arr[:-1] = name_table
    arr[-1] = None
    return arr


def selected_counters(info: ModuleInfo, columns) -> Tuple[List[int], List[int]]:
    """Indexes of the chosen integer and float counters, in table order."""
    wanted = set(columns)
    unknown = wanted - set(info.counters) - set(info.fcounters)
    if unknown:
        raise KeyError(f"not {info.name} counters: {sorted(unknown)}")
    return ([i for i, c in enumerate(info.counters) if c in wanted],
            [i for i, c in enumerate(info.fcounters) if c in wanted])


def _counter_frames(info: ModuleInfo, ints: np.ndarray, flts: np.ndarray,
                    columns=None) -> List[pd.DataFrame]:
    """Views of all counters, or copies of the selected ones (so the decoded
    record arrays can be freed as soon as the caller drops them)."""
    if columns is None:
        return [pd.DataFrame(ints, columns=list(info.counters), copy=False),
                pd.DataFrame(flts, columns=list(info.fcounters), copy=False)]
    ci, fi = selected_counters(info, columns)
    return [pd.DataFrame(np.ascontiguousarray(ints[:, ci].T).T,
                         columns=[info.counters[i] for i in ci], copy=False),
            pd.DataFrame(np.ascontiguousarray(flts[:, fi].T).T,
                         columns=[info.fcounters[i] for i in fi], copy=False)]


def _uuid_series(rows: np.ndarray, at: int) -> pd.Series:
    """Canonical uuid text of bytes [at, at+16) of each row; None where all zero
    (the runtime did not know the pool or container)."""
    return pd.Series([str(uuid.UUID(bytes=b)) if any(b) else None
                      for b in (r[at:at + 16].tobytes() for r in rows)], dtype=object)


def _aux_columns(info: ModuleInfo, aux: np.ndarray, size: int) -> Dict[str, object]:
    """DFS/DAOS per-record binary ids as documented in log.h (uuid text, oid halves)."""
    rows = aux.reshape(-1, size) if size else aux.reshape(0, 0)
    cols = {"pool": _uuid_series(rows, 0), "container": _uuid_series(rows, 16)}
    if size >= 48:
        oid = np.ascontiguousarray(rows[:, 32:48]).view(np.uint64).reshape(-1, 2)
        cols["oid_hi"] = oid[:, 0].copy()
        cols["oid_lo"] = oid[:, 1].copy()
    return cols


def record_arrays(d: dict) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, rank, ints[n, n_int], flts[n, n_flt]) of a core records dict: views
    of its buffers, nothing copied."""
    n = d["count"]
    if "rows" in d:
        # Stored records already in the decoded layout (id, rank, ints, flts per
        # row): strided views of the decompressed region, nothing decoded or copied.
        rows = view(d["rows"], np.int64, (n, d["row_size"] // 8))
        ni = d["n_int"]
        return (rows[:, 0].view(np.uint64), rows[:, 1], rows[:, 2:2 + ni],
                rows.view(np.float64)[:, 2 + ni:])
    return (view(d["id"], np.uint64), view(d["rank"], np.int64),
            view(d["ints"], np.int64, (n, d["n_int"])),
            view(d["flts"], np.float64, (n, d["n_flt"])))


def records_frame(info: ModuleInfo, d: Optional[dict], names: np.ndarray,
                  columns=None) -> pd.DataFrame:
    """One row per record: id, rank, name, [file_rec_id], counters, fcounters, [extras]."""
    if d is None:  # module absent: an empty frame with the right columns and dtypes
        d = {"count": 0, "n_int": len(info.counters), "n_flt": len(info.fcounters),
             "id": b"", "rank": b"", "ints": b"", "flts": b"", "name_code": b"",
             "file_rec_id": b"" if info.has_file_rec_id else None,
             "aux": None, "aux_size": 0, "tail_start": None, "tail": None,
             "stored_version": 0, "dropped": 0}
    n = d["count"]
    copy = columns is not None  # keep no view into the decoded arrays
    ids, rank, ints, flts = record_arrays(d)
    head = {"id": np.array(ids, copy=copy),
            "rank": np.array(rank, copy=copy),
            "name": pd.Series(names[view(d["name_code"], np.int32)], dtype=object)}
    if d["file_rec_id"] is not None:
        head["file_rec_id"] = np.array(view(d["file_rec_id"], np.uint64), copy=copy)
    parts = [pd.DataFrame(head, copy=False)]
    parts += _counter_frames(info, ints, flts, columns)
    extra = {}
    if d["aux"] is not None and d["aux_size"]:
        extra.update(_aux_columns(info, view(d["aux"], np.uint8), d["aux_size"]))
    if d["tail_start"] is not None:
        starts, tail = view(d["tail_start"], np.uintp), view(d["tail"], np.int64)
        extra["MDHIM_SERVER_COUNTS"] = pd.Series(
            [tail[starts[i]:starts[i + 1]] for i in range(n)], dtype=object)
    if extra:
        parts.append(pd.DataFrame(extra))
    df = pd.concat(parts, axis=1)
    df.attrs.update(module=info.name, stored_version=d["stored_version"], dropped=d["dropped"])
    return df


def _categorical(codes: np.ndarray, categories) -> pd.Categorical:
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


def _thread_numbers(rank: np.ndarray, tid: Optional[np.ndarray], start: np.ndarray) -> pd.array:
    """Each segment's thread as a small number within its rank: 0 for the thread
    whose first traced operation came first, 1 for the next, ...  Pthread ids are
    addresses, meaningless to a reader and reused across processes.  <NA> for
    versions without thread ids (DXT_POSIX 1, DXT_MPIIO 1-2)."""
    n = len(rank)
    if tid is None:
        return pd.array(np.zeros(n, dtype=np.int64), dtype="Int64") if n == 0 else \
            pd.array([pd.NA] * n, dtype="Int64")
    if n == 0:
        return pd.array(np.zeros(0, dtype=np.int64), dtype="Int64")
    keys = pd.DataFrame({"rank": rank, "tid": tid, "start": start}, copy=False)
    first = keys.groupby(["rank", "tid"], sort=False)["start"].min().reset_index()
    first["thread"] = first.sort_values(["rank", "start", "tid"]).groupby("rank").cumcount()
    num = keys.merge(first[["rank", "tid", "thread"]], on=["rank", "tid"], how="left")["thread"]
    return pd.array(num.to_numpy(np.int64), dtype="Int64")


def _region_names(codes: Optional[bytes], names: np.ndarray, n: int) -> pd.Series:
    """Each segment's region name (our DXT_REGION extension); <NA> outside every
    region, for a region the process could not record, and for logs without it."""
    if codes is None:
        return pd.Series(pd.NA, index=range(n), dtype="string")
    return pd.Series(names[view(codes, np.int32)], dtype="string")


def dxt_frame(d: Optional[dict], names: np.ndarray, module: str) -> pd.DataFrame:
    """One row per segment, in stored order (per record: writes, then reads)."""
    if d is None:
        d = {"count": 0, "nseg": 0, "id": b"", "rank": b"", "seg_rec": b"", "seg_write": b"",
             "name_code": b"", "host_code": b"", "hostnames": [], "offset": b"", "length": b"",
             "start": b"", "end": b"", "thread_id": None, "stored_version": 0,
             "region_code": None}
    rec = view(d["seg_rec"], np.int64)
    rec_names = pd.Categorical(pd.Series(names[view(d["name_code"], np.int32)], dtype=object))
    cols = {
        "id": view(d["id"], np.uint64)[rec],
        "rank": view(d["rank"], np.int64)[rec],
        "name": pd.Categorical.from_codes(rec_names.codes[rec], categories=rec_names.categories),
        "hostname": _categorical(view(d["host_code"], np.int32)[rec], d["hostnames"]),
        "op": _categorical(view(d["seg_write"], np.int8), ["read", "write"]),
        "offset": view(d["offset"], np.int64),
        "length": view(d["length"], np.int64),
        "start": view(d["start"], np.float64),
        "end": view(d["end"], np.float64),
    }
    if d["thread_id"] is not None:
        cols["thread_id"] = view(d["thread_id"], np.uint64)
    cols["thread"] = _thread_numbers(cols["rank"], cols.get("thread_id"), cols["start"])
    cols["region"] = _region_names(d.get("region_code"), names, len(cols["offset"]))
    df = pd.DataFrame(cols, copy=False)
    df.attrs.update(module=module, stored_version=d["stored_version"])
    return df


def dxt_record_frame(d: Optional[dict], names: np.ndarray) -> pd.DataFrame:
    """One row per DXT record: id, rank, name, hostname, write_count, read_count."""
    if d is None:
        return pd.DataFrame({"id": np.empty(0, np.uint64), "rank": np.empty(0, np.int64),
                             "name": pd.Series([], dtype=object),
                             "hostname": pd.Series([], dtype=object),
                             "write_count": np.empty(0, np.int64),
                             "read_count": np.empty(0, np.int64)})
    return pd.DataFrame({
        "id": view(d["id"], np.uint64), "rank": view(d["rank"], np.int64),
        "name": pd.Series(names[view(d["name_code"], np.int32)], dtype=object),
        "hostname": pd.Series(d["hostnames"], dtype=object),     # one per record
        "write_count": view(d["write_count"], np.int64),
        "read_count": view(d["read_count"], np.int64)}, copy=False)


def heatmap_frame(d: Optional[dict], names: np.ndarray, api_of_id: Dict[int, str]) -> pd.DataFrame:
    """One row per (record, bin): api, id, rank, bin, start, width, read_bytes, write_bytes."""
    if d is None:
        d = {"count": 0, "id": b"", "rank": b"", "bin_width": b"", "nbins": b"",
             "bin_start": np.zeros(1, np.uintp).tobytes(), "write_bins": b"", "read_bins": b"",
             "name_code": b""}
    ids = view(d["id"], np.uint64)
    starts = view(d["bin_start"], np.uintp).astype(np.int64)
    counts = np.diff(starts)
    rec = np.repeat(np.arange(len(ids)), counts)
    width = view(d["bin_width"], np.float64)
    rec_api = []
    for i, code in zip(ids, view(d["name_code"], np.int32)):
        name = names[code]
        if isinstance(name, str) and name.startswith("heatmap:"):
            rec_api.append(name[len("heatmap:"):])
        else:
            rec_api.append(api_of_id.get(int(i), str(int(i))))
    bins = np.arange(len(rec), dtype=np.int64) - starts[:-1][rec]
    return pd.DataFrame({
        "api": pd.Categorical(np.asarray(rec_api, dtype=object)[rec]) if len(rec) else
        pd.Categorical([]),
        "id": ids[rec], "rank": view(d["rank"], np.int64)[rec], "bin": bins,
        "start": bins * width[rec], "width": width[rec],
        "read_bytes": view(d["read_bins"], np.int64),
        "write_bytes": view(d["write_bins"], np.int64)}, copy=False)


def lustre_frame(info: ModuleInfo, d: Optional[dict], names: np.ndarray) -> pd.DataFrame:
    """One row per layout component (records with no component have no row)."""
    ncnt = len(info.counters)
    if d is None:
        d = {"count": 0, "id": b"", "rank": b"", "num_comps": b"", "num_stripes": b"",
             "comp_start": np.zeros(1, np.uintp).tobytes(), "comp": b"",
             "ost_start": np.zeros(1, np.uintp).tobytes(), "ost": b"", "pool_name": [],
             "name_code": b""}
    cstart = view(d["comp_start"], np.uintp).astype(np.int64)
    rec = np.repeat(np.arange(len(cstart) - 1), np.diff(cstart))
    comp = view(d["comp"], np.int64, (len(rec), ncnt))
    ost, ostart = view(d["ost"], np.int64), view(d["ost_start"], np.uintp).astype(np.int64)
    stripe_count = comp[:, list(info.counters).index("LUSTRE_COMP_STRIPE_COUNT")] if ncnt else []
    osts, prev_rec, pos = [], -1, 0
    for r, sc in zip(rec, stripe_count):   # OST ids of a record are split in component order
        if r != prev_rec:
            prev_rec, pos = r, ostart[r]
        take = max(0, min(int(sc), ostart[r + 1] - pos))
        osts.append(ost[pos:pos + take])
        pos += take
    head = pd.DataFrame({
        "id": view(d["id"], np.uint64)[rec], "rank": view(d["rank"], np.int64)[rec],
        "name": pd.Series(names[view(d["name_code"], np.int32)[rec]], dtype=object),
        "num_comps": view(d["num_comps"], np.int64)[rec],
        "num_stripes": view(d["num_stripes"], np.int64)[rec],
        "component": np.arange(len(rec), dtype=np.int64) - cstart[:-1][rec]})
    tail = pd.DataFrame({"pool_name": pd.Series(d["pool_name"], dtype=object),
                         "ost_ids": pd.Series(osts, dtype=object)})
    return pd.concat([head, pd.DataFrame(comp, columns=list(info.counters)), tail], axis=1)
