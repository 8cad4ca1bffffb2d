"""The REGION module's records as one frame (Log.regions(); docs/regions.md)."""
import re

import pandas as pd

from ._meta import module_info, modules

COLUMNS = ["region", "rank", "layer", "count", "open_at_end", "total_time", "max_time",
           "start", "end", "bytes_read", "bytes_written", "data_ops", "meta_ops", "io_time"]


def layers():
    """(counter infix, layer name) of each layer a REGION record counts, in table
    order, read from the counter table (REGION_<L>_BYTES_READ): a layer that is one
    module is named as that module is printed (MPIIO -> "MPI-IO"); the others
    (HDF5, PNETCDF: two modules each) keep the table's name."""
    printed = {m.symbol: m.name for m in modules().values()}
    found = (re.fullmatch(r"REGION_(\w+)_BYTES_READ", c) for c in module_info("REGION").counters)
    return tuple((m.group(1), printed.get(m.group(1), m.group(1))) for m in found if m)


def regions_frame(records: pd.DataFrame) -> pd.DataFrame:
    """One row per region name, rank and layer: the region's runs (count, times,
    repeated on each of its layers' rows) and the layer's I/O made inside it."""
    rows = []
    table = layers()
    for rec in records.itertuples(index=False):
        r = rec._asdict()
        for sym, layer in table:
            p = f"REGION_{sym}_"
            rows.append((r["name"], r["rank"], layer, r["REGION_COUNT"],
                         r["REGION_OPEN_AT_END"], r["REGION_F_TOTAL_TIME"],
                         r["REGION_F_MAX_TIME"], r["REGION_F_START_TIMESTAMP"],
                         r["REGION_F_END_TIMESTAMP"], r[p + "BYTES_READ"],
                         r[p + "BYTES_WRITTEN"], r[p + "DATA_OPS"], r[p + "META_OPS"],
                         r[f"REGION_F_{sym}_IO_TIME"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def region_spans(frame: pd.DataFrame, run_time: float) -> pd.DataFrame:
    """One row per region and rank that ran (region, rank, start, end, total_time)
    from a regions_frame: the span from the region's first begin to its last end.
    A region still open at the end has no end yet: its span runs to the job's end
    (`run_time`, seconds).  The report's and the explorer's bands both take it."""
    runs = frame.drop_duplicates(["region", "rank"])
    runs = runs[runs["start"] > 0]
    end = runs["end"].where(runs["end"] >= runs["start"], max(run_time, 0.0))
    return runs.assign(end=end.clip(lower=runs["start"]))[
        ["region", "rank", "start", "end", "total_time"]].reset_index(drop=True)


# The I/O figures a region holds per layer, summed over ranks by region_layer_sums.
LAYER_SUMS = ("bytes_read", "bytes_written", "data_ops", "meta_ops", "io_time")


def region_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Per region (index, in first-seen order): how often it ran (`count`), its
    time (`total_time`), both summed over ranks, and its longest run on any rank
    (`max_time`).  A regions_frame repeats those on each of a record's layer rows,
    so one layer's rows are taken: one row per record, even where two records share
    a region and a rank (logs merged from processes that each were rank 0).  The
    report's phases and the diff read the same figures from here."""
    one_layer = frame[frame["layer"] == frame["layer"].iloc[0]] if len(frame) else frame
    runs = one_layer.groupby("region", sort=False)
    return pd.DataFrame({"count": runs["count"].sum(), "total_time": runs["total_time"].sum(),
                         "max_time": runs["max_time"].max()})


def region_layer_sums(frame: pd.DataFrame) -> pd.DataFrame:
    """The I/O made inside each region, per layer, summed over ranks: indexed by
    (region, layer) in first-seen order, columns LAYER_SUMS."""
    return frame.groupby(["region", "layer"], sort=False)[list(LAYER_SUMS)].sum()
