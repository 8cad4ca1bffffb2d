"""Many logs: which findings appear in every run and which only in some."""
from __future__ import annotations

from .model import severity_rank


def summarise(diagnoses, errors=()) -> dict:
    runs = len(diagnoses)
    seen: dict = {}
    for diag in diagnoses:
        for f in diag.findings:
            row = seen.setdefault(f.rule.id, {"rule": f.rule.id, "title": f.rule.title,
                                              "severity": f.severity, "count": 0,
                                              "time_lost_seconds": 0.0, "logs": []})
            if diag.path in row["logs"]:
                continue
            row["count"] += 1
            row["time_lost_seconds"] += float(f.hit.time_lost)
            row["logs"].append(diag.path)
            if severity_rank(f.severity) < severity_rank(row["severity"]):
                row["severity"] = f.severity
    rows = sorted(seen.values(), key=lambda r: (-r["time_lost_seconds"],
                                                severity_rank(r["severity"]), r["rule"]))
    return {"runs": runs,
            "in_all": [r for r in rows if runs and r["count"] == runs],
            "in_some": [r for r in rows if r["count"] < runs],
            "errors": list(errors)}
