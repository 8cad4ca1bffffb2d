"""`--sarif`: SARIF 2.1.0, so CI systems show the findings and gate on them.
Severity maps to SARIF levels: critical=error, warning=warning, info=note, ok=none."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .rules import RULES

LEVEL = {"critical": "error", "warning": "warning", "info": "note", "ok": "none"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(rule, thresholds) -> dict:
    # SARIF 3.49.7: `name` must differ from `id` (compared without case), so a
    # one-word rule id gets no name rather than a copy of itself.
    name = rule.id.replace("-", " ").title().replace(" ", "")
    named = {"name": name} if name.lower() != rule.id.lower() else {}
    return {"id": rule.id, **named,
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.condition_text(thresholds)},
            "help": {"text": rule.recommendation + ("\n" + rule.snippet if rule.snippet else "")},
            "defaultConfiguration": {"level": LEVEL[rule.severity]},
            "properties": {"audience": list(rule.audience), "rationale": rule.rationale}}


def _result(finding, index: dict, log_uri: str, log_bytes: int) -> dict:
    text = finding.hit.message + "\n" + "\n".join(s.strip() for s in finding.hit.evidence)
    if finding.explained_by:
        text += f"\n(part of root cause {finding.explained_by}; its time is counted there)"
    return {"ruleId": finding.rule.id, "ruleIndex": index[finding.rule.id],
            "level": LEVEL[finding.severity], "message": {"text": text},
            # A finding is about the whole log, so its region is the whole file.
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": log_uri},
                "region": {"byteOffset": 0, "byteLength": log_bytes}}}],
            "properties": {"severity": finding.severity,
                           "timeLostSeconds": float(finding.hit.time_lost),
                           "timeBasis": finding.hit.time_basis,
                           "projection": finding.projection.text if finding.projection else "",
                           "rootCause": finding.group or finding.rule.id,
                           "explainedBy": finding.explained_by or "",
                           "files": list(finding.hit.files),
                           "recommendation": finding.rule.recommendation,
                           **_regions(finding)}}


def _regions(finding) -> dict:
    """The per-region split (by_region), only when the finding has one."""
    return {"regions": finding.regions.to_dict()} if finding.regions is not None else {}


def to_dict(diagnoses, thresholds=None) -> dict:
    """thresholds: those in force (--thresholds), for the rules' condition texts."""
    from .. import __version__
    from .engine import default_thresholds
    thresholds = thresholds or default_thresholds()
    index = {r.id: i for i, r in enumerate(RULES)}
    results, artifacts = [], []
    for diag in diagnoses:
        uri = Path(os.path.abspath(diag.path)).as_uri()
        try:
            size = os.path.getsize(diag.path)
        except OSError:     # the log went away after it was read: still report
            size = 0
        artifact = {"location": {"uri": uri}, "length": size}
        if artifact not in artifacts:                       # SARIF: artifacts are unique
            artifacts.append(artifact)
        results += [_result(f, index, uri, size) for f in diag.findings]
    return {"$schema": SCHEMA_URI, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "iolens-diagnose", "version": __version__,
                                          "rules": [_rule(r, thresholds) for r in RULES]}},
                      "artifacts": artifacts, "results": results}]}


def dumps(diagnoses, thresholds=None) -> str:
    return json.dumps(to_dict(diagnoses, thresholds), indent=2) + "\n"
