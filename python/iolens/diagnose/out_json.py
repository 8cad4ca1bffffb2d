"""`--json`: one document per run, described by schema.json (shipped here)."""
from __future__ import annotations

import json
from importlib import resources

SCHEMA_VERSION = 1


def to_dict(diag) -> dict:
    job = diag.job
    return {"schema_version": SCHEMA_VERSION, "log": diag.path,
            "job": {"jobid": int(job.get("jobid") or 0), "nprocs": int(job.get("nprocs") or 0),
                    "run_time": float(job.get("run_time") or 0.0)},
            "findings": [f.to_dict() for f in diag.findings],
            "notes": list(diag.notes)}


def dumps(diag) -> str:
    return json.dumps(to_dict(diag), indent=2) + "\n"


def schema() -> dict:
    return json.loads(resources.files(__package__).joinpath("schema.json").read_text())
