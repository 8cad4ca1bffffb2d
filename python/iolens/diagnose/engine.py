"""Run the rules over one log: decode the declared counters once, call each
rule's check, and sort what they found by the time it costs."""
from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import List, Optional

from .._meta import modules
from .by_region import attribute
from .context import Context
from .grouping import cap_per_process, group_findings
from .measure import TRACES
from .model import Finding, Group, severity_rank
from .rules import RULES
from .scale import judge, project


TIME_COUNTERS = ("F_READ_TIME", "F_WRITE_TIME", "F_META_TIME", "F_SLOWEST_RANK_TIME")


def default_thresholds() -> dict:
    text = resources.files(__package__).joinpath("thresholds.toml").read_text()
    return tomllib.loads(text)


def load_thresholds(path: Optional[str] = None) -> dict:
    """Defaults overlaid with the tables of `path` (same shape); unknown keys are errors."""
    th = default_thresholds()
    if path:
        with open(path, "rb") as fh:
            user = tomllib.load(fh)
        for table, values in user.items():
            if table not in th or not isinstance(values, dict):
                raise ValueError(f"{path}: unknown threshold table [{table}]")
            for key, value in values.items():
                if key not in th[table]:
                    raise ValueError(f"{path}: unknown threshold {table}.{key}")
                th[table][key] = value
    return th


@dataclass
class Diagnosis:
    path: str
    job: dict
    findings: List[Finding]         # roots first, each followed by the findings it explains
    notes: List[str] = field(default_factory=list)
    groups: List[Group] = field(default_factory=list)   # root causes, costliest first
    checks: List[dict] = field(default_factory=list)    # every rule: status, condition, tests
    # per process (rank, or "others" for the ranks without records of their own):
    # (seconds lost summed over root causes, that process's I/O seconds)
    lost_by_process: dict = field(default_factory=dict)

    def most_lost(self, k: int = 16) -> list:
        """The k processes that lose the most, summed over the root causes:
        [(process, seconds lost, its I/O seconds)], largest first."""
        rows = sorted(self.lost_by_process.items(), key=lambda kv: -kv[1][0])[:k]
        return [(p, lost, io) for p, (lost, io) in rows if lost > 0]

    def worst(self) -> Optional[str]:
        sev = [f.severity for f in self.findings]
        return min(sev, key=severity_rank) if sev else None


def _needs(rules) -> dict:
    """The counters the rules declare, plus every I/O module's time counters: the
    per-process I/O time (Context.io_time) that caps the time lost."""
    out: dict = {}
    for m in modules().values():
        if m.role == "io":
            have = set(m.fcounters)
            out[m.name] = {m.prefix + n for n in TIME_COUNTERS} & have
    for rule in rules:
        for module, counters in rule.needs.items():
            out.setdefault(module, set()).update(counters)
    return out


def diagnose_log(log, thresholds: Optional[dict] = None, rules=RULES, view=None) -> Diagnosis:
    """Diagnose an open iolens.Log (with its JobView `view` when the caller has
    built one).  A rule that fails on odd data is reported in the notes and
    skipped; it never stops the others."""
    th = copy.deepcopy(thresholds) if thresholds else default_thresholds()
    ctx = Context(log, th, _needs(rules), view=view)
    findings, status = [], {}
    for rule in rules:
        ctx.rule = rule.id
        try:
            hit = rule.check(ctx)
        except Exception as err:  # noqa: BLE001 - one rule must not sink the diagnosis
            ctx.notes.append(f"rule {rule.id} could not run: {type(err).__name__}: {err}")
            status[rule.id] = "failed"
            continue
        status[rule.id] = "fired" if hit is not None else "silent"
        if hit is not None:
            findings.append(_by_region(_judged(Finding(rule, hit), ctx), ctx))
    groups = group_findings(findings)
    raw = [g.time_lost for g in groups]
    lost = cap_per_process(groups, ctx)
    for g, before in zip(groups, raw):
        _judge_group(g, g.time_lost / before if before > 0 else 1.0, ctx)
    groups.sort(key=lambda g: (-g.time_lost, severity_rank(g.severity), g.root.rule.id))
    ordered = [f for g in groups for f in [g.root] + g.members]
    checks = [{"rule": r.id, "status": status.get(r.id, "silent"),
               "condition": r.condition_text(th),
               "tests": [t.text() for t in ctx.tests.get(r.id, [])] or _untested(r, ctx)}
              for r in rules]
    return Diagnosis(log.path, dict(log.job), ordered, ctx.notes, groups, checks, lost)


def _untested(rule, ctx) -> list:
    """Why a rule made no threshold test: the data it reads is not in the log."""
    missing = [m for m in rule.needs if not ctx.has(m)]
    if rule.dxt and not any(m in ctx.modules for m in TRACES):
        missing.append("DXT")
    if missing and len(missing) == len(rule.needs) + (1 if rule.dxt else 0):
        return [f"not applicable: the log has no {' or '.join(missing)} records"]
    return ["no threshold test was made: the condition's precondition does not hold in this "
            "log (see the condition)"]


def _judged(finding: Finding, ctx) -> Finding:
    """Add the projection at scale (severity comes after grouping)."""
    finding.projection = project(finding.rule.scaling, float(finding.hit.time_lost),
                                 ctx.nprocs, ctx.th)
    return finding


def _by_region(finding: Finding, ctx) -> Finding:
    """Attribute the finding to the regions its pattern is in (by_region): its
    evidence, never its cost.  Odd region data costs the attribution only."""
    try:
        attribute(finding, ctx)
    except Exception as err:  # noqa: BLE001 - the finding stands without it
        ctx.notes.append(f"rule {finding.rule.id}: regions could not be judged: "
                         f"{type(err).__name__}: {err}")
    return finding


def _judge_group(group, kept: float, ctx) -> None:
    """Severity of costed findings from their cost now and at scale, both scaled by
    the share of the group's time the per-process cap kept; the root is as severe
    as the worst finding it explains.  A serial job is judged on its cost now:
    a projection to many processes says little about a program that has one."""
    parallel = ctx.nprocs >= ctx.th["scale"]["min_procs"]
    for f in [group.root] + group.members:
        if f.rule.costed:
            now = float(f.hit.time_lost) * kept
            later = f.projection.seconds * kept if f.projection and parallel else now
            f.judged = judge(now, later, ctx.run_time, ctx.th)
    if group.root.rule.costed:
        group.root.judged = group.severity


def diagnose(path, thresholds: Optional[dict] = None, rules=RULES) -> Diagnosis:
    """Open the log at `path` and diagnose it."""
    import iolens
    with iolens.open(path) as log:
        return diagnose_log(log, thresholds, rules)
