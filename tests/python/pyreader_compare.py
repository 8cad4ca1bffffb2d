"""Field-by-field comparison of an iolens.Log with a PyDarshan report of the same log.

compare(report, log, allowed) returns (problems, seen): every difference that is
not an allowed PyDarshan deviation is a problem; `seen` is the set of allowed
(module, counter) deviations that actually occurred.  PyDarshan keeps only
records whose id has a name, so our records without a name are left out here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Set, Tuple

import numpy as np
import pandas as pd

import iolens

ALLOW_FILE = Path(__file__).with_name("allowed-pydarshan-deviations.txt")
KINDS = ("zeroed", "unswapped")


def load_allowed() -> Dict[str, Dict[Tuple[str, str], str]]:
    """log (relative to corpus/logs) -> {(module, counter): kind}."""
    out: Dict[str, Dict[Tuple[str, str], str]] = {}
    for line in ALLOW_FILE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        log, module, counter, kind, _reason = line.split("\t", 4)
        assert kind in KINDS, f"unknown deviation kind {kind!r} in {ALLOW_FILE.name}"
        out.setdefault(log, {})[(module, counter)] = kind
    return out


def _same_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact equality, NaN equal to NaN, 0.0 different from -0.0."""
    return ((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))


def _byteswapped(ours: np.ndarray) -> np.ndarray:
    return ours.astype(np.float64).byteswap()


def _deviation_ok(kind: str, ours: float, theirs: float) -> bool:
    if kind == "zeroed":
        return theirs == 0.0 and not np.signbit(theirs)
    swapped = _byteswapped(np.array([ours]))[0]
    return bool(_same_float(np.array([swapped]), np.array([theirs]))[0])


def compare_job(r, log: iolens.Log, probs: List[str]) -> None:
    for key, value in r.metadata["job"].items():
        ours = log.job.get(key)
        if ours != value:
            probs.append(f"job[{key!r}]: ours {ours!r}, pydarshan {value!r}")
    if log.exe != r.metadata["exe"]:
        probs.append(f"exe: ours {log.exe!r}, pydarshan {r.metadata['exe']!r}")
    if log.mounts != list(r.mounts):
        probs.append("mount table differs")
    theirs = {k: (v["idx"], v["ver"], v["partial_flag"], v["len"]) for k, v in r.modules.items()}
    ours = {k: (v["id"], v["version"], v["partial"], v["length"]) for k, v in log.modules.items()}
    if ours != theirs:
        probs.append(f"modules: ours {ours}, pydarshan {theirs}")
    if log.names != r.name_records:
        probs.append("name table differs")


def compare_counters(module: str, coll, log: iolens.Log, allowed: Dict[Tuple[str, str], str],
                     probs: List[str], seen: Set[Tuple[str, str]]) -> None:
    coll = coll._records  # PyDarshan 3.5.0 keeps the plain record dicts here
    info = iolens.module_info(module)
    df = log.records(module)
    df = df[df["name"].notna()].reset_index(drop=True)
    if len(df) != len(coll):
        probs.append(f"{module}: {len(df)} named records, pydarshan {len(coll)}")
        return
    if not len(df):
        return
    ids = np.array([rec["id"] for rec in coll], dtype=np.uint64)
    ranks = np.array([rec["rank"] for rec in coll], dtype=np.int64)
    if not np.array_equal(ids, df["id"].to_numpy()) or not np.array_equal(ranks, df["rank"].to_numpy()):
        probs.append(f"{module}: record ids or ranks differ")
        return
    if "file_rec_id" in coll[0]:
        frid = np.array([rec["file_rec_id"] for rec in coll], dtype=np.uint64)
        if not np.array_equal(frid, df["file_rec_id"].to_numpy()):
            probs.append(f"{module}: file_rec_id differs")
    pc = np.stack([rec["counters"] for rec in coll])
    oc = df[list(info.counters)].to_numpy()
    for row, col in np.argwhere(pc != oc):
        probs.append(f"{module} {info.counters[col]} record {row}: ours {oc[row, col]}, "
                     f"pydarshan {pc[row, col]}")
    pf = np.stack([rec["fcounters"] for rec in coll])
    of = df[list(info.fcounters)].to_numpy()
    for row, col in np.argwhere(~_same_float(pf, of)):
        key = (module, info.fcounters[col])
        if key in allowed and _deviation_ok(allowed[key], of[row, col], pf[row, col]):
            seen.add(key)
        else:
            probs.append(f"{module} {key[1]} record {row}: ours {of[row, col]!r}, "
                         f"pydarshan {pf[row, col]!r}")


