"""The REGION module's records as one frame (Log.regions(); docs/regions.md)."""
import pandas as pd

# The layers of a REGION record, in the order of their counter blocks
# (src/format/counters/region.def), with the names the frame gives them.
LAYERS = (("POSIX", "POSIX"), ("STDIO", "STDIO"), ("MPIIO", "MPI-IO"),
          ("HDF5", "HDF5"), ("PNETCDF", "PnetCDF"))
COLUMNS = ["region", "rank", "layer", "count", "open_at_end", "total_time", "max_time",
           "start", "end", "bytes_read", "bytes_written", "data_ops", "meta_ops", "io_time"]


def regions_frame(records: pd.DataFrame) -> pd.DataFrame:
    """One row per region name, rank and layer: the region's runs (count, times,
    repeated on each of its layers' rows) and the layer's I/O made inside it."""
    rows = []
    for rec in records.itertuples(index=False):
        r = rec._asdict()
        for sym, layer in LAYERS:
            p = f"REGION_{sym}_"
            rows.append((r["name"], r["rank"], layer, r["REGION_COUNT"],
                         r["REGION_OPEN_AT_END"], r["REGION_F_TOTAL_TIME"],
                         r["REGION_F_MAX_TIME"], r["REGION_F_START_TIMESTAMP"],
                         r["REGION_F_END_TIMESTAMP"], r[p + "BYTES_READ"],
                         r[p + "BYTES_WRITTEN"], r[p + "DATA_OPS"], r[p + "META_OPS"],
                         r[f"REGION_F_{sym}_IO_TIME"]))
    return pd.DataFrame(rows, columns=COLUMNS)
