"""One batch of an ingest as Arrow tables, all or nothing per log.

extract's results are plain Python data; turning them into Arrow can still
fail on a value no column holds (a negative job id for the unsigned column, a
total past 2^63).  Such a failure must not stop the batch, which would commit
nothing and fail again on every later run: the batch is converted whole (the
common, fast case) and, only when that fails, log by log, and each log whose
rows don't convert goes to quarantine with the column and value that did not fit.
"""
from __future__ import annotations

import time
from typing import Dict, List

import pyarrow as pa

from .columns import ValueOutOfRangeError
from .extract import day, reason
from .schema import schemas
from .store import to_arrow

TABLES = ("jobs", "files", "quarantine", "findings")


def _rows(results: List[dict]) -> Dict[str, list]:
    rows: Dict[str, list] = {t: [] for t in TABLES}
    for r in results:
        if "quarantine" in r:
            rows["quarantine"].append(r["quarantine"])
            continue
        rows["jobs"].append(r["job"])
        if r["files"]:
            rows["files"].append(r["files"])
        rows["findings"] += r.get("findings", [])
    return rows


def _dates(table: str, rows: list) -> list:
    if table == "files":   # one dict of columns per log, one date per log
        return [d for part in rows for d in [part["date"]] * len(part["file"])]
    return [r["date"] for r in rows]


def tables(results: List[dict]) -> Dict[str, pa.Table]:
    """Arrow tables of the results, each with a string "date" column (the
    partition), for Store.commit_arrow.  Raises when any value doesn't fit."""
    out = {}
    for table, rows in _rows(results).items():
        if rows:
            out[table] = to_arrow(table, rows).append_column("date", pa.array(_dates(table, rows)))
    return out


def _misfit(result: dict, error: BaseException) -> BaseException:
    """The first column of a log's rows that does not convert, as an error that
    names it (the conversion's own error when no single column is to blame)."""
    for table, rows in _rows([result]).items():
        for field in schemas()[table] if rows else ():
            try:
                to_arrow(table, rows, columns=[field.name])
            except Exception as e:  # noqa: BLE001 - found the column
                value = rows[0].get(field.name) if table != "files" else None
                shown = "" if value is None else f" = {value!r:.60}"
                return ValueOutOfRangeError(f"{table}.{field.name}{shown} does not fit "
                                            f"{field.type} ({type(e).__name__}: {e})")
    return error


def _quarantined(result: dict, error: BaseException) -> dict:
    job = result["job"]
    return {"quarantine": {
        "log_key": job["log_key"], "log_file": job["log_file"],
        "reason": reason(_misfit(result, error)), "size": job["log_size"],
        "mtime": job["log_mtime"], "dev": job["log_dev"], "ino": job["log_ino"],
        "ingested_at": time.time(), "date": day(job["log_mtime"])}}


def checked_tables(results: List[dict]) -> Dict[str, pa.Table]:
    """tables(results), with every log whose values don't fit moved to quarantine."""
    try:
        return tables(results)
    except Exception:  # noqa: BLE001 - some log's value; find it below
        pass
    kept = []
    for r in results:
        try:
            if "quarantine" not in r:
                tables([r])
            kept.append(r)
        except Exception as e:  # noqa: BLE001 - this log, and only it, is refused
            kept.append(_quarantined(r, e))
    return tables(kept)
