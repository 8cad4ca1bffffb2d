"""The reference the out-of-core indexer is checked against: the explorer's
index built the simple way, with both DXT modules decoded whole in memory
(``Log._c.dxt``), damaged segments dropped with the view's checks, one global stable argsort by start time and the summariser fed
the sorted columns at once.  This was the explorer's indexer before it streamed;
it needs ~60 bytes per segment, so it is used on test-sized traces only."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional

import numpy as np

from iolens import _frames
from iolens._meta import module_info
from iolens.explore.index import COLUMNS, INDEX_VERSION, MODULES, write_pyramid
from iolens.explore.index_build import damage_meta
from iolens.explore.summary_build import Summariser
from iolens.view.damage import Damage, segment_checks


def _module_arrays(log, mod_code: int, damage: Damage) -> Optional[dict]:
    info = module_info(MODULES[mod_code])
    if info.name not in log.modules:
        return None
    d = log._c.dxt(info.id)
    rec = _frames.view(d["seg_rec"], np.int64)
    if len(rec) == 0:
        return None
    seg = {"rec": rec, "start": _frames.view(d["start"], np.float64),
           "end": _frames.view(d["end"], np.float64),
           "offset": _frames.view(d["offset"], np.int64),
           "length": _frames.view(d["length"], np.int64)}
    bad, kinds = segment_checks(seg["start"], seg["end"], seg["offset"], seg["length"],
                                max(float(log.job["run_time"]), 0.0), info.name == "DXT_MPIIO")
    damage.add(info.name, kinds, int(bad.sum()), segments=True)
    keep = ~bad
    if not keep.any():
        return None
    names = log._name_lookup[_frames.view(d["name_code"], np.int32)]
    return {"rec": rec[keep], "rank_of_rec": _frames.view(d["rank"], np.int64),
            "host_of_rec": [d["hostnames"][c] for c in _frames.view(d["host_code"], np.int32)],
            "name_of_rec": [n if isinstance(n, str) else f"<record {i:#x}>"
                            for n, i in zip(names, _frames.view(d["id"], np.uint64))],
            "op": _frames.view(d["seg_write"], np.int8)[keep],
            "offset": _frames.view(d["offset"], np.int64)[keep],
            "length": _frames.view(d["length"], np.int64)[keep],
            "start": _frames.view(d["start"], np.float64)[keep],
            "end": _frames.view(d["end"], np.float64)[keep],
            "thread": (_frames.view(d["thread_id"], np.uint64)[keep]
                       if d["thread_id"] is not None else None)}


def _lane_keys(parts: List[dict]):
    hosts = {}
    for p in parts:
        for r, h in zip(p["rank_of_rec"], p["host_of_rec"]):
            hosts.setdefault(int(r), h)
    threaded = any(p["thread"] is not None and p["thread"].any() for p in parts)
    if not threaded:
        lane_ranks = np.unique(np.concatenate([p["rank_of_rec"] for p in parts]))
        lane = np.concatenate([np.searchsorted(lane_ranks, p["rank_of_rec"])
                               .astype(np.int32)[p["rec"]] for p in parts])
        lane_threads = [None] * len(lane_ranks)
    else:
        ranks = np.concatenate([p["rank_of_rec"][p["rec"]] for p in parts])
        threads = np.concatenate([p["thread"] if p["thread"] is not None
                                  else np.zeros(len(p["rec"]), np.uint64) for p in parts])
        keys, lane = np.unique(np.stack([ranks.astype(np.uint64), threads], axis=1), axis=0,
                               return_inverse=True)
        lane = lane.astype(np.int32).ravel()
        lane_ranks, lane_threads = keys[:, 0].astype(np.int64), [int(t) for t in keys[:, 1]]
    lanes = [{"rank": int(r), "thread": t, "host": hosts.get(int(r), "")}
             for r, t in zip(lane_ranks, lane_threads)]
    return lane, lanes


def _finite_max(a: np.ndarray) -> float:
    fin = a[np.isfinite(a)]
    return float(fin.max()) if len(fin) else 0.0


def build_in_memory(log, root: Path) -> None:
    """Write the index of ``log`` into the new directory ``root``."""
    root.mkdir(parents=True)
    damage = Damage()
    found = [(m, _module_arrays(log, m, damage)) for m in range(len(MODULES))]
    parts = [(m, p) for m, p in found if p is not None]
    meta = {"version": INDEX_VERSION, "log": os.path.realpath(log.path), "nseg": 0,
            "lanes": [], "files": [], "span": 1.0, "max_dur": 0.0,
            "modules": [n for n in MODULES if module_info(n).name in log.modules],
            "damage": damage_meta(damage), "regions": []}
    if not parts:
        write_pyramid(root, np.zeros((2, 0, 1), np.uint32), np.zeros((2, 0, 1)),
                      np.zeros((2, 0, 1)), np.zeros((2, 0, 1), np.uint32))
        np.save(root / "long.npy", np.zeros(0, np.int64))
        (root / "meta.json").write_text(json.dumps(meta))
        return
    cols = {"mod": np.concatenate([np.full(len(p["rec"]), m, np.int8) for m, p in parts])}
    parts = [p for _, p in parts]
    cols["lane"], meta["lanes"] = _lane_keys(parts)
    names = sorted({n for p in parts for n in p["name_of_rec"]})
    code = {n: i for i, n in enumerate(names)}
    cols["file"] = np.concatenate([np.asarray([code[n] for n in p["name_of_rec"]],
                                              np.int32)[p["rec"]] for p in parts])
    meta["files"] = names
    meta["span"] = max([_finite_max(p["end"]) for p in parts] + [1e-9])
    for name in ("start", "end", "op", "offset", "length"):
        cols[name] = np.concatenate([p[name] for p in parts])
    cols["region"] = np.full(len(cols["start"]), -1, np.int32)   # logs without segment regions
    order = np.argsort(cols["start"], kind="stable")
    cols = {k: np.ascontiguousarray(cols[k][order], COLUMNS[k]) for k in COLUMNS}
    meta["nseg"] = len(order)
    for k, v in cols.items():
        np.save(root / f"{k}.npy", v)
    s = Summariser(meta, len(meta["lanes"]), len(meta["files"]))
    s.feed(cols)
    s.finish()
    write_pyramid(root, *s.pyramid())
    long_after = meta["span"] / s.nb        # operations longer than one pyramid bin
    np.save(root / "long.npy", np.nonzero(cols["end"] - cols["start"] > long_after)[0])
    meta.update(s.views())
    (root / "meta.json").write_text(json.dumps(meta))
