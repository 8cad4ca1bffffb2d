"""Slow storage targets: a few Lustre OSTs whose files took far longer per byte
than the files on the other OSTs.

Time per OST comes from the view (``JobView.ost``): with a DXT trace each
operation's time is split over the stripes it touched; without one, each
file's POSIX read and write time is spread over the stripes its extent covers.
A healthy file system serves a byte in about the same time on every OST, so the
rule compares each OST's seconds per byte with the median of the OTHER OSTs
(robust: one or two slow targets do not move it).  An OST is slow when it is
``ratio`` times slower than that median AND the extra time is at least
``min_seconds``, and when no more than ``max_fraction`` of the OSTs are slow (a
slow majority is a slow file system or a slow job, not a slow target).  OSTs
that moved under ``min_bytes`` are not judged: their time per byte is noise.

Limits: a file striped over a slow OST and fast ones has its time spread over
all of them without a trace, which dilutes the slow one; the rule then sees it
only when the slow OST holds files of its own."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .context import col
from .measure import size
from .model import Hit


def _judged(ctx) -> pd.DataFrame | None:
    """OST rows (ost, bytes, time, files) that moved enough bytes to be judged."""
    frame = ctx.view.ost
    if frame is None or not len(frame):
        ctx.skip("no bytes placed on Lustre OSTs (no LUSTRE layouts, or none of their "
                 "files moved data)")
        return None
    out = pd.DataFrame({"ost": frame["ost"].astype(int).to_numpy(),
                        "bytes": frame["bytes"].to_numpy(dtype=float),
                        "time": (frame["read_time"] + frame["write_time"]).to_numpy(dtype=float),
                        "files": frame["files"].to_numpy()})
    out = out[ctx.gate_each("bytes moved by an OST", out["bytes"], ">=",
                            "slow_ost.min_bytes")].reset_index(drop=True)
    if not ctx.gate("OSTs with enough bytes to judge", len(out), ">=", "slow_ost.min_osts"):
        return None
    return out


def _median_of_others(rate: np.ndarray) -> np.ndarray:
    """For each OST, the median seconds per byte of all the others, from one sort:
    the i-th smallest of the others is the (i+1)-th of all when i reaches the
    OST's own place (the first of its equals)."""
    order = np.sort(rate)
    own = np.searchsorted(order, rate)
    rest = len(rate) - 1

    def nth(i):
        return order[i + (i >= own)]
    return nth(rest // 2) if rest % 2 else 0.5 * (nth(rest // 2 - 1) + nth(rest // 2))


def slow_osts(ctx):
    osts = _judged(ctx)
    if osts is None:
        return None
    rate = osts["time"].to_numpy() / osts["bytes"].to_numpy()
    typical = _median_of_others(rate)
    expected = typical * osts["bytes"].to_numpy()
    extra = osts["time"].to_numpy() - expected
    # others with no recorded time give no reference: not judged (ratio 0)
    ratio = np.divide(rate, typical, out=np.zeros(len(rate)), where=typical > 0)
    slow = ctx.gate_each("an OST's seconds per byte / the other OSTs' median", ratio, ">",
                         "slow_ost.ratio")
    slow &= ctx.gate_each("its seconds beyond the other OSTs' median rate",
                          np.where(slow, extra, 0.0), ">=", "slow_ost.min_seconds")
    if not slow.any() or not ctx.gate("slow OSTs / judged OSTs", slow.sum() / len(osts),
                                      "<=", "slow_ost.max_fraction"):
        return None
    bad = osts[slow].assign(expected=expected[slow], extra=extra[slow])
    bad = bad.sort_values("extra", ascending=False)
    # the part of a slow OST's time that the others' median rate does not explain
    unexplained = dict(zip(bad["ost"].tolist(), (bad["extra"] / bad["time"]).tolist()))
    users = _users(ctx, unexplained)
    lines = [f"{len(bad)} of {len(osts)} OSTs took far longer per byte than the median of "
             f"the others ({_source(ctx)}):"]
    for r in bad.itertuples():
        lines.append(f"  OST {r.ost}: {r.time:.1f} s for {size(r.bytes)} ({int(r.files)} files); "
                     f"at the other OSTs' median rate it would take {r.expected:.1f} s")
    lines += _user_lines(ctx, users)
    per_rank = _rank_extra(users, bad)
    return Hit("Slow storage targets (OSTs)", lines,
               float(max(per_rank.values())) if per_rank else float(bad["extra"].max()),
               "the slowest rank's extra seconds on the slow OSTs' files over the median "
               "rate of the other OSTs (the job waits for that rank)",
               {"slow_osts": int(len(bad)), "osts": int(len(osts)),
                "extra_seconds": float(bad["extra"].sum()),
                "worst_ratio": float(ratio[slow].max())},
               sorted({ctx.name(i) for i in users["id"].unique()})[:16] if len(users) else [],
               sorted({int(r) for r in users["rank"]})[:64] if len(users) else [],
               rank_seconds=per_rank or None)


def _source(ctx) -> str:
    src = ctx.view.ost.attrs.get("source", "estimate")
    return {"trace": "DXT trace", "estimate": "POSIX times spread over each file's stripes",
            "trace+estimate": "DXT trace, and POSIX times for untraced files"}.get(src, src)


def _users(ctx, unexplained: dict) -> pd.DataFrame:
    """POSIX records (id, rank, seconds, extra) of the files stored on a slow OST
    (any layout component).  A record's extra seconds are its read and write
    seconds times the unexplained part of each slow OST it uses, over the
    file's OST count (the time is spread over the stripes, as in the view)."""
    layouts = ctx.view.lustre()
    frame = ctx.frame("POSIX")
    empty = pd.DataFrame(columns=["id", "rank", "time", "extra"])
    if layouts is None or frame is None or not len(frame):
        return empty
    weight: dict = {}
    for rid, osts in zip(layouts["id"].to_numpy(), layouts["ost_ids"]):
        osts = [int(o) for o in np.asarray(osts).ravel()]
        w = sum(unexplained.get(o, 0.0) for o in osts) / max(len(osts), 1)
        if w > 0:
            weight[int(rid)] = weight.get(int(rid), 0.0) + w
    ids = frame["id"].to_numpy().astype(np.uint64)
    on = np.isin(ids, np.fromiter(weight, np.uint64, len(weight)))
    if not on.any():
        return empty
    sec = (col(frame, "POSIX_F_READ_TIME") + col(frame, "POSIX_F_WRITE_TIME"))[on]
    w = np.array([min(weight[int(i)], 1.0) for i in ids[on]])
    return pd.DataFrame({"id": ids[on], "rank": frame["rank"].to_numpy()[on], "time": sec,
                         "extra": sec * w})


def _user_lines(ctx, users: pd.DataFrame) -> list:
    if not len(users):
        return []
    top = users.sort_values("time", ascending=False).head(5)
    lines = [f"their files ({users['id'].nunique()}), slowest first, and the ranks using them:"]
    for r in top.itertuples():
        who = "all processes (shared record)" if r.rank < 0 else f"rank {int(r.rank)}"
        lines.append(f"  {ctx.name(r.id)} ({who}): {r.time:.1f} s of reads and writes")
    return lines


def _rank_extra(users: pd.DataFrame, bad: pd.DataFrame) -> dict:
    """Extra seconds per rank on the slow OSTs' files (a shared record's go to
    every rank), each at most the slow OSTs' total extra time; {} when the
    files' records are unknown."""
    if not len(users):
        return {}
    per_rank = users.groupby("rank")["extra"].sum()
    shared = float(per_rank.get(-1, 0.0))
    own = per_rank.drop(index=-1, errors="ignore")
    cap = float(bad["extra"].sum())
    out = {int(r): min(float(v) + shared, cap) for r, v in own.items()}
    return out
