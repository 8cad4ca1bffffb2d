"""What both export formats hold, built once from the explorer's index:
processes, tracks, slices in viewer order, counter series and job metadata."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np

from ..explore.index import MODULES, OPS
from . import tracks

COUNTER_POINTS = 2000


@dataclass
class Track:
    uuid: int
    rank: int
    thread: object
    number: int          # track within its lane (0 = first)

    @property
    def name(self) -> str:
        base = f"thread {self.thread}" if self.thread is not None else "I/O"
        return base if self.number == 0 else f"{base} (overlap {self.number})"


@dataclass
class TraceModel:
    cols: Dict[str, np.ndarray]
    files: List[str]
    start_ns: np.ndarray
    end_ns: np.ndarray
    track_of: np.ndarray              # per segment: index into tracks
    tracks: List[Track]
    ranks: Dict[int, str]             # rank -> process name
    metadata: Dict[str, str]
    counters: Dict[str, tuple] = field(default_factory=dict)   # name -> (unit, times ns, values)

    def slice_name(self, i: int) -> str:
        return f"{'MPI-IO' if self.cols['mod'][i] == 1 else 'POSIX'} {OPS[self.cols['op'][i]]}"

    def events(self):
        """(ts ns, is_begin, segment, track index) for every slice, in time order
        (per track in nesting order; tracks merged by timestamp)."""
        by_track: Dict[int, list] = {}
        seq = tracks.order(self.start_ns, self.end_ns, self.cols["mod"])
        for i in seq.tolist():
            by_track.setdefault(int(self.track_of[i]), []).append(
                (int(self.start_ns[i]), int(self.end_ns[i]), i))
        streams = [_tagged(tracks.walk(sl), t) for t, sl in by_track.items()]
        return heapq.merge(*streams, key=lambda ev: ev[0])


def _tagged(events, track: int):
    for ts, begin, i in events:
        yield ts, begin, i, track


def build(log, idx) -> TraceModel:
    cols = {k: np.asarray(v) for k, v in idx.cols.items()}
    start_ns = np.round(cols["start"] * 1e9).astype(np.int64)
    end_ns = np.maximum(np.round(cols["end"] * 1e9).astype(np.int64), start_ns)
    seq = tracks.order(start_ns, end_ns, cols["mod"])
    number = tracks.assign(cols["lane"], start_ns, end_ns, cols["mod"], seq)
    lanes = idx.meta["lanes"]
    keys = {}
    track_list: List[Track] = []
    track_of = np.zeros(len(number), np.int32)
    for i, (lane, k) in enumerate(zip(cols["lane"].tolist(), number.tolist())):
        t = keys.get((lane, k))
        if t is None:
            t = keys[(lane, k)] = len(track_list)
            track_list.append(Track(uuid=1000 + t, rank=lanes[lane]["rank"],
                                    thread=lanes[lane]["thread"], number=k))
        track_of[i] = t
    ranks = {}
    for lane in lanes:
        host = f" ({lane['host']})" if lane["host"] else ""
        ranks.setdefault(lane["rank"], f"rank {lane['rank']}{host}")
    job = log.job
    metadata = {"exe": log.exe, "nprocs": str(job["nprocs"]), "jobid": str(job["jobid"]),
                "uid": str(job["uid"]), "start_time": str(job["start_time_sec"]),
                "end_time": str(job["end_time_sec"]), "run_time": f"{job['run_time']:.4f}",
                "log_version": log.version, "modules": ",".join(idx.meta["modules"])}
    metadata.update({f"metadata.{k}": v for k, v in job["metadata"].items()})
    model = TraceModel(cols, idx.meta["files"], start_ns, end_ns, track_of, track_list,
                       ranks, metadata)
    model.counters = _counters(cols, start_ns, end_ns)
    return model


def _counters(cols, start_ns, end_ns) -> Dict[str, tuple]:
    """Bytes in flight (sampled exactly at COUNTER_POINTS instants) and bandwidth
    (bytes of the operations that start in each interval / interval length)."""
    if len(start_ns) == 0:
        return {}
    t_end = int(end_ns.max())
    grid = np.linspace(0, t_end, COUNTER_POINTS + 1).astype(np.int64)
    length = np.clip(cols["length"], 0, None).astype(np.float64)
    by_start = np.argsort(start_ns, kind="stable")
    by_end = np.argsort(end_ns, kind="stable")
    started = np.concatenate([[0.0], np.cumsum(length[by_start])])
    ended = np.concatenate([[0.0], np.cumsum(length[by_end])])
    n_started = np.searchsorted(start_ns[by_start], grid, "right")
    n_ended = np.searchsorted(end_ns[by_end], grid, "right")
    inflight = started[n_started] - ended[n_ended]
    edges = grid.copy()
    edges[-1] += 1                     # the last interval includes the last instant
    per_bin = np.diff(started[np.searchsorted(start_ns[by_start], edges, "left")])
    width_s = max(1e-9, (grid[1] - grid[0]) / 1e9) if len(grid) > 1 else 1.0
    return {"bytes in flight": ("bytes", grid, np.round(inflight)),
            "bandwidth": ("bytes/s", grid[:-1], per_bin / width_s)}
