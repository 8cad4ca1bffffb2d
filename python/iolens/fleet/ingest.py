"""`iolens fleet ingest`: find logs, extract them in parallel, commit in batches.

Work runs on local processes (pool.py, which survives a dead worker) or on an
existing Dask distributed cluster; either way the same `extract_many` runs on
chunks of paths and the results come back here, where a single writer commits
them in batches (batch.checked_tables, then store.Store.commit_arrow).  Memory
is bounded by the number of chunks in flight and the batch size, not by the
number of logs.  Which paths are logs, and each real file once: logfiles.py.
"""
from __future__ import annotations

import itertools
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Optional

from .batch import checked_tables
from .classes import StorageClasses
from .extract import extract, quarantine_row
from .logfiles import find_logs, log_key
from .names import NameFilter
from .pool import WorkerDiedError, local_results
from .store import Store


def extract_many(paths: List[str], classes: StorageClasses, with_findings: bool = True,
                 names: Optional[NameFilter] = None) -> list:
    """The unit of remote work: a chunk of logs (fewer round trips than one each)."""
    return [extract(p, classes, with_findings, names) for p in paths]


def _chunks(items: List[str], size: int) -> Iterator[List[str]]:
    it = iter(items)
    while True:
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return
        yield chunk


def _local(chunks, classes, workers: int, with_findings: bool, names) -> Iterator[list]:
    if workers <= 1:
        for chunk in chunks:
            yield extract_many(chunk, classes, with_findings, names)
        return
    yield from local_results(extract_many, extract, chunks, workers, (classes, with_findings, names))


def _dask(address: str, chunks, classes, with_findings: bool, names) -> Iterator[list]:
    """Chunks on an existing Dask cluster, at most 2 per worker thread in flight.
    A chunk that fails (its workers died more often than the scheduler's
    allowed-failures: KilledWorker) is run again one log per task, and a log
    that fails alone too is quarantined with the error."""
    from distributed import Client, as_completed

    args = (classes, with_findings, names)
    with Client(address) as client:
        threads = sum(client.nthreads().values()) or 1
        pending, chunk_of = as_completed(), {}

        def submit(chunk) -> None:
            fut = client.submit(extract_many, chunk, *args, pure=False)
            chunk_of[fut] = chunk
            pending.add(fut)

        chunks = iter(chunks)
        for chunk in itertools.islice(chunks, 2 * threads):
            submit(chunk)
        for fut in pending:
            chunk = chunk_of.pop(fut)
            try:
                result = fut.result()
            except Exception:  # noqa: BLE001 - lost workers; find the log below
                result = [_dask_alone(client, path, args) for path in chunk]
            fut.release()
            nxt = next(chunks, None)
            if nxt is not None:
                submit(nxt)
            yield result


def _dask_alone(client, path: str, args: tuple) -> dict:
    fut = client.submit(extract_many, [path], *args, pure=False)
    try:
        return fut.result()[0]
    except Exception as e:  # noqa: BLE001 - this log's task failed on its own
        return {"quarantine": quarantine_row(path, WorkerDiedError(
            f"the Dask task reading this log failed: {type(e).__name__}: {e}"))}
    finally:
        fut.release()