def _segments(segs) -> list:
    return segs.to_dict("records") if isinstance(segs, pd.DataFrame) else list(segs)


def compare_dxt(module: str, coll, log: iolens.Log, probs: List[str]) -> None:
    coll = coll._records
    recs = log.dxt_records(module)
    recs = recs[recs["name"].notna()].reset_index(drop=True)
    if len(recs) != len(coll):
        probs.append(f"{module}: {len(recs)} named records, pydarshan {len(coll)}")
        return
    theirs = []
    for rec in coll:
        for op, key in (("write", "write_segments"), ("read", "read_segments")):
            theirs += [(int(rec["id"]), int(rec["rank"]), rec["hostname"], op, int(s["offset"]),
                        int(s["length"]), float(s["start_time"]), float(s["end_time"]))
                       for s in _segments(rec[key])]
    seg = log.dxt(module)
    seg = seg[seg["name"].notna()]
    ours = list(zip(seg["id"].tolist(), seg["rank"].tolist(), seg["hostname"].astype(object),
                    seg["op"].astype(object), seg["offset"].tolist(), seg["length"].tolist(),
                    seg["start"].tolist(), seg["end"].tolist()))
    if ours != theirs:
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
        probs.append(f"{module}: segments differ ({len(ours)} vs {len(theirs)}; first at {first})")
    counts = [(int(rec["write_count"]), int(rec["read_count"])) for rec in coll]
    if counts != list(zip(recs["write_count"].tolist(), recs["read_count"].tolist())):
        probs.append(f"{module}: write/read counts differ")


def compare_heatmap(r, log: iolens.Log, probs: List[str]) -> None:
    hm = log.heatmap()
    if set(hm["api"].astype(object)) != set(r.heatmaps):
        probs.append(f"heatmap APIs: ours {set(hm['api'])}, pydarshan {set(r.heatmaps)}")
    for api, h in r.heatmaps.items():
        sub = hm[hm["api"] == api]
        if set(sub["rank"].tolist()) != set(h._ranks):
            probs.append(f"heatmap {api}: ranks differ")
        for op in ("read", "write"):
            for rank, bins in h._data[op].items():
                mine = sub[sub["rank"] == rank]
                if not np.array_equal(mine[op + "_bytes"].to_numpy(), bins):
                    probs.append(f"heatmap {api} rank {rank}: {op} bins differ")
                if len(mine) and (mine["width"].iloc[0] != h._bin_width_seconds
                                  or len(mine) != h._nbins):
                    probs.append(f"heatmap {api} rank {rank}: width or bin count differs")


def compare_lustre(coll, log: iolens.Log, probs: List[str]) -> None:
    theirs = coll.to_df()["components"]
    ours = log.lustre()
    ours = ours[ours["name"].notna()].reset_index(drop=True)
    cols = list(iolens.module_info("LUSTRE").counters)
    if len(theirs) != len(ours):
        probs.append(f"LUSTRE: {len(ours)} components, pydarshan {len(theirs)}")
        return
    if not np.array_equal(theirs[cols].to_numpy(), ours[cols].to_numpy()):
        probs.append("LUSTRE: component counters differ")
    if theirs["LUSTRE_POOL_NAME"].tolist() != ours["pool_name"].tolist():
        probs.append("LUSTRE: pool names differ")
    if [list(a) for a in theirs["LUSTRE_OST_IDS"]] != [list(a) for a in ours["ost_ids"]]:
        probs.append("LUSTRE: OST ids differ")
    if (theirs["id"].astype(np.uint64).tolist() != ours["id"].tolist()
            or theirs["rank"].tolist() != ours["rank"].tolist()):
        probs.append("LUSTRE: ids or ranks differ")


def compare(r, log: iolens.Log, allowed=None):
    allowed = allowed or {}
    probs: List[str] = []
    seen: Set[Tuple[str, str]] = set()
    compare_job(r, log, probs)
    for module, coll in r.records.items():
        kind = iolens.module_info(module).kind
        if kind == "counters":
            compare_counters(module, coll, log, allowed, probs, seen)
        elif kind == "dxt":
            compare_dxt(module, coll, log, probs)
        elif kind == "lustre":
            compare_lustre(coll, log, probs)
    if "HEATMAP" in r.modules:
        compare_heatmap(r, log, probs)
    return probs, seen
