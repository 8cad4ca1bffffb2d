"""Findings the explorer overlays on its views: stragglers, imbalance and
rank-0-only I/O, computed from per-process totals (the explorer does not depend
on ``iolens.diagnose``).

Thresholds: a straggler spends more than twice the median I/O time of the
processes that did I/O (and at least 10 ms more); imbalance is max/mean bytes per
process above 1.5 over at least two processes; rank-0-only means a multi-process
job where only rank 0 moved bytes."""
from __future__ import annotations

from typing import Dict, List

import numpy as np

STRAGGLER_FACTOR = 2.0
STRAGGLER_MIN_EXTRA = 0.010
IMBALANCE_RATIO = 1.5


def per_rank(ranks: List[int], nbytes: List[float], busy: List[float]) -> Dict[int, tuple]:
    """(bytes, busy seconds) summed per rank over its lanes."""
    out: Dict[int, list] = {}
    for r, b, t in zip(ranks, nbytes, busy):
        acc = out.setdefault(int(r), [0.0, 0.0])
        acc[0] += b
        acc[1] += t
    return {r: (v[0], v[1]) for r, v in out.items()}


def findings(totals: Dict[int, tuple], nprocs: int) -> List[dict]:
    """``totals``: rank -> (bytes, busy seconds).  One dict per finding:
    kind, title, ranks (the processes to highlight), detail."""
    out = []
    active = {r: v for r, v in totals.items() if v[0] > 0 or v[1] > 0}
    if nprocs > 1 and list(active) == [0]:
        out.append({"kind": "rank0-only", "title": "Only rank 0 does I/O", "ranks": [0],
                    "detail": f"{nprocs} processes, all traced bytes moved by rank 0"})
    if len(active) >= 2:
        busy = np.array([v[1] for v in active.values()])
        med = float(np.median(busy))
        slow = [r for r, v in active.items()
                if v[1] > STRAGGLER_FACTOR * med and v[1] - med > STRAGGLER_MIN_EXTRA]
        if slow:
            out.append({"kind": "straggler", "title": f"{len(slow)} straggler process(es)",
                        "ranks": sorted(slow),
                        "detail": f"I/O time above {STRAGGLER_FACTOR:g}x the median "
                                  f"({med:.4g} s)"})
        nbytes = np.array([v[0] for v in active.values()])
        if nbytes.mean() > 0 and nbytes.max() / nbytes.mean() > IMBALANCE_RATIO:
            top = max(active, key=lambda r: active[r][0])
            out.append({"kind": "imbalance", "title": "Imbalanced bytes per process",
                        "ranks": [top],
                        "detail": f"max/mean bytes = {nbytes.max() / nbytes.mean():.2f} "
                                  f"(rank {top} moves the most)"})
    return out
