"""What both export formats hold, built once from the explorer's index:
processes, tracks, slices in viewer order, counter series and job metadata.

The index holds no damaged segment (index_build skips them, meta["damage"]
counts them; the metadata's "damage" entry says so); the counter series are
the view's bandwidth (iolens.view), never a sum over layers."""
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


def build(log, idx, view=None) -> TraceModel:
    """The model of the index's (undamaged) segments; job counters from the view
    of the log (iolens.view.JobView, built here when not given)."""
    if view is None:
        from ..view import JobView
        view = JobView(log)
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
    if damage_note(idx):
        metadata["damage"] = damage_note(idx)
    model = TraceModel(cols, idx.meta["files"], start_ns, end_ns, track_of, track_list,
                       ranks, metadata)
    model.counters = _counters(view)
    return model


def _counters(view) -> Dict[str, tuple]:
    """The view's bandwidth over time (bytes/s: each operation's bytes spread
    over its own duration, one layer, damaged segments set aside), total, read
    and write, at most COUNTER_POINTS samples."""
    iv = view.intervals
    if not iv.operations:
        return {}
    flight = iv.in_flight()
    last = int(np.ceil(max(float(iv.busy_end.max()), iv.resolution) / iv.resolution))
    moved = np.stack([flight["read_bytes"].to_numpy()[:last],
                      flight["write_bytes"].to_numpy()[:last]])
    group = max(1, -(-moved.shape[1] // COUNTER_POINTS))
    pad = (-moved.shape[1]) % group
    moved = np.concatenate([moved, np.zeros((2, pad))], axis=1)
    moved = moved.reshape(2, -1, group).sum(axis=2)
    width = iv.resolution * group
    times = np.round(np.arange(moved.shape[1]) * width * 1e9).astype(np.int64)
    return {"bandwidth": ("bytes/s", times, (moved[0] + moved[1]) / width),
            "read bandwidth": ("bytes/s", times, moved[0] / width),
            "write bandwidth": ("bytes/s", times, moved[1] / width)}


def damage_note(idx) -> str:
    """The index's damaged segments (skipped, never exported), in one sentence."""
    dmg = idx.meta.get("damage", {})
    parts = []
    for module, n in dmg.get("set_aside", {}).items():
        kinds = ", ".join(f"{k} {v}" for k, v in dmg.get("segments", {}).get(module, {}).items())
        parts.append(f"{module}: {n} damaged segments skipped ({kinds})")
    return "; ".join(parts)
