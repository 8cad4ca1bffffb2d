"""The report's Diagnosis section: the findings of `iolens diagnose` as a table."""
from __future__ import annotations

from .tables import Cell, Table


def findings(data):
    """One row per finding, costliest first; a string when there is nothing to show."""
    from ..diagnose import diagnose_log
    if data.file is not None:
        return "The diagnosis covers the whole job; it is left out of a one-file report."
    diag = diagnose_log(_ReportLog(data))
    if not diag.findings:
        return "No findings: none of the diagnosis rules fired on this log."
    rows = []
    for f in diag.findings:
        cost = f"{f.hit.time_lost:.2f} s" if f.hit.time_lost > 0 else "-"
        # data-value is reserved for numbers that equal `iolens parse` output; findings
        # carry only a data-key, which tests and scripts use to find them.
        rows.append([Cell(f.severity, key=f"finding.{f.rule.id}"),
                     f.rule.id, f.hit.message, "; ".join(s.strip() for s in f.hit.evidence),
                     cost, f.rule.recommendation])
    return Table(["severity", "rule", "finding", "evidence", "est. time lost per process",
                  "recommendation"], rows)


class _ReportLog:
    """The open log, but counter records come from the report's cached frames, so
    the report does not decode a module a second time for the diagnosis."""

    def __init__(self, data):
        self._data = data

    def __getattr__(self, name):
        return getattr(self._data.log, name)

    def records(self, module, columns=None):
        # The cached frame itself, not a copy of the asked-for columns: the rules read
        # counters by name, and a copy would cost a million-record log hundreds of MB.
        frame = self._data.frame(module)
        if frame is None or not set(columns or ()) <= set(frame.columns):
            return self._data.log.records(module, columns=columns)
        return frame
