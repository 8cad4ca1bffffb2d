"""Cost at scale and severity from cost.

A finding's cost now is its ``time_lost`` (seconds per process).  Its projection
follows the rule's scaling model (model.SCALINGS; docs/diagnosis.md): weak
scaling, the same data per process, at ``[scale] processes`` processes.
Severity of a costed rule comes from both figures ([severity] thresholds), so a
cheap pattern is ``info`` with its projection and a costly one is a warning or
critical; a finding that costs nothing now is never above ``info``.

``fill`` renders a rule's condition template from the thresholds in force."""
from __future__ import annotations

import re
from dataclasses import dataclass



@dataclass(frozen=True)
class Projection:
    processes: int          # the scale projected to
    seconds: float          # cost per process at that scale
    text: str               # the statement shown to the user

    def to_dict(self) -> dict:
        return {"processes": int(self.processes), "seconds": float(self.seconds),
                "text": self.text}


def project(scaling: str, now: float, nprocs: int, th: dict):
    """The cost at the target scale under the rule's model, or None for rules not
    about time."""
    target = int(th["scale"]["processes"])
    if scaling == "none":
        return None
    if scaling == "processes" and target > nprocs:
        later = now * target / max(nprocs, 1)
        return Projection(target, later,
                          f"{now:.2f} s now; with the same data per process at "
                          f"{target:,} processes, about {_seconds(later)}")
    return Projection(max(target, nprocs), now,
                      f"{now:.2f} s now; about the same per process at {target:,} "
                      "processes (this cost does not grow with the process count)")


def judge(now: float, projected: float, run_time: float, th: dict) -> str:
    """Severity of a costed finding from its cost now and at scale."""
    s = th["severity"]
    if now <= 0.005:                     # shows as 0.00 s: never a warning
        return "info"
    share = now / run_time if run_time > 0 else 1.0
    if (share >= s["critical_run_fraction"] and now >= s["critical_min_seconds"]) or \
            projected >= s["critical_projected_seconds"]:
        return "critical"
    if (share >= s["warning_run_fraction"] and now >= s["warning_min_seconds"]) or \
            projected >= s["warning_projected_seconds"]:
        return "warning"
    return "info"


def _seconds(t: float) -> str:
    if t >= 3600:
        return f"{t / 3600:.1f} h"
    if t >= 100:
        return f"{t / 60:.0f} min"
    return f"{t:.0f} s" if t >= 10 else f"{t:.2f} s"


_PLACE = re.compile(r"\{([a-z_0-9]+)\.([a-z_0-9]+)\}")


def show(key: str, value) -> str:
    """A threshold or a measured value in the unit its key names."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    if any(w in key for w in ("fraction", "coverage")):
        return f"{100 * float(value):.3g} %"
    if any(w in key for w in ("bytes", "size", "request", "large_file", "chunk")):
        from .measure import size      # measure needs context, which needs this module
        return size(value)
    if "seconds" in key:
        return f"{float(value):.3g} s"
    if "ratio" in key or "multiple" in key:
        return f"{float(value):g}x"
    return f"{value:,}" if isinstance(value, int) else f"{float(value):.4g}"


def fill(template: str, th: dict) -> str:
    """``{table.key}`` placeholders replaced by the thresholds' values."""
    return _PLACE.sub(lambda m: show(m.group(2), th[m.group(1)][m.group(2)]), template)
