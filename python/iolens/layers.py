"""The layers of one file: an HDF5 dataset or PnetCDF variable, the file's own
H5F/PNETCDF_FILE record, and the MPI-IO, STDIO and POSIX records it caused, joined
by file name (``Log.layers``).

An H5D or PNETCDF_VAR record names its file through ``file_rec_id`` (the record id
of the file's H5F / PNETCDF_FILE name); when that is 0 (a name too long for the
runtime to clean), the file is the part of the record's name before its dataset
or variable part.  Every other layer's record is named by the file path itself;
a DAOS object, which has no name, by its object id ``<oid_hi>.<oid_lo>`` (as
darshan-parser names it).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from ._meta import module_info, stack_order

# Top to bottom: what the application calls, then what that library calls
# (modules.def `depth` column).
STACK = stack_order()
COLUMNS = ["file", "layer", "object", "rank", "id", "bytes_read", "bytes_written",
           "read_time", "write_time", "meta_time"]


def _split(name: Optional[str], layer: str):
    """(file, object) of an H5D or PNETCDF_VAR record name without a file id."""
    if not name:
        return None, None
    if layer == "H5D":
        i = name.find(":/")
    else:
        i = name.rfind(":")
    return (name[:i], name[i + 1:]) if i > 0 else (name, None)


def layer_frame(log, layer: str) -> pd.DataFrame:
    info = module_info(layer)
    p = info.prefix
    wanted = [c for c in (p + "BYTES_READ", p + "BYTES_WRITTEN") if c in info.counters]
    wanted += [c for c in (p + "F_READ_TIME", p + "F_WRITE_TIME", p + "F_META_TIME")
               if c in info.fcounters]
    df = log.records(layer, columns=wanted)
    if df is None:      # a view: the module could not be read
        return pd.DataFrame(columns=COLUMNS)
    out = pd.DataFrame({"layer": layer, "rank": df["rank"], "id": df["id"]})
    names = df["name"].astype(object)
    if "file_rec_id" in df:
        files = [log.name(int(f)) if f else None for f in df["file_rec_id"]]
        split = [_split(n, layer) for n in names]
        out["file"] = [f if f else s[0] for f, s in zip(files, split)]
        out["object"] = [n[len(f) + 1:] if f and n and n.startswith(f + ":") else s[1]
                         for n, f, s in zip(names, files, split)]
    elif "oid_lo" in df:
        # DAOS objects have no name: each is its object id, as darshan-parser prints it
        out["file"] = [n if n else f"{hi}.{lo}"
                       for n, hi, lo in zip(names, df["oid_hi"], df["oid_lo"])]
        out["object"] = None
    else:
        out["file"] = names
        out["object"] = None
    for col, key in (("bytes_read", "BYTES_READ"), ("bytes_written", "BYTES_WRITTEN")):
        out[col] = df[p + key] if p + key in df else np.zeros(len(df), np.int64)
    for col, key in (("read_time", "F_READ_TIME"), ("write_time", "F_WRITE_TIME"),
                     ("meta_time", "F_META_TIME")):
        out[col] = df[p + key] if p + key in df else np.zeros(len(df))
    return out[COLUMNS]


def layers(log, path: Optional[str] = None) -> pd.DataFrame:
    """Every record of the I/O layers in the log, one row each, with the file it
    belongs to; only the records of `path` when given.  Rows are ordered by file,
    then layer from the top of the stack (application library) to the bottom."""
    present = [m for m in STACK if m in log.modules]
    frames = [layer_frame(log, m) for m in present]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    if path is not None:
        out = out[out["file"] == path]
    order = {m: i for i, m in enumerate(STACK)}
    out = out.assign(_k=out["layer"].map(order)).sort_values(["file", "_k", "rank"], kind="stable")
    return out.drop(columns="_k").reset_index(drop=True)
