"""The shapes shared by rules, engine and outputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

SEVERITIES = ("critical", "warning", "info", "ok")          # most to least severe
AUDIENCES = ("user", "developer", "system")


def severity_rank(severity: str) -> int:
    """0 = critical ... 3 = ok; lower is more severe."""
    return SEVERITIES.index(severity)


@dataclass(frozen=True)
class Rule:
    """One diagnosis rule.  ``check(ctx)`` returns a Hit or None; ``needs`` names
    the counters it reads, per module, so the engine decodes only those."""
    id: str
    title: str
    severity: str
    audience: Tuple[str, ...]
    condition: str                  # the condition, in words (docs, SARIF help)
    rationale: str                  # why it matters, for docs/diagnosis.md
    recommendation: str
    check: Callable
    snippet: str = ""               # code/config shown with --verbose
    needs: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    dxt: bool = False               # reads DXT segments


@dataclass
class Hit:
    """What a rule found: evidence lines with numbers, the files and ranks involved,
    the time it costs and how that was estimated."""
    message: str
    evidence: List[str]
    time_lost: float = 0.0          # seconds of wall-clock time per process
    time_basis: str = ""
    numbers: Dict[str, float] = field(default_factory=dict)
    files: List[str] = field(default_factory=list)
    ranks: List[int] = field(default_factory=list)
    severity: Optional[str] = None  # overrides the rule's severity when set
    snippet: Optional[str] = None   # overrides the rule's snippet (e.g. with real sizes)


@dataclass
class Finding:
    rule: Rule
    hit: Hit

    @property
    def severity(self) -> str:
        return self.hit.severity or self.rule.severity

    @property
    def snippet(self) -> str:
        return self.hit.snippet if self.hit.snippet is not None else self.rule.snippet

    def to_dict(self) -> dict:
        return {"rule": self.rule.id, "title": self.rule.title, "severity": self.severity,
                "audience": list(self.rule.audience), "message": self.hit.message,
                "evidence": list(self.hit.evidence),
                "numbers": {k: float(v) for k, v in self.hit.numbers.items()},
                "files": list(self.hit.files), "ranks": [int(r) for r in self.hit.ranks],
                "time_lost_seconds": float(self.hit.time_lost),
                "time_basis": self.hit.time_basis,
                "recommendation": self.rule.recommendation, "snippet": self.snippet}
