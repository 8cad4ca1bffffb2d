"""`iolens report`: a self-contained HTML (and PDF) summary of one log.

    from iolens.report import render_html
    with iolens.open("job.darshan") as log:
        text = render_html(log)              # or render_html(log, file="/path")
"""
from __future__ import annotations

from .page import render
from .source import ReportData


def render_html(log, file: str | None = None) -> str:
    """The report page of an open log, optionally restricted to one file."""
    return render(ReportData(log, file=file))


__all__ = ["render_html", "ReportData"]
