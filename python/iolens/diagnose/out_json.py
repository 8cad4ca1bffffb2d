"""`--json`: one document per run, described by schema.json (shipped here)."""
from __future__ import annotations

import json
from importlib import resources

SCHEMA_VERSION = 2      # 2: root-cause groups, projections, --explain checks


def to_dict(diag, explain: bool = False) -> dict:
    job = diag.job
    out = {"schema_version": SCHEMA_VERSION, "log": diag.path,
           "job": {"jobid": int(job.get("jobid") or 0), "nprocs": int(job.get("nprocs") or 0),
                   "run_time": float(job.get("run_time") or 0.0)},
           "findings": [f.to_dict() for f in diag.findings],
           "groups": [g.to_dict() for g in diag.groups],
           "time_lost_by_process": [{"process": str(p), "lost_seconds": float(lost),
                                     "io_seconds": float(io)} for p, lost, io in diag.most_lost()],
           "notes": list(diag.notes)}
    if explain:
        out["checks"] = [dict(c) for c in diag.checks]
    return out


def dumps(diag, explain: bool = False) -> str:
    return json.dumps(to_dict(diag, explain), indent=2) + "\n"


def schema() -> dict:
    return json.loads(resources.files(__package__).joinpath("schema.json").read_text())
