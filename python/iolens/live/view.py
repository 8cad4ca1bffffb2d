"""Jobs on this node from their processes' live copies: totals and rates.

:class:`LiveView` keeps one :class:`CopyReader` per copy between rounds (so a
round reads only the records that changed) and the previous round's snapshots
(so that rates are differences over the interval).  Processes are grouped into
jobs by (owner uid, job id).
"""
from __future__ import annotations

import pwd
import resource
import time
from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np

from .copies import Listings, copy_dirs, find_copies
from .._core import LogError
from .._meta import layered_seconds
from .snapshot import FIGURES, LAYERS, CopyReader, NotReady, ProcessSnapshot

BUSIEST = 5
READS, WRITES, BYTES_READ, BYTES_WRITTEN, META_OPS = (
    FIGURES.index(k) for k in ("reads", "writes", "bytes_read", "bytes_written", "meta_ops"))
ZEROS = np.zeros(len(FIGURES))
ZEROS.flags.writeable = False


_USERS: Dict[int, str] = {}


def _user(uid: int) -> str:
    if uid not in _USERS:
        try:
            _USERS[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            _USERS[uid] = str(uid)
    return _USERS[uid]


def io_seconds(totals: Dict[str, Dict[str, float]]) -> float:
    """A process's I/O seconds from its per-layer figures, the layers combined as
    the log's view combines them (iolens._meta.layered_seconds): MPI-IO's time
    contains the POSIX time of the same calls, so it is never added to it."""
    return layered_seconds({LAYERS[layer][0]: f["read_seconds"] + f["write_seconds"]
                            + f["meta_seconds"] for layer, f in totals.items()})


def _allow_open_copies():
    """Each reader keeps its copy open (its records are read with pread): raise
    the soft limit of open files to the hard one, for nodes of thousands of
    processes (a copy that cannot be opened is skipped, not fatal)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


class LiveView:
    def __init__(self, dirs: Iterable[str] = (), moved: bool = True):
        """moved: the snapshots give bytes moved per record (CopyReader), for
        the busiest files; moved_jobs (None: all) narrows them to the
        processes of those job ids (`top` shows one job's files: the others'
        bytes per record are neither kept nor updated)."""
        _allow_open_copies()
        self.dirs = list(dirs)
        self.moved = moved
        self.moved_jobs: Optional[set] = None
        self.listings = Listings()
        self.readers: Dict[str, CopyReader] = {}
        self.prev: Dict[str, ProcessSnapshot] = {}
        self.now: Dict[str, ProcessSnapshot] = {}
        self.removed: List[ProcessSnapshot] = []   # last readings of copies gone this round
        self.interval = 0.0

    def close(self):
        for r in self.readers.values():
            r.close()
        self.readers.clear()

    def poll(self) -> Dict[str, ProcessSnapshot]:
        """Read every copy once; returns path -> snapshot (also in self.now)."""
        t = time.time()
        dirs = copy_dirs(self.dirs, self.listings)
        seen = {c.path: c for c in find_copies(dirs, self.readers, self.listings)}
        self.listings.round_done()
        self.removed = []
        for path in list(self.readers):
            # gone, or another file now at its name
            if path not in seen or seen[path].inode != self.readers[path].ino[1]:
                self.readers.pop(path).close()
                if path in self.now:
                    self.removed.append(self.now[path])
        for path, name in seen.items():
            if path not in self.readers:
                try:
                    self.readers[path] = CopyReader(name, moved=self.moved)
                except (NotReady, OSError, ValueError):
                    continue
        self.prev = self.now
        self.now = {}
        for path, r in self.readers.items():
            try:
                r.keep_moved(self.moved and (self.moved_jobs is None or
                                             r.jobid in self.moved_jobs))
                self.now[path] = r.snapshot(t)
            except (ValueError, IndexError, OSError, LogError):
                continue                  # a copy torn down under us: next round
        old = [s.taken for s in self.prev.values()]
        self.interval = t - max(old) if old else 0.0
        return self.now

    # ----------------------------------------------------------- summaries
    def _vectors(self, procs: List[ProcessSnapshot]) -> Dict[Tuple[str, str], tuple]:
        """(path, layer) -> (figures, rates over the interval), lists in
        FIGURES order, for every layer of procs: made with one array operation
        for them all, not a few per process (the job summaries of a node of
        single-process jobs were as long as reading their copies)."""
        keys, cur, old, dt = [], [], [], []
        for s in procs:
            p = self.prev.get(s.path)
            fresh = p is None or s.taken <= p.taken          # no rate yet: 0
            for layer, r in s.layers.items():
                keys.append((s.path, layer))
                cur.append(r.sums)
                was = r.sums if fresh else \
                    p.layers[layer].sums if layer in p.layers else ZEROS
                old.append(was)
                dt.append(1.0 if fresh else s.taken - p.taken)
        if not keys:
            return {}
        now = np.array(cur)
        rates = np.maximum(now - np.array(old), 0.0) / np.array(dt)[:, None]
        return dict(zip(keys, zip(now.tolist(), rates.tolist())))

    def _rates(self, s: ProcessSnapshot) -> Dict[str, Dict[str, float]]:
        p = self.prev.get(s.path)
        cur = s.totals()
        if p is None or s.taken <= p.taken:
            return {layer: {k: 0.0 for k in FIGURES} for layer in cur}
        dt = s.taken - p.taken
        before = p.totals()
        return {layer: {k: max(0.0, v - before.get(layer, {}).get(k, 0.0)) / dt
                        for k, v in figs.items()} for layer, figs in cur.items()}

    def _process(self, s: ProcessSnapshot, t: float) -> dict:
        totals = s.totals()
        last = s.last_io
        dead = not s.alive and not s.finished
        return {
            "pid": s.pid, "rank": s.rank, "copy": s.path, "start": s.start,
            "alive": s.alive, "finished": s.finished,
            "state": "running" if s.alive else ("finished" if s.finished else "dead"),
            "recover": f"iolens recover {s.path}" if dead else None,
            "last_io_ago": None if last is None else max(0.0, t - last),
            "partial": s.partial, "busy_records": s.busy, "checked": s.checked,
            "io_seconds": io_seconds(totals),
            "totals": totals, "rates": self._rates(s),
        }

    def _busiest(self, procs: List[ProcessSnapshot]) -> List[dict]:
        """The files with most bytes moved in the interval (in total when there
        is no earlier round), over the job's processes, by name."""
        by_name: Dict[Tuple[str, str], List[float]] = {}
        for s in procs:
            p = self.prev.get(s.path)
            reader = self.readers.get(s.path)
            for layer, recs in s.layers.items():
                moved = recs.moved
                if moved is None:              # not kept for this job (moved_jobs)
                    continue
                # an earlier reading to take the interval's bytes from: none
                # when its bytes per record were not kept (the job was not asked)
                had = p is not None and (layer not in p.layers or
                                         p.layers[layer].moved is not None)
                delta = moved.copy()
                if had and layer in p.layers:
                    old = p.layers[layer].moved
                    delta[:len(old)] -= old
                k = min(BUSIEST, len(moved))
                pick = np.argsort(-(delta if had else moved), kind="stable")[:k]
                for i in pick:
                    if moved[i] <= 0:
                        continue
                    rid = recs.record_id(int(i))
                    name = reader.name_of(rid) if reader else hex(rid)
                    acc = by_name.setdefault((name, layer), [0.0, 0.0])
                    acc[0] += float(moved[i])
                    acc[1] += float(delta[i]) if had else 0.0
        dt = self.interval or 1.0
        rows = [{"file": n, "layer": layer, "bytes": v[0], "bytes_per_s": v[1] / dt}
                for (n, layer), v in by_name.items()]
        rows.sort(key=lambda r: (-r["bytes_per_s"], -r["bytes"], r["file"]))
        return rows[:BUSIEST]

    @staticmethod
    def _summary(uid: int, jobid: int, procs: List[ProcessSnapshot], vectors, t: float) -> dict:
        """A job's summary: its processes' figures and rates (from _vectors)
        summed per layer, in the processes' order; its processes' states."""
        tot_v: Dict[str, list] = {}
        rate_v: Dict[str, list] = {}
        nprocs, alive, dead, start, partial = 0, 0, 0, procs[0].start, set()
        for s in procs:
            for layer in s.layers:
                tot, rate = vectors[(s.path, layer)]
                if layer in tot_v:
                    tot = [a + b for a, b in zip(tot_v[layer], tot)]
                    rate = [a + b for a, b in zip(rate_v[layer], rate)]
                tot_v[layer], rate_v[layer] = tot, rate
            nprocs, start = max(nprocs, s.nprocs), min(start, s.start)
            alive += s.alive
            dead += not s.alive and not s.finished
            if s.partial:
                partial.update(s.partial)
        layers = sorted(tot_v)
        rates = [rate_v[layer] for layer in layers]
        return {
            "jobid": jobid, "uid": uid, "user": _user(uid), "exe": procs[0].exe,
            "processes": len(procs), "nprocs": nprocs, "alive": alive, "dead": dead,
            "running_seconds": max(0.0, t - start),
            "totals": {layer: dict(zip(FIGURES, tot_v[layer])) for layer in layers},
            "rates": {layer: dict(zip(FIGURES, r)) for layer, r in zip(layers, rates)},
            "bytes_per_s": sum([r[BYTES_READ] + r[BYTES_WRITTEN] for r in rates]),
            "ops_per_s": sum([r[READS] + r[WRITES] for r in rates]),
            "meta_ops_per_s": sum([r[META_OPS] for r in rates]),
            "partial": sorted(partial),
        }

    def jobs(self, detail=None, only=None) -> List[dict]:
        """One summary per job, busiest first.  The jobs whose id is in
        `detail` (all when detail is True) also get their busiest files,
        slowest process and processes (by rank then pid).  `only`: the ids of
        the jobs summed (all when None)."""
        t = time.time()
        groups: Dict[Tuple[int, int], List[ProcessSnapshot]] = {}
        for s in self.now.values():
            if only is None or s.jobid in only:
                groups.setdefault((s.uid, s.jobid), []).append(s)
        vectors = self._vectors([s for procs in groups.values() for s in procs])
        out = []
        for (uid, jobid), procs in groups.items():
            if len(procs) > 1:
                procs.sort(key=lambda s: (s.rank, s.pid))
            job = self._summary(uid, jobid, procs, vectors, t)
            if detail is True or (detail and jobid in detail):
                rows = [self._process(s, t) for s in procs]
                slowest = max(rows, key=lambda r: r["io_seconds"])
                job.update(busiest_files=self._busiest(procs), processes_detail=rows,
                           slowest_process={"pid": slowest["pid"], "rank": slowest["rank"],
                                            "io_seconds": slowest["io_seconds"]})
            out.append(job)
        out.sort(key=lambda j: (-j["bytes_per_s"], j["jobid"]))
        return out


def snapshot_once(dirs: Iterable[str] = (), interval: float = 1.0) -> dict:
    """Two rounds `interval` apart: every job with totals and rates."""
    view = LiveView(dirs)
    try:
        view.poll()
        if interval > 0:
            time.sleep(interval)
            view.poll()
        return {"time": time.time(), "interval": view.interval, "jobs": view.jobs(detail=True)}
    finally:
        view.close()


def job_of(jobs: List[dict], jobid: Optional[int]) -> Optional[dict]:
    for j in jobs:
        if jobid is None or j["jobid"] == jobid:
            return j
    return None
