"""The shapes shared by rules, engine and outputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

SEVERITIES = ("critical", "warning", "info", "ok")          # most to least severe
AUDIENCES = ("user", "developer", "system")
# How a finding's cost grows with the job (scale.py projects it; docs/diagnosis.md):
# "processes" - in proportion to the process count at the same data per process
#               (work funnelled through one process, one server or one file's locks);
# "per-process" - stays the same per process when processes are added;
# "none" - the finding is not about time (correctness, data quality).
SCALINGS = ("processes", "per-process", "none")


def severity_rank(severity: str) -> int:
    """0 = critical ... 3 = ok; lower is more severe."""
    return SEVERITIES.index(severity)


@dataclass(frozen=True)
class Rule:
    """One diagnosis rule.  ``check(ctx)`` returns a Hit or None; ``needs`` names
    the counters it reads, per module, so the engine decodes only those.

    ``condition`` is a template: ``{table.key}`` stands for a threshold and is
    filled from the thresholds in force (``condition_text``), so the text the user
    reads cannot disagree with the test the check makes.  ``explains`` names the
    rules whose findings this one's is the root cause of when both fire and share
    evidence.  ``costed`` rules get their severity from their cost (engine);
    the others (correctness, data quality) keep the rule's or hit's severity."""
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
    scaling: str = "per-process"    # one of SCALINGS
    explains: Tuple[str, ...] = ()
    costed: bool = True
    # its time is what the other causes leave (an umbrella over a whole layer's time,
    # e.g. blocking-mpiio): capped by the I/O time the other root causes do not claim
    residual: bool = False
    # a pattern the REGION records show per program phase (by_region.WORDS: "small",
    # "metadata", "random"): the finding then names the regions it is in and not in
    region_pattern: str = ""

    def condition_text(self, thresholds: dict) -> str:
        from .scale import fill
        return fill(self.condition, thresholds)


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
    severity: Optional[str] = None  # overrides the rule's severity (rules not costed)
    snippet: Optional[str] = None   # overrides the rule's snippet (e.g. with real sizes)
    # seconds lost by each named process when the cost sits on a few of them
    # (rank 0's I/O); None: time_lost on every process that does I/O
    rank_seconds: Optional[Dict[int, float]] = None


@dataclass
class Finding:
    """A rule's hit, with what the engine adds: the cost projected at scale, the
    severity judged from cost, and the root cause it belongs to."""
    rule: Rule
    hit: Hit
    projection: Optional["Projection"] = None   # noqa: F821 - scale.Projection
    judged: Optional[str] = None    # severity from cost (costed rules)
    group: str = ""                 # rule id of its root cause ("" before grouping)
    regions: Optional["RegionSplit"] = None     # noqa: F821 - by_region.RegionSplit

    @property
    def severity(self) -> str:
        return self.judged or self.hit.severity or self.rule.severity

    @property
    def explained_by(self) -> Optional[str]:
        return self.group if self.group and self.group != self.rule.id else None

    @property
    def snippet(self) -> str:
        return self.hit.snippet if self.hit.snippet is not None else self.rule.snippet

    def to_dict(self) -> dict:
        out = {"rule": self.rule.id, "title": self.rule.title, "severity": self.severity,
                "audience": list(self.rule.audience), "message": self.hit.message,
                "evidence": list(self.hit.evidence),
                "numbers": {k: float(v) for k, v in self.hit.numbers.items()},
                "files": list(self.hit.files), "ranks": [int(r) for r in self.hit.ranks],
                "time_lost_seconds": float(self.hit.time_lost),
                "time_basis": self.hit.time_basis,
                "projection": self.projection.to_dict() if self.projection else None,
                "group": self.group or self.rule.id,
                "recommendation": self.rule.recommendation, "snippet": self.snippet}
        if self.regions is not None:       # only when split: logs without regions unchanged
            out["regions"] = self.regions.to_dict()
        return out


@dataclass
class Group:
    """One root cause: the finding that explains the others (``members``, which
    share its evidence), and the one time they cost together."""
    root: Finding
    members: List[Finding]
    time_lost: float                # seconds per process, after the per-process cap

    @property
    def severity(self) -> str:
        return min([self.root.severity] + [m.severity for m in self.members],
                   key=severity_rank)

    def to_dict(self) -> dict:
        return {"root": self.root.rule.id, "members": [m.rule.id for m in self.members],
                "time_lost_seconds": float(self.time_lost), "severity": self.severity}
