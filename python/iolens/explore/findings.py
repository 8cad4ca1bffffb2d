"""Findings the explorer overlays on its views.

Two sources, each shown with where it came from:
- the diagnosis (``iolens.diagnose``), run with its counter rules only: the
  same findings, messages and ranks that ``iolens diagnose`` prints;
- stragglers seen in the trace, computed from the index's per-lane totals, so
  that their cost does not grow with the number of segments.  The diagnosis
  has a DXT straggler rule too, but it decodes every segment, which the
  explorer must not do at 100 million operations.

Each overlay is a dict: kind (the rule id, or "trace-stragglers"), title,
severity, ranks (the processes to highlight, possibly empty), detail, source.

Thresholds of the trace stragglers: more than twice the median I/O time of the
processes that did I/O, and at least 10 ms more."""
from __future__ import annotations

from typing import Dict, List

import numpy as np

STRAGGLER_FACTOR = 2.0
STRAGGLER_MIN_EXTRA = 0.010


def per_rank(ranks: List[int], nbytes: List[float], busy: List[float]) -> Dict[int, tuple]:
    """(bytes, busy seconds) summed per rank over its lanes."""
    out: Dict[int, list] = {}
    for r, b, t in zip(ranks, nbytes, busy):
        acc = out.setdefault(int(r), [0.0, 0.0])
        acc[0] += b
        acc[1] += t
    return {r: (v[0], v[1]) for r, v in out.items()}


def diagnosis_findings(log) -> List[dict]:
    """The diagnosis's counter-rule findings, most costly first.  A diagnosis
    that cannot run leaves the explorer working, with one note saying why."""
    try:
        from ..diagnose import RULES, diagnose_log
        found = diagnose_log(log, rules=[r for r in RULES if not r.dxt]).findings
    except Exception as err:  # noqa: BLE001 - the trace view matters more than the overlay
        return [{"kind": "diagnosis-failed", "title": "Diagnosis unavailable", "severity": "info",
                 "ranks": [], "detail": f"{type(err).__name__}: {err}", "source": "diagnosis"}]
    return [{"kind": f.rule.id, "title": f.rule.title, "severity": f.severity,
             "ranks": sorted({int(r) for r in f.hit.ranks if int(r) >= 0}),
             "detail": f.hit.message, "source": "diagnosis"} for f in found]


def trace_stragglers(totals: Dict[int, tuple]) -> List[dict]:
    """``totals``: rank -> (bytes, busy seconds) from the trace index."""
    active = {r: v for r, v in totals.items() if v[0] > 0 or v[1] > 0}
    if len(active) < 2:
        return []
    med = float(np.median([v[1] for v in active.values()]))
    slow = sorted(r for r, v in active.items()
                  if v[1] > STRAGGLER_FACTOR * med and v[1] - med > STRAGGLER_MIN_EXTRA)
    if not slow:
        return []
    return [{"kind": "trace-stragglers", "title": f"{len(slow)} straggler process(es) in the trace",
             "severity": "warning", "ranks": slow, "source": "trace",
             "detail": f"traced I/O time above {STRAGGLER_FACTOR:g}x the median ({med:.4g} s)"}]
