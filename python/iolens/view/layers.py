"""Bytes per layer, and the job's bytes with each file counted once.

POSIX bytes under MPI-IO or HDF5 are the same data as the MPI-IO or HDF5 bytes
above them, so layers are shown side by side and never added.  The job's bytes
take each file at its file-system layer (what reached storage), else at the
lowest layer that recorded it (MPI-IO when POSIX was not instrumented)."""
from __future__ import annotations

from typing import Tuple

import pandas as pd

from .._meta import file_system_layers
from ..layers import STACK, layers

# The bottom of the stack (modules.def `layer` FILESYSTEM): POSIX, STDIO, DFS, DAOS.
FILE_SYSTEM_LAYERS = file_system_layers()
_DATA_COLUMNS = ["bytes_read", "bytes_written"]


def layers_of(view) -> pd.DataFrame:
    """``Log.layers`` over the view's undamaged records."""
    return layers(view)


def layer_bytes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per layer, in stack order: bytes_read, bytes_written (-1 read as 0)."""
    present = [m for m in STACK if m in set(frame["layer"])]
    data = frame[["layer"] + _DATA_COLUMNS].copy()
    data[_DATA_COLUMNS] = data[_DATA_COLUMNS].clip(lower=0)
    return data.groupby("layer")[_DATA_COLUMNS].sum().reindex(present).astype("int64")


def job_bytes(frame: pd.DataFrame) -> Tuple[int, int]:
    """(read, written): per file, its file-system layers' bytes when it has any,
    else those of the lowest layer present for it."""
    if not len(frame):
        return 0, 0
    depth = {m: i for i, m in enumerate(STACK)}
    data = frame.assign(depth=frame["layer"].map(depth),
                        fs=frame["layer"].isin(FILE_SYSTEM_LAYERS))
    data[_DATA_COLUMNS] = data[_DATA_COLUMNS].clip(lower=0)
    files = data["file"].fillna("").astype(str)
    has_fs = data.groupby(files)["fs"].transform("any")
    lowest = data.groupby(files)["depth"].transform("max")
    keep = (has_fs & data["fs"]) | (~has_fs & (data["depth"] == lowest))
    chosen = data[keep]
    return int(chosen["bytes_read"].sum()), int(chosen["bytes_written"].sum())
