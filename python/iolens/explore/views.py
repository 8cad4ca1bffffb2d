"""The page's data besides the timeline: job facts, files, transfer sizes,
offsets, bandwidth, idle gaps, phases, per-OST activity, findings, and for
every log the heat map and counter views (the only views of a log without DXT).

Everything here is computed from the index metadata, the pyramid and the small
counter modules, so its cost does not grow with the number of segments."""
from __future__ import annotations

from typing import List

import numpy as np

from .._text import bytes_by_name
from .findings import diagnosis_findings, per_rank, trace_stragglers
from .index import TraceIndex

MAX_POINTS = 512         # points of the bandwidth curve
PHASE_GAP_BINS = 0.02    # idle stretch (fraction of the pyramid's bins) that separates phases
TOP_GAPS = 10


def summary(log, idx: TraceIndex) -> dict:
    meta = idx.meta
    job = log.job
    out = {"job": {"nprocs": job["nprocs"], "run_time": job["run_time"], "jobid": job["jobid"],
                   "exe": log.exe, "log": log.path, "version": log.version},
           "has_dxt": idx.nseg > 0, "nseg": idx.nseg, "modules": meta["modules"],
           "lanes": meta["lanes"], "span": meta["span"]}
    out["heatmap"] = _heatmap(log)
    out["counters"] = _counter_views(log)
    if idx.nseg == 0:
        out["files"], out["findings"] = [], diagnosis_findings(log)
        return out
    out["files"] = _files(log, meta)
    out["sizes"] = {"buckets": len(meta["sizes"][0][0]), "posix": meta["sizes"][0],
                    "mpiio": meta["sizes"][1]}
    out["offsets"] = meta["offset_sample"]
    out["bandwidth"] = _bandwidth(idx)
    out["gaps"] = _gaps(idx)
    out["phases"] = _phases(idx)
    out["osts"] = _osts(out["files"])
    lt = meta["lane_totals"]
    totals = per_rank([lane["rank"] for lane in meta["lanes"]],
                      np.add(lt["read_bytes"], lt["write_bytes"]).tolist(), lt["busy"])
    out["findings"] = trace_stragglers(totals) + diagnosis_findings(log)
    out["lane_totals"] = lt
    return out


def _files(log, meta) -> List[dict]:
    ft = meta["file_totals"]
    layout = {}
    try:
        lus = log.lustre()
    except Exception:            # a damaged LUSTRE region must not hide the trace
        lus = None
    if lus is not None and len(lus):
        for _, row in lus[lus["component"] == 0].iterrows():
            layout[row["name"]] = (int(row.get("LUSTRE_COMP_STRIPE_SIZE", 0)),
                                   [int(o) for o in row["ost_ids"]])
    out = []
    for i, name in enumerate(meta["files"]):
        stripe, osts = layout.get(name, (0, []))
        out.append({"name": name, "read_bytes": ft["read_bytes"][i],
                    "write_bytes": ft["write_bytes"][i], "count": ft["count"][i],
                    "stripe_size": stripe, "osts": osts})
    return out


def _regroup(arr: np.ndarray, points: int) -> np.ndarray:
    """Sum groups of adjacent bins (last axis) so at most ``points`` remain."""
    n = arr.shape[-1]
    g = max(1, -(-n // points))
    pad = (-n) % g
    if pad:
        arr = np.concatenate([arr, np.zeros(arr.shape[:-1] + (pad,))], axis=-1)
    return arr.reshape(arr.shape[:-1] + (-1, g)).sum(axis=-1), g


def _bandwidth(idx: TraceIndex) -> dict:
    per_op = idx.pyr_bytes.sum(axis=1)              # [op, bin]
    grouped, g = _regroup(per_op, MAX_POINTS)
    width = idx.bin_width * g
    return {"width": width, "read": (grouped[0] / width).tolist(),
            "write": (grouped[1] / width).tolist()}


def _active_bins(idx: TraceIndex) -> np.ndarray:
    return idx.pyr_count.sum(axis=(0, 1)) > 0


def _runs(flags: np.ndarray):
    """(first, last+1) of every run of True."""
    edges = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]))


def _gaps(idx: TraceIndex) -> dict:
    w = idx.bin_width
    idle = _runs(~_active_bins(idx))
    idle.sort(key=lambda r: r[0] - r[1])
    lt = idx.meta["lane_totals"]
    span = idx.meta["span"]
    return {"global": [[a * w, b * w] for a, b in idle[:TOP_GAPS]],
            "lane_idle_fraction": [max(0.0, 1.0 - b / span) for b in lt["busy"]]}


def _phases(idx: TraceIndex) -> List[dict]:
    """Runs of activity separated by idle stretches of at least PHASE_GAP_BINS of the
    job; in each, the process with the least and the most I/O time."""
    active = _active_bins(idx)
    min_gap = max(1, int(len(active) * PHASE_GAP_BINS))
    runs = _runs(active)
    merged = []
    for a, b in runs:
        if merged and a - merged[-1][1] < min_gap:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    busy = idx.pyr_busy.sum(axis=0)                 # [lane, bin]
    nbytes = idx.pyr_bytes.sum(axis=(0, 1))
    lanes = idx.meta["lanes"]
    w = idx.bin_width
    out = []
    for a, b in merged:
        per_lane = busy[:, a:b].sum(axis=1)
        act = np.nonzero(per_lane > 0)[0]
        if not len(act):
            continue
        fast, slow = act[np.argmin(per_lane[act])], act[np.argmax(per_lane[act])]
        out.append({"t0": a * w, "t1": b * w, "bytes": float(nbytes[a:b].sum()),
                    "processes": int(len(act)),
                    "fastest": {"lane": int(fast), "rank": lanes[fast]["rank"],
                                "busy": float(per_lane[fast])},
                    "slowest": {"lane": int(slow), "rank": lanes[slow]["rank"],
                                "busy": float(per_lane[slow])}})
    return out


def _osts(files: List[dict]) -> List[dict]:
    """Traced bytes per OST, each file's bytes spread evenly over its stripes."""
    acc = {}
    for f in files:
        if f["osts"]:
            share = (f["read_bytes"] + f["write_bytes"]) / len(f["osts"])
            for o in f["osts"]:
                acc[o] = acc.get(o, 0.0) + share
    return [{"ost": o, "bytes": b} for o, b in sorted(acc.items())]


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


def _counter_views(log) -> dict:
    """Bytes read and written per rank (-1 = shared records) and the busiest files,
    from the POSIX, MPI-IO and STDIO counters."""
    out = {}
    for mod, rd, wr in (("POSIX", "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"),
                        ("MPI-IO", "MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN"),
                        ("STDIO", "STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN")):
        if mod not in log.modules:
            continue
        df = log.records(mod, columns=[rd, wr])
        by_rank = df.groupby("rank")[[rd, wr]].sum()
        by_file = bytes_by_name(df["name"], df[rd] + df[wr], missing="?")
        top = sorted(by_file.items(), key=lambda nt: -nt[1])[:20]   # stable: ties by name
        out[mod] = {"ranks": [int(r) for r in by_rank.index],
                    "read": by_rank[rd].astype(float).tolist(),
                    "write": by_rank[wr].astype(float).tolist(),
                    "top_files": [[n, float(t)] for n, t in top]}
    return out
