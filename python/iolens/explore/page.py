"""The explorer page: one HTML document with our own CSS and canvas drawing code
inlined, so it needs nothing from the network.  Served pages fetch timeline
data from the server; self-contained pages (``-o``) carry every segment."""
from __future__ import annotations

import html
import json
from importlib import resources
from typing import Optional

from .._text import printable
from .query import SEGMENT_FIELDS

EMBED_LIMIT = 200_000    # segments a self-contained page may carry


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _script_json(obj) -> str:
    """JSON safe inside <script>: no '</' or '<!--' can end the element early."""
    return json.dumps(obj, separators=(",", ":")).replace("<", "\\u003c")


OFFSET_TIME_DIGITS = 7     # significant digits of the offset chart's times (pixels need 4)


def page_summary(summary: dict) -> dict:
    """The summary as the page reads it, small enough to parse at once at
    20,000 ranks: per-lane facts as columns (``lane_rank``, ``lane_thread``,
    null without thread lanes) instead of one object per lane, and of the
    per-lane figures only what the page draws (``lane_last``, each lane's last
    end, for a partial trace's marks).  Per-lane totals and idle fractions stay
    in /api/summary.  The offset chart's points go without their lanes (not
    drawn), their times cut to OFFSET_TIME_DIGITS."""
    skip = ("lanes", "lane_totals", "gaps", "offsets")
    out = {k: v for k, v in summary.items() if k not in skip}
    out["lane_rank"] = [lane["rank"] for lane in summary["lanes"]]
    threads = [lane["thread"] for lane in summary["lanes"]]
    out["lane_thread"] = threads if any(t is not None for t in threads) else None
    if summary.get("partial") and "lane_totals" in summary:
        out["lane_last"] = summary["lane_totals"]["last"]
    if "gaps" in summary:
        out["gaps"] = {"global": summary["gaps"]["global"]}
    if "offsets" in summary:
        digits = f".{OFFSET_TIME_DIGITS}g"
        out["offsets"] = {k: v for k, v in summary["offsets"].items() if k != "lane"}
        out["offsets"]["t"] = [float(format(t, digits)) for t in summary["offsets"]["t"]]
    return out


def render_page(summary: dict, segments: Optional[dict]) -> str:
    data = {"summary": page_summary(summary), "segments": segments}
    # the exe may hold bytes that are not UTF-8: shown as \xNN (the data is JSON,
    # whose \u escapes carry them)
    title = html.escape(printable(
        f"iolens explore: {summary['job'].get('exe') or summary['job']['log']}"))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><link rel=\"icon\" href=\"data:,\"><style>{_static('explorer.css')}</style></head>"
            f"<body{' data-served' if segments is None else ''}>{_static('explorer.html')}"
            f"<script>{_static('first_view.js')}</script>"
            f"<script type=\"application/json\" id=\"iolens-data\">{_script_json(data)}</script>"
            f"<script>{_static('explorer.js')}</script></body></html>\n")


def embedded_segments(idx) -> dict:
    """Every segment of the index as column lists (only for small logs)."""
    return {name: idx.cols[name].tolist() for name in SEGMENT_FIELDS}
