"""`iolens fleet ingest`: find logs, extract them in parallel, commit in batches.

Work runs on local processes (multiprocessing) or on an existing Dask
distributed cluster; either way the same `extract_many` runs on chunks of
paths and the results come back here, where a single writer commits them in
batches (store.Store.commit).  Memory is bounded by the number of chunks in
flight and the batch size, not by the number of logs.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Optional

from .classes import StorageClasses
from .extract import extract, log_key
from .names import NameFilter
from .store import Store

LOG_SUFFIXES = (".darshan",)


def find_logs(sources: Iterable[str]) -> List[str]:
    """Log files under each source (a directory, walked recursively, or a file),
    sorted so that every run sees them in the same order."""
    out = []
    for src in sources:
        if os.path.isdir(src):
            for d, _dirs, names in os.walk(src):
                out += [os.path.join(d, n) for n in names if n.endswith(LOG_SUFFIXES)]
        elif os.path.exists(src):
            out.append(src)
        else:
            raise FileNotFoundError(f"no such log or directory: {src}")
    return sorted(set(out))


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
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Pool(workers) as pool:
        args = ((c, classes, with_findings, names) for c in chunks)
        yield from pool.imap_unordered(_star, args)


def _star(args):
    return extract_many(*args)


def _dask(address: str, chunks, classes, with_findings: bool, names) -> Iterator[list]:
    """Chunks on an existing Dask cluster, at most 2 per worker thread in flight."""
    from distributed import Client, as_completed

    with Client(address) as client:
        threads = sum(client.nthreads().values()) or 1
        pending = as_completed()
        chunks = iter(chunks)
        for chunk in itertools.islice(chunks, 2 * threads):
            pending.add(client.submit(extract_many, chunk, classes, with_findings, names, pure=False))
        for fut in pending:
            result = fut.result()
            fut.release()
            nxt = next(chunks, None)
            if nxt is not None:
                pending.add(client.submit(extract_many, nxt, classes, with_findings, names, pure=False))
            yield result


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

    def finish(self, skipped: int) -> str:
        now = time.monotonic()
        text = (f"ingest: {self.done} logs in {now - self.start:.1f} s "
                f"({self.rate(now):.0f} logs/s), {self.quarantined} quarantined, "
                f"{skipped} already in the store")
        if not self.quiet:
            if sys.stderr.isatty():
                print(" " * 80, end="\r", file=sys.stderr)
            print(text, file=sys.stderr, flush=True)
        return text


@dataclass
class Result:
    ingested: int
    quarantined: int
    skipped: int
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
    with Store(store) as st:
        known = st.keys()
        paths = find_logs(sources)
        todo = [p for p in paths if log_key(p) not in known]
        if limit is not None:
            todo = todo[:limit]
        progress = Progress(total=len(todo), quiet=quiet)
        chunk = max(1, min(chunk, batch))
        chunks = _chunks(todo, chunk)
        if dask:
            results = _dask(dask, chunks, classes, with_findings, names)
        else:
            results = _local(chunks, classes, workers or os.cpu_count() or 1, with_findings, names)
        buf = {"jobs": [], "files": [], "quarantine": [], "findings": []}
        pending = batches = ingested = quarantined = 0
        for chunk_results in results:
            q = 0
            for r in chunk_results:
                if "quarantine" in r:
                    buf["quarantine"].append(r["quarantine"])
                    q += 1
                    continue
                buf["jobs"].append(r["job"])
                if r["files"]:
                    buf["files"].append(r["files"])
                buf["findings"] += r.get("findings", [])
            pending += len(chunk_results)
            quarantined += q
            ingested += len(chunk_results) - q
            progress.update(len(chunk_results), q)
            if pending >= batch:
                st.commit(buf, {"logs": pending})
                batches += 1
                buf = {k: [] for k in buf}
                pending = 0
        if pending:
            st.commit(buf, {"logs": pending})
            batches += 1
        progress.finish(len(paths) - len(todo))
        return Result(ingested, quarantined, len(paths) - len(todo), batches,
                      time.monotonic() - progress.start)
