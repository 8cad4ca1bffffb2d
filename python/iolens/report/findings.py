"""The report's Diagnosis section: the findings of `iolens diagnose` as a table."""
from __future__ import annotations

from .tables import Cell, Table


def findings(data):
    """One row per finding, root causes costliest first, each root followed by the
    findings it explains (their time is counted in the root's); a string when there
    is nothing to show."""
    from ..diagnose import diagnose_log
    if data.file is not None:
        return "The diagnosis covers the whole job; it is left out of a one-file report."
    # the report's own view: its records, already decoded and checked, are reused
    diag = diagnose_log(data.log, view=data.view)
    if not diag.findings:
        return "No findings: none of the diagnosis rules fired on this log."
    rows = []
    for g in diag.groups:
        for f in [g.root] + g.members:
            root = f is g.root
            cost = (f"{g.time_lost:.2f} s" if g.time_lost > 0 else "-") if root \
                else f"in {g.root.rule.id}"
            at_scale = f.projection.text if f.projection and f.hit.time_lost > 0 else "-"
            # data-value is reserved for numbers that equal `iolens parse` output;
            # findings carry only a data-key, which tests and scripts use to find them.
            rows.append([Cell(f.severity, key=f"finding.{f.rule.id}"),
                         f.rule.id if root else f"\u21b3 {f.rule.id}", g.root.rule.id,
                         f.hit.message, "; ".join(s.strip() for s in f.hit.evidence),
                         cost, at_scale, f.rule.recommendation])
    return Table(["severity", "rule", "root cause", "finding", "evidence",
                  "est. time lost per process", "at scale", "recommendation"], rows)

