"""Assemble the report page: one self-contained HTML document (inline CSS
and inline SVG figures; no scripts, no external resources)."""
from __future__ import annotations

import html
import io
import re

import matplotlib.pyplot as plt

from .registry import FIGURE, ITEMS, applies, sections
from .tables import Cell

plt.rcParams["svg.fonttype"] = "none"   # real text: smaller, selectable, searchable

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;
padding:1em 2em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em} h2{border-bottom:2px solid #4C72B0;padding-bottom:.2em;
margin-top:1.6em} h3{font-size:1.05em;margin:.4em 0}
nav a{margin-right:1em} .sub{color:#555}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.88em}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eef2f8} td{overflow-wrap:anywhere;max-width:40em}
figure{margin:1em 0;page-break-inside:avoid;break-inside:avoid}
figcaption{color:#444;font-size:.92em;margin-bottom:.3em}
figure svg{max-width:100%;height:auto}
.warning{background:#fff3cd;border:1px solid #e0b100;padding:.6em 1em;border-radius:4px}
.nodata{color:#777;font-style:italic}
@media print{nav{display:none} body{max-width:none;padding:0}}
"""


def render(data) -> str:
    body = [_header(data), _warnings(data), _nav(data)]
    for section in sections(data):
        body.append(_section(data, section))
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in data.notes)
    if notes:
        body.append(f'<section id="sec-notes"><h2>Notes</h2><ul>{notes}</ul></section>')
    title = html.escape(_title(data))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{title}</title><link rel=\"icon\" href=\"data:,\">"
            f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")


def _title(data) -> str:
    exe = (data.exe or "").split(" ")[0] or "unknown executable"
    what = f" — file {data.file}" if data.file else ""
    return f"I/O report: {exe}{what}"


def _header(data) -> str:
    return (f"<h1>{html.escape(_title(data))}</h1><p class=\"sub\">job "
            f"{html.escape(str(data.job.get('jobid', '')))}, {data.nprocs} processes, "
            f"log format {html.escape(str(data.version))}</p>")


def _warnings(data) -> str:
    partial = data.partial_modules()
    if not partial:
        return ""
    names = ", ".join(html.escape(p) for p in partial)
    return ('<p class="warning" id="partial-warning"><b>Warning: partial data.</b> '
            f"The {names} module{'s' if len(partial) > 1 else ''} ran out of memory for new "
            "records while the job ran, so the numbers below miss some files or operations "
            "and undercount the I/O of those modules.</p>")


def _nav(data) -> str:
    links = "".join(f'<a href="#{_sec_id(s)}">{html.escape(s)}</a>' for s in sections(data))
    return f"<nav>{links}</nav>"


def _sec_id(section: str) -> str:
    return "sec-" + re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")


def _section(data, section: str) -> str:
    parts = []
    for item in ITEMS:
        if item.section == section and applies(data, item):
            parts.append(_item(data, item))
    if not any(p for p in parts if 'class="nodata"' not in p):
        parts = ['<p class="nodata">This log has no data for this section.</p>']
    return (f'<section id="{_sec_id(section)}"><h2>{html.escape(section)}</h2>'
            + "".join(parts) + "</section>")


def _item(data, item) -> str:
    try:
        built = item.build(data)
    except Exception as err:  # one broken figure must not lose the whole report
        data.notes.append(f"{item.title} could not be drawn: {type(err).__name__}: {err}")
        built = None
    head = (f"<figcaption><h3>{html.escape(item.title)}</h3>{html.escape(item.caption)}"
            "</figcaption>")
    if built is None or isinstance(built, str):
        reason = built or f"No data for this {item.kind} in this log."
        return (f'<figure id="{item.id}">{head}<p class="nodata">{html.escape(reason)}'
                "</p></figure>")
    content = _svg(built) if item.kind == FIGURE else _table(built)
    return f'<figure id="{item.id}" class="{item.kind}">{head}{content}</figure>'


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _table(table) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in table.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _cell(cell) -> str:
    if not isinstance(cell, Cell):
        return f"<td>{html.escape(str(cell))}</td>"
    attrs = ""
    if cell.key:
        attrs += f' data-key="{html.escape(cell.key)}"'
    if cell.value is not None:
        attrs += f' data-value="{html.escape(cell.value)}"'
    return f"<td{attrs}>{html.escape(cell.text)}</td>"
