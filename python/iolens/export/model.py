"""What both export formats write, streamed: the selected operations in
viewer order (source.TraceSource, placement.Placement), the job metadata with
the partial flag and the damage set aside, and the bandwidth counters.

Damaged segments are never exported (the view's rules, iolens.view.damage);
the metadata's "damage" entry and a line on stderr say how many and why.  The
counters are the view's bandwidth over the exported operations (bytes/s, each
operation's bytes spread over its own duration, one layer: POSIX when traced,
else MPI-IO), never a sum over layers."""
from __future__ import annotations

from typing import Dict

import numpy as np

from .placement import Placement
from .source import Selection, TraceSource

COUNTER_POINTS = 2000


class Export:
    """One log's export; ``batches()`` may be iterated once."""

    def __init__(self, log, selection: Selection = Selection(), **sizes):
        self.source = TraceSource(log, selection, **sizes)
        self.files = self.source.files
        self.placement = Placement(self.source.lanes)
        self._hosts = {ln["rank"]: ln["host"] for ln in reversed(self.source.lanes)}
        self.metadata = _metadata(log, self.source, selection, self.damage_note())

    @property
    def nseg(self) -> int:
        return self.source.nseg

    def process_name(self, rank: int) -> str:
        host = self._hosts.get(rank)
        return f"rank {rank} ({host})" if host else f"rank {rank}"

    def batches(self):
        return self.placement.batches(self.source.pieces())

    def close(self) -> None:
        self.source.close()

    def damage_note(self) -> str:
        """The damaged segments (skipped, never exported), in one sentence."""
        dmg = self.source.damage_meta()
        parts = []
        for module, n in dmg.get("set_aside", {}).items():
            kinds = ", ".join(f"{k} {v}" for k, v in dmg["segments"].get(module, {}).items()
                              if v)
            parts.append(f"{module}: {n} damaged segments skipped ({kinds})")
        return "; ".join(parts)

    def counters(self) -> Dict[str, tuple]:
        """name -> (unit, times ns, values): bandwidth, read and write bandwidth,
        at most COUNTER_POINTS samples."""
        iv = self.source.bandwidth
        if iv is None:
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


def _metadata(log, source: TraceSource, selection: Selection, damage: str) -> Dict[str, str]:
    job = log.job
    partial = sorted(log.partial)
    meta = {"exe": log.exe, "nprocs": str(job["nprocs"]), "jobid": str(job["jobid"]),
            "uid": str(job["uid"]), "start_time": str(job["start_time_sec"]),
            "end_time": str(job["end_time_sec"]), "run_time": f"{job['run_time']:.4f}",
            "log_version": log.version, "modules": ",".join(source.modules),
            "partial": "yes: " + ",".join(partial) if partial else "no"}
    meta.update({f"metadata.{k}": v for k, v in job["metadata"].items()})
    if not selection.everything:
        meta["selection"] = describe(selection)
    if damage:
        meta["damage"] = damage
    return meta


def describe(selection: Selection) -> str:
    parts = []
    if selection.t0 > 0 or selection.t1 != float("inf"):
        parts.append(f"time {selection.t0:g}:{selection.t1:g} s")
    if selection.ranks is not None:
        parts.append(f"{len(selection.ranks)} ranks")
    if selection.files is not None:
        parts.append(f"files {selection.files}")
    return "; ".join(parts)
