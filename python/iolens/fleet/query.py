"""SQL over a store with DuckDB (embedded, no server).

`connect(store)` gives a DuckDB connection with one view per table (jobs,
files, quarantine, findings) over the committed files of the manifest, with
the ``date`` partition column (DATE) taken from the directory names.
"""
from __future__ import annotations

import duckdb
import pyarrow as pa

from .schema import TABLES, schema_tag, schemas
from .store import StoreError, is_store, read_manifest, table_files


def _sql_list(paths) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def connect(store: str, threads: int = 0) -> duckdb.DuckDBPyConnection:
    if not is_store(store):
        raise StoreError(f"{store}: not a fleet store (no manifest.json); "
                         "create one with `iolens fleet ingest LOGDIR --store STORE`")
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    # A store has hundreds of files per table; reading their footers costs
    # about 0.2 s per query at 1,000,000 jobs.  Committed files never change,
    # so later queries on this connection (the dashboard runs 14) reuse them.
    con.execute("SET parquet_metadata_cache = true")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    manifest = read_manifest(store)
    # Batches of an older schema lack the columns added since: match by name
    # (missing ones read as NULL).  Only then, since it reads every file's schema.
    mixed = any(b.get("schema") != schema_tag() for b in manifest["batches"])
    by_name = ", union_by_name = true" if mixed else ""
    for table in TABLES:
        files = table_files(store, table, manifest)
        if files:
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet("
                        f"{_sql_list(files)}, hive_partitioning = true, "
                        f"hive_types = {{'date': DATE}}{by_name})")
        else:   # an empty table with the same columns
            empty = schemas()[table].append(pa.field("date", pa.date32())).empty_table()
            con.register(f"_empty_{table}", empty)
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM _empty_{table}")
    return con


def run(store: str, sql: str):
    """Result of one SQL statement as a pandas DataFrame."""
    with connect(store) as con:
        return con.execute(sql).df()
