"""Local worker processes that survive the death of one of them.

A worker can die while it reads a log: the out-of-memory killer, a crash, a
signal from an operator.  multiprocessing.Pool then waits forever for the lost
task (an ingest that hung after the OOM killer took a worker), so this uses
concurrent.futures, whose pool reports a dead worker (BrokenProcessPool).  The
chunks that were in flight are then read again one log at a time in a
one-worker pool: a log whose reader dies again goes to quarantine, the others
are read normally, and the remaining chunks go to a fresh pool.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator, List


class WorkerDiedError(RuntimeError):
    """The process reading a log died (killed, out of memory, crashed)."""


class _Lost(Exception):
    def __init__(self, chunks: List[list]):
        super().__init__(f"{len(chunks)} chunks lost with a worker")
        self.chunks = chunks


def _context():
    return multiprocessing.get_context("forkserver")


def _bounded(pool, run_chunk: Callable, chunks: Iterator[list], inflight: int,
             args: tuple) -> Iterator[list]:
    """Results of chunks as they finish, at most `inflight` submitted at a time.
    Raises _Lost with every unfinished submitted chunk when a worker dies."""
    futures = {}

    def submit() -> None:
        chunk = next(chunks, None)
        if chunk is None:
            return
        try:
            futures[pool.submit(run_chunk, chunk, *args)] = chunk
        except BrokenProcessPool:
            raise _Lost([chunk, *futures.values()]) from None

    for _ in range(inflight):
        submit()
    while futures:
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        for fut in done:
            chunk = futures.pop(fut)
            try:
                result = fut.result()
            except BrokenProcessPool:
                raise _Lost([chunk, *futures.values()]) from None
            yield result
            submit()


def _one_by_one(run_one: Callable, paths: List[str], args: tuple, quarantine_row) -> list:
    """Each log in a one-worker pool; a log whose worker dies is quarantined."""
    out, todo = [], list(paths)
    while todo:
        with ProcessPoolExecutor(1, mp_context=_context()) as pool:
            while todo:
                path = todo.pop(0)
                try:
                    out.append(pool.submit(run_one, path, *args).result())
                except BrokenProcessPool:
                    out.append({"quarantine": quarantine_row(path, WorkerDiedError(
                        "the process reading this log died (killed, out of memory or crashed)"))})
                    break
    return out


def local_results(run_chunk: Callable, run_one: Callable, chunks: Iterator[list], workers: int,
                  args: tuple) -> Iterator[list]:
    """run_chunk(chunk, *args) for every chunk on `workers` processes, results
    in completion order; a dead worker costs a re-read of the chunks in flight."""
    from .extract import quarantine_row
    chunks = iter(chunks)
    while True:
        try:
            with ProcessPoolExecutor(workers, mp_context=_context()) as pool:
                yield from _bounded(pool, run_chunk, chunks, 2 * workers, args)
            return
        except _Lost as lost:
            yield _one_by_one(run_one, [p for c in lost.chunks for p in c], args, quarantine_row)