@dataclass
class Progress:
    """Progress and rate on stderr: a live line on a terminal, a line every
    `every` seconds otherwise, and a summary at the end."""
    total: int
    quiet: bool = False
    every: float = 30.0
    done: int = 0
    quarantined: int = 0
    start: float = field(default_factory=time.monotonic)
    _last: float = 0.0

    def update(self, n: int, q: int) -> None:
        self.done += n
        self.quarantined += q
        now = time.monotonic()
        tty = sys.stderr.isatty()
        if self.quiet or now - self._last < (0.5 if tty else self.every):
            return
        self._last = now
        end = "\r" if tty else "\n"
        print(self.line(now), end=end, file=sys.stderr, flush=True)

    def rate(self, now: Optional[float] = None) -> float:
        elapsed = (now or time.monotonic()) - self.start
        return self.done / elapsed if elapsed > 0 else 0.0

    def line(self, now: float) -> str:
        return (f"ingest: {self.done}/{self.total} logs, {self.quarantined} quarantined, "
                f"{self.rate(now):.0f} logs/s")

    def finish(self, ingested: int, quarantined: int, present: int) -> str:
        now = time.monotonic()
        text = (f"ingest: {ingested} ingested, {quarantined} quarantined, {present} already "
                f"present ({self.done} logs read in {now - self.start:.1f} s, "
                f"{self.rate(now):.0f} logs/s)")
        if not self.quiet:
            if sys.stderr.isatty():
                print(" " * 80, end="\r", file=sys.stderr)
            print(text, file=sys.stderr, flush=True)
        return text


@dataclass
class Result:
    ingested: int
    quarantined: int
    skipped: int        # already present: in the store, or a second path of a log listed
    batches: int
    seconds: float


def ingest(sources: Iterable[str], store: str, *, classes: Optional[StorageClasses] = None,
           workers: int = 0, dask: Optional[str] = None, batch: int = 2000,
           chunk: int = 32, with_findings: bool = True, quiet: bool = False,
           limit: Optional[int] = None, names: Optional[NameFilter] = None) -> Result:
    """Ingest every log under `sources` that the store does not hold yet.

    workers: local processes (0 = one per core; 1 = in this process).
    dask: address of a Dask scheduler; when given, workers is ignored.
    batch: logs per committed batch (a kill loses at most the batch in progress).
    limit: stop after this many new logs (for sampling and tests).
    names: keep only the records whose names pass this filter (the throw-away
    stores of job-stats/file-stats; a facility store keeps every record).
    """
    classes = classes or StorageClasses()
    found = find_logs(sources)   # a missing source stops here, before a store is made
    with Store(store) as st:
        todo, present = _new_logs(st, *found)
        if limit is not None:
            todo = todo[:limit]
        progress = Progress(total=len(todo), quiet=quiet)
        chunk = max(1, min(chunk, batch))
        chunks = _chunks(todo, chunk)
        if dask:
            results = _dask(dask, chunks, classes, with_findings, names)
        else:
            results = _local(chunks, classes, workers or os.cpu_count() or 1, with_findings, names)
        counts = {"ingested": 0, "quarantined": 0, "batches": 0}
        pending: list = []
        for chunk_results in results:
            pending += chunk_results
            progress.update(len(chunk_results), sum("quarantine" in r for r in chunk_results))
            if len(pending) >= batch:
                _commit(st, pending, counts)
                pending = []
        if pending:
            _commit(st, pending, counts)
        progress.finish(counts["ingested"], counts["quarantined"], present)
        return Result(counts["ingested"], counts["quarantined"], present, counts["batches"],
                      time.monotonic() - progress.start)


def _new_logs(st: Store, found: list, duplicates: int):
    """Of find_logs' result, ([paths of logs the store does not hold], how many
    paths were left out because their log is in the store or listed under
    another path)."""
    keys = st.keys()
    fresh = [(p, fid) for p, fid in found if log_key(p) not in keys]
    held = st.held([(i, fid) for i, (_, fid) in enumerate(fresh) if fid is not None])
    todo = [p for i, (p, _) in enumerate(fresh) if i not in held]
    return todo, len(found) - len(todo) + duplicates


def _commit(st: Store, results: List[dict], counts: dict) -> None:
    """Commit one batch of extract results; a log with a value no column holds
    is quarantined by checked_tables, never the whole batch refused."""
    data = checked_tables(results)
    quarantined = data["quarantine"].num_rows if "quarantine" in data else 0
    st.commit_arrow(data, {"logs": len(results)})
    counts["quarantined"] += quarantined
    counts["ingested"] += len(results) - quarantined
    counts["batches"] += 1
