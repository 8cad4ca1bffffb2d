"""Run the rules over one log: decode the declared counters once, call each
rule's check, and sort what they found by the time it costs."""
from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import List, Optional

from .context import Context
from .model import Finding, severity_rank
from .rules import RULES


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
    findings: List[Finding]
    notes: List[str] = field(default_factory=list)

    def worst(self) -> Optional[str]:
        sev = [f.severity for f in self.findings]
        return min(sev, key=severity_rank) if sev else None


def _needs(rules) -> dict:
    out: dict = {}
    for rule in rules:
        for module, counters in rule.needs.items():
            out.setdefault(module, set()).update(counters)
    return out


def diagnose_log(log, thresholds: Optional[dict] = None, rules=RULES) -> Diagnosis:
    """Diagnose an open iolens.Log.  A rule that fails on odd data is reported in
    the notes and skipped; it never stops the others."""
    th = copy.deepcopy(thresholds) if thresholds else default_thresholds()
    ctx = Context(log, th, _needs(rules))
    findings = []
    for rule in rules:
        try:
            hit = rule.check(ctx)
        except Exception as err:  # noqa: BLE001 - one rule must not sink the diagnosis
            ctx.notes.append(f"rule {rule.id} could not run: {type(err).__name__}: {err}")
            continue
        if hit is not None:
            findings.append(Finding(rule, hit))
    findings.sort(key=lambda f: (-f.hit.time_lost, severity_rank(f.severity), f.rule.id))
    return Diagnosis(log.path, dict(log.job), findings, ctx.notes)


def diagnose(path, thresholds: Optional[dict] = None, rules=RULES) -> Diagnosis:
    """Open the log at `path` and diagnose it."""
    import iolens
    with iolens.open(path) as log:
        return diagnose_log(log, thresholds, rules)
