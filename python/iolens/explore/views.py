"""The page's data besides the timeline: job facts, files, transfer sizes,
offsets, bandwidth, idle gaps, phases, per-OST activity, findings, and for
every log the heat map and counter views (the only views of a log without DXT).

Job figures are the view's (iolens.view.JobView: intervals and per-OST sums
streamed over the trace in chunks, damaged records and segments set aside);
the rest comes from the index metadata, the pyramid and the small counter
modules, so memory does not grow with the number of segments."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from .._meta import module_info, trace_modules
from .._text import bytes_by_name
from ..derived import summary_modules
from ..view import JobView
from ..view.columns import amount
from ..view.ost import layouts
from .findings import diagnosis_findings, per_rank, trace_stragglers
from . import regions
from .index import TraceIndex, read_rows

MAX_POINTS = 512         # points of the bandwidth curve
PHASE_GAP = 0.02         # idle stretch (fraction of the run) that separates phases
TOP_GAPS = 10
PHASE_CHUNK = 1 << 20    # rows read at a time for the phases' per-lane I/O time


def summary(log, idx: TraceIndex, view: Optional[JobView] = None) -> dict:
    """The page's data.  Job figures (bandwidth, idle gaps, phases, per-OST
    activity) are the view's (iolens.view: from each operation's start and end,
    one layer, damaged segments set aside), streamed over the trace, never
    loaded whole; `view` is built here when not given."""
    view = view if view is not None else JobView(log)
    meta = idx.meta
    job = log.job
    out = {"job": {"nprocs": job["nprocs"], "run_time": view.run_time, "jobid": job["jobid"],
                   "exe": log.exe, "log": log.path, "version": log.version},
           "has_dxt": idx.nseg > 0, "nseg": idx.nseg, "modules": meta["modules"],
           "lanes": meta["lanes"], "span": meta["span"], "damage": _damage(view),
           "partial": [m for m in trace_modules() if log.partial.get(m)]}
    out["perf"] = _perf(view)
    out["heatmap"] = _heatmap(log)
    out["counters"] = _counter_views(view)
    out["regions"] = regions.bands(log, meta.get("regions", []))
    if idx.nseg == 0:
        out["files"], out["findings"] = [], diagnosis_findings(log)
        return out
    out["files"] = _files(view, meta)
    out["sizes"] = {"buckets": len(meta["sizes"][0][0]), "posix": meta["sizes"][0],
                    "mpiio": meta["sizes"][1]}
    out["offsets"] = meta["offset_sample"]
    out["bandwidth"] = _bandwidth(view)
    out["gaps"] = _gaps(view, idx)
    out["phases"] = _phases(view, idx)
    out["osts"] = _osts(view)
    lt = meta["lane_totals"]
    totals = per_rank([lane["rank"] for lane in meta["lanes"]],
                      np.add(lt["read_bytes"], lt["write_bytes"]).tolist(), lt["busy"])
    out["findings"] = trace_stragglers(totals) + diagnosis_findings(log)
    out["lane_totals"] = lt
    return out


def _perf(view: JobView) -> dict:
    """Per layer with darshan-parser figures: the view's ``--perf`` totals (bytes,
    I/O time by the slowest process, bandwidth in MiB/s), layers side by side."""
    out = {}
    for module in summary_modules():
        p = view.perf(module) if module in view.modules else None
        if p is not None:
            out[module] = {"bytes_read": p.bytes_read, "bytes_written": p.bytes_written,
                           "total_bytes": p.total_bytes,
                           "agg_time_by_slowest": p.agg_time_by_slowest,
                           "agg_perf_by_slowest": p.agg_perf_by_slowest}
    return out


def _damage(view: JobView) -> dict:
    """What the view set aside (records and segments), said in sentences."""
    return {"total": view.damage.total, "lines": view.damage.lines(), "notes": list(view.notes),
            **view.damage.to_dict()}


def _files(view: JobView, meta) -> List[dict]:
    ft = meta["file_totals"]
    layout = {}
    lus = view.lustre()
    if lus is not None and len(lus):
        for rid, comps in layouts(lus).items():
            layout[view.name(rid)] = [
                {"start": s, "end": -1 if e is None else e, "stripe_size": size,
                 "osts": [int(o) for o in osts]} for s, e, size, osts in comps]
    out = []
    for i, name in enumerate(meta["files"]):
        comps = layout.get(name, [])
        out.append({"name": name, "read_bytes": ft["read_bytes"][i],
                    "write_bytes": ft["write_bytes"][i], "count": ft["count"][i],
                    "components": comps,
                    "osts": sorted({o for c in comps for o in c["osts"]})})
    return out


def _regroup(arr: np.ndarray, points: int) -> np.ndarray:
    """Sum groups of adjacent bins (last axis) so at most ``points`` remain."""
    n = arr.shape[-1]
    g = max(1, -(-n // points))
    pad = (-n) % g
    if pad:
        arr = np.concatenate([arr, np.zeros(arr.shape[:-1] + (pad,))], axis=-1)
    return arr.reshape(arr.shape[:-1] + (-1, g)).sum(axis=-1), g


def _bandwidth(view: JobView) -> dict:
    """Bytes per second over time: the view's bytes in flight (each operation's
    bytes spread over its own duration, one layer), regrouped to MAX_POINTS."""
    iv = view.intervals
    flight = iv.in_flight()
    last = int(np.ceil(max(iv.busy_end.max() if len(iv.busy_end) else 0.0, iv.resolution)
                       / iv.resolution))
    moved = np.stack([flight["read_bytes"].to_numpy()[:last],
                      flight["write_bytes"].to_numpy()[:last]])
    grouped, g = _regroup(moved, MAX_POINTS)
    width = iv.resolution * g
    return {"width": width, "read": (grouped[0] / width).tolist(),
            "write": (grouped[1] / width).tolist(), "source": iv.source,
            "mean": iv.bandwidth(), "busy_seconds": iv.busy_seconds}


def _gaps(view: JobView, idx: TraceIndex) -> dict:
    """The longest idle gaps (no operation running on any process, from each
    operation's start and end) and each lane's idle fraction."""
    gaps = view.intervals.gaps().head(TOP_GAPS)
    lt = idx.meta["lane_totals"]
    span = idx.meta["span"]
    return {"global": gaps[["start", "end"]].to_numpy().tolist(),
            "resolution": view.intervals.resolution,
            "lane_idle_fraction": [min(1.0, max(0.0, 1.0 - b / span)) for b in lt["busy"]]}


def phase_busy(idx: TraceIndex, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """I/O seconds per (phase, lane): each operation's [start, end] clipped to
    the phase, read from the index columns in chunks (bounded memory), one layer
    per lane (its POSIX operations when it has timed ones, else its MPI-IO ones:
    an MPI-IO call and the POSIX calls under it are the same time).  An
    operation lies in the phase holding its start, or in the next one when it
    starts in the gap before it (phase edges are at the view's resolution)."""
    nph, nl = len(starts), idx.nlanes
    out = np.zeros(2 * nph * nl)                       # [module, phase, lane]
    for lo in range(0, idx.nseg, PHASE_CHUNK):
        hi = lo + PHASE_CHUNK
        start, end = read_rows(idx.cols["start"], lo, hi), read_rows(idx.cols["end"], lo, hi)
        lane = read_rows(idx.cols["lane"], lo, hi).astype(np.int64)
        mod = read_rows(idx.cols["mod"], lo, hi).astype(np.int64) & 1
        k = np.searchsorted(starts, start, "right") - 1
        for kk in (k, k + 1):
            ok = (kk >= 0) & (kk < nph)
            kk = np.where(ok, kk, 0)
            part = np.minimum(end, ends[kk]) - np.maximum(start, starts[kk])
            part = np.where(ok, np.clip(part, 0.0, None), 0.0)
            out += np.bincount((mod * nph + kk) * nl + lane, weights=part, minlength=out.size)
    out = out.reshape(2, nph, nl)
    posix = out[0].sum(axis=0) > 0
    return np.where(posix, out[0], out[1])


def _phases(view: JobView, idx: TraceIndex) -> List[dict]:
    """The view's phases (I/O separated by idle gaps of at least PHASE_GAP of the
    run); in each, the process with the least and the most I/O time (each
    operation's start and end clipped to the phase, ``phase_busy``)."""
    min_gap = PHASE_GAP * max(view.run_time, idx.meta["span"])
    phases = view.intervals.phases(min_gap)
    lanes = idx.meta["lanes"]
    busy = phase_busy(idx, phases["start"].to_numpy(np.float64),
                      phases["end"].to_numpy(np.float64))
    out = []
    for i, p in enumerate(phases.itertuples(index=False)):
        per_lane = busy[i]
        act = np.nonzero(per_lane > 0)[0]
        phase = {"t0": float(p.start), "t1": float(p.end),
                 "bytes": float(p.read_bytes + p.write_bytes),
                 "read_bytes": float(p.read_bytes), "write_bytes": float(p.write_bytes),
                 "processes": int(len(act))}
        if len(act):
            fast, slow = act[np.argmin(per_lane[act])], act[np.argmax(per_lane[act])]
            phase["fastest"] = {"lane": int(fast), "rank": lanes[fast]["rank"],
                                "busy": float(per_lane[fast])}
            phase["slowest"] = {"lane": int(slow), "rank": lanes[slow]["rank"],
                                "busy": float(per_lane[slow])}
        out.append(phase)
    return out


def _osts(view: JobView) -> List[dict]:
    """The view's per-OST bytes and time (every layout component, operations
    split over the stripes they touch, one layer per file)."""
    ost = view.ost
    return [{"ost": int(r.ost), "bytes": float(r.bytes), "bytes_read": float(r.bytes_read),
             "bytes_written": float(r.bytes_written), "read_time": float(r.read_time),
             "write_time": float(r.write_time), "files": int(r.files),
             "source": ost.attrs.get("source", "")}
            for r in ost.sort_values("ost").itertuples(index=False)]


def _heatmap(log) -> dict:
    try:
        hm = log.heatmap()
    except Exception:            # a damaged HEATMAP region: show the rest
        hm = None
    if hm is None or not len(hm):
        return {}
    api = "POSIX" if (hm["api"] == "POSIX").any() else str(hm["api"].iloc[0])
    hm = hm[hm["api"] == api]
    ranks = sorted(int(r) for r in hm["rank"].unique())
    nb = int(hm["bin"].max()) + 1
    mat = np.zeros((len(ranks), nb))
    pos = {r: i for i, r in enumerate(ranks)}
    rows = hm["rank"].map(pos).to_numpy()
    np.add.at(mat, (rows, hm["bin"].to_numpy()),
              (hm["read_bytes"] + hm["write_bytes"]).to_numpy(np.float64))
    grouped, g = _regroup(mat, MAX_POINTS)
    return {"api": api, "ranks": ranks, "width": float(hm["width"].iloc[0]) * g,
            "bytes": grouped.tolist()}


def _counter_views(view: JobView) -> dict:
    """Bytes read and written per rank (-1 = shared records) and the busiest files,
    per layer with darshan-parser figures (never added across layers), from the
    view's undamaged records ("not monitored", -1, read as 0)."""
    out = {}
    for mod in summary_modules():
        p = module_info(mod).prefix
        rd, wr = p + "BYTES_READ", p + "BYTES_WRITTEN"
        df = view.records(mod, columns=[rd, wr]) if mod in view.modules else None
        if df is None or not len(df):
            continue
        df = df.assign(**{rd: amount(df, rd), wr: amount(df, wr)})
        by_rank = df.groupby("rank")[[rd, wr]].sum()
        by_file = bytes_by_name(df["name"], df[rd] + df[wr], missing="?")
        top = sorted(by_file.items(), key=lambda nt: -nt[1])[:20]   # stable: ties by name
        out[mod] = {"ranks": [int(r) for r in by_rank.index],
                    "read": by_rank[rd].astype(float).tolist(),
                    "write": by_rank[wr].astype(float).tolist(),
                    "top_files": [[n, float(t)] for n, t in top]}
    return out
