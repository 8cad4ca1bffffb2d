"""The on-disk store: Parquet batch files plus a manifest that says which exist.

Layout::

    STORE/manifest.json                          committed batches and their files
    STORE/<table>/date=YYYY-MM-DD/part-<batch>.parquet
    STORE/_staging/<batch>/...                   a batch being written
    STORE/.lock                                  held by the one running ingest

Commit protocol (why a kill at any moment leaves nothing half-written visible):

1. a batch's files are written under ``_staging/<batch>/`` and fsynced;
2. the manifest, with the batch added, is written to a temporary file, fsynced
   and renamed over ``manifest.json`` (an atomic replace): this is the commit;
3. the staged files are renamed to their places and ``_staging/<batch>`` removed.

Readers list files from the manifest only, so an uncommitted batch (killed
before 2) is never read; a kill between 2 and 3 is finished by the next ingest
(``recover``), and meanwhile readers find the committed file in staging.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
import uuid
from typing import Dict, List, Optional, Set, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .logfiles import FileId
from .schema import schema_tag, schemas

MANIFEST = "manifest.json"
STAGING = "_staging"
FORMAT = 1
# Columns that identify a log: its key, then its file's (dev, ino, size, mtime).
_IDENTITY = {"jobs": ("log_key", "log_dev", "log_ino", "log_size", "log_mtime"),
             "quarantine": ("log_key", "dev", "ino", "size", "mtime")}
IDENTITY_COLUMNS = ("dev", "ino", "size", "mtime")
_ID_SCHEMA = pa.schema([("dev", pa.uint64()), ("ino", pa.uint64()), ("size", pa.int64()),
                        ("mtime", pa.float64())])


class StoreError(RuntimeError):
    """The store directory is not a fleet store, or is busy or damaged."""


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_manifest(root: str) -> dict:
    path = os.path.join(root, MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        return {"format": FORMAT, "batches": []}
    except (OSError, ValueError) as e:
        raise StoreError(f"{path}: unreadable manifest ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StoreError(f"{path}: not a fleet store manifest of format {FORMAT}")
    return doc


def table_files(root: str, table: str, manifest: dict = None) -> List[str]:
    """Committed files of a table (absolute paths), in commit order."""
    manifest = read_manifest(root) if manifest is None else manifest
    out = []
    for batch in manifest["batches"]:
        for rel in batch["files"]:
            if rel.split("/", 1)[0] != table:
                continue
            final = os.path.join(root, rel)
            staged = os.path.join(root, STAGING, batch["id"], rel)
            # Between commit and move the committed copy is still in staging.
            out.append(final if os.path.exists(final) or not os.path.exists(staged) else staged)
    return out


def is_store(root: str) -> bool:
    return os.path.isfile(os.path.join(root, MANIFEST))


class Store:
    """A store opened for writing (one writer at a time, enforced by a lock)."""

    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        os.makedirs(self.root, exist_ok=True)
        self._lock = open(os.path.join(self.root, ".lock"), "a+")
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise StoreError(f"{self.root}: another ingest is running on this store") from None
        self.manifest = read_manifest(self.root)
        self.recover()

    def close(self) -> None:
        self._lock.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ recovery
    def recover(self) -> None:
        """Finish the moves of committed batches and drop uncommitted ones."""
        for name in os.listdir(self.root):   # manifests written but never renamed in
            if name.startswith(f".{MANIFEST}.") and name.endswith(".tmp"):
                os.unlink(os.path.join(self.root, name))
        staging = os.path.join(self.root, STAGING)
        committed = {b["id"]: b for b in self.manifest["batches"]}
        if not os.path.isdir(staging):
            return
        for bid in os.listdir(staging):
            if bid in committed:
                self._move_in(committed[bid])
            shutil.rmtree(os.path.join(staging, bid), ignore_errors=True)

    def _move_in(self, batch: dict) -> None:
        for rel in batch["files"]:
            src = os.path.join(self.root, STAGING, batch["id"], rel)
            dst = os.path.join(self.root, rel)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.replace(src, dst)

    # ------------------------------------------------------------ reading
    def keys(self) -> Set[str]:
        """log_key of every log already in the store (ingested or quarantined)."""
        out: Set[str] = set()
        for table, cols in _IDENTITY.items():
            for path in table_files(self.root, table, self.manifest):
                out.update(pq.read_table(path, columns=[cols[0]]).column(0).to_pylist())
        return out

    def held(self, files: List[Tuple[int, FileId]]) -> Set[int]:
        """The numbers i of the (i, logfiles.FileId) pairs whose file is that of a
        log already in the store.  A join in Arrow, since the identities of a
        million logs as Python tuples would cost 200 MB.  Batches written before
        identities were stored have none to match."""
        if not files:
            return set()
        files = pa.table({"i": [i for i, _ in files],
                          **{c: [getattr(f, c) for _, f in files] for c in IDENTITY_COLUMNS}},
                         schema=pa.schema([("i", pa.int64())] + list(_ID_SCHEMA)))
        parts = []
        for table, cols in _IDENTITY.items():
            for path in table_files(self.root, table, self.manifest):
                if set(cols).issubset(pq.read_schema(path).names):
                    data = pq.read_table(path, columns=list(cols[1:]))
                    parts.append(data.rename_columns(list(IDENTITY_COLUMNS)).cast(_ID_SCHEMA))
        if not parts:
            return set()
        stored = pa.concat_tables(parts).filter(pc.is_valid(pc.field("dev")))
        both = files.join(stored.group_by(list(IDENTITY_COLUMNS)).aggregate([]),
                          keys=list(IDENTITY_COLUMNS), join_type="inner")
        return set(both.column("i").to_pylist())

    # ------------------------------------------------------------ writing
    def commit_arrow(self, tables: Dict[str, pa.Table], stats: dict) -> str:
        """Write one batch: Arrow tables (batch.checked_tables gives them for an
        ingest; the benchmark builds its synthetic jobs table directly) that
        carry a string "date" column, the partition.  Returns the batch id."""
        parts = []
        for table, data in tables.items():
            dates = data.column("date")
            for date in sorted(pc.unique(dates).to_pylist()):
                part = data.filter(pc.equal(dates, date)).drop_columns(["date"])
                parts.append((table, date, part.select(schemas()[table].names)
                              .cast(schemas()[table])))
        return self._commit(parts, stats)

    def _commit(self, parts, stats: dict) -> str:
        bid = f"{len(self.manifest['batches']):06d}-{uuid.uuid4().hex[:8]}"
        stage = os.path.join(self.root, STAGING, bid)
        written = []
        for table, date, data in parts:
            rel = f"{table}/date={date}/part-{bid}.parquet"
            path = os.path.join(stage, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            pq.write_table(data, path, compression="zstd")
            _fsync_path(path)
            written.append(rel)
        batch = {"id": bid, "files": written, "committed_at": time.time(),
                 "schema": schema_tag(), **stats}
        manifest = {**self.manifest, "batches": self.manifest["batches"] + [batch]}
        tmp = os.path.join(self.root, f".{MANIFEST}.{bid}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=0)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, os.path.join(self.root, MANIFEST))   # the commit point
        _fsync_path(self.root)
        self.manifest = manifest
        self._move_in(batch)
        shutil.rmtree(stage, ignore_errors=True)
        return bid


def to_arrow(table: str, rows: List[dict], columns: Optional[List[str]] = None) -> pa.Table:
    """Rows (dicts, or for "files" dicts of equal-length lists) as an Arrow table
    of the table's schema (the date partition column dropped), or of only the
    named `columns`."""
    schema = schemas()[table]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    if table == "files":   # extract gives one dict of columns per log
        return pa.table([_column([part[f.name] for part in rows], f.type) for f in schema],
                        schema=schema)
    return pa.Table.from_pylist(rows, schema=schema)


def _column(parts: list, type_: pa.DataType) -> pa.Array:
    """One column from per-log parts: numpy arrays (the numeric columns of
    extract) are joined without a detour through Python objects; lists are
    joined as lists."""
    if parts and all(isinstance(p, np.ndarray) for p in parts):
        return pa.array(np.concatenate(parts), type=type_)
    out: list = []
    for p in parts:
        out.extend(p.tolist() if isinstance(p, np.ndarray) else p)
    return pa.array(out, type=type_)
