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


def render_page(summary: dict, segments: Optional[dict]) -> str:
    data = {"summary": summary, "segments": segments}
    # the exe may hold bytes that are not UTF-8: shown as \xNN (the data is JSON,
    # whose \u escapes carry them)
    title = html.escape(printable(
        f"iolens explore: {summary['job'].get('exe') or summary['job']['log']}"))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><link rel=\"icon\" href=\"data:,\"><style>{_static('explorer.css')}</style></head>"
            f"<body>{_static('explorer.html')}"
            f"<script type=\"application/json\" id=\"iolens-data\">{_script_json(data)}</script>"
            f"<script>{_static('explorer.js')}</script></body></html>\n")


def embedded_segments(idx) -> dict:
    """Every segment of the index as column lists (only for small logs)."""
    return {name: idx.cols[name].tolist() for name in SEGMENT_FIELDS}
