"""Assemble the report page: one self-contained HTML document (inline CSS
and inline SVG figures; no scripts, no external resources)."""
from __future__ import annotations

import html
import io
import re

import matplotlib.pyplot as plt

from .._text import printable
from .progress import Progress
from .registry import FIGURE, ITEMS, applies, sections
from .tables import Cell
from .units import counted

plt.rcParams["svg.fonttype"] = "none"   # real text: smaller, selectable, searchable
plt.rcParams["svg.hashsalt"] = "iolens"  # stable element ids: one log, one page, byte for byte

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
h2,h3,figcaption{page-break-after:avoid;break-after:avoid}
.keep{page-break-inside:avoid;break-inside:avoid} tr{break-inside:avoid}
figure svg{max-width:100%;height:auto}
.warning{background:#fff3cd;border:1px solid #e0b100;padding:.6em 1em;border-radius:4px}
.nodata{color:#777;font-style:italic} .note{color:#444;margin:.2em 0}
@media print{nav{display:none} body{max-width:none;padding:0}}
"""


def render(data, progress=None) -> str:
    """The page.  A section appears (and is linked from the navigation) only when
    at least one of its entries has something to show; the others are named in
    one line at the end.  `progress` (progress.Progress) hears of every entry."""
    progress = progress or Progress(enabled=False)
    data.progress = progress
    todo = [item for item in ITEMS if applies(data, item)]
    progress.add(len(todo))
    built = [(section, _section(data, section, todo, progress)) for section in sections()]
    shown = [(section, text) for section, text in built if text]
    body = [_header(data), _warnings(data), _nav([section for section, _ in shown])]
    body += [text for _, text in shown]
    empty = [section for section, text in built if not text]
    if empty:
        body.append('<p class="nodata" id="empty-sections">Not shown, because this log has '
                    f"no data for them: {html.escape(', '.join(empty))}.</p>")
    body.insert(2, _damaged(data))
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in data.notes)
    if notes:
        body.append(f'<section id="sec-notes"><h2>Notes</h2><ul>{notes}</ul></section>')
    title = html.escape(_title(data))
    # names that are not UTF-8 shown as \xNN: the page is written as UTF-8
    return printable("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     f"<title>{title}</title><link rel=\"icon\" href=\"data:,\">"
                     f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")


def _damaged(data) -> str:
    """The "damaged data" notice: what the view set aside, with counts (the
    figures below never include it)."""
    lines = data.damage.lines()
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return ('<section id="sec-damaged" class="warning"><h2>Damaged data</h2>'
            f"<p>{data.damage.total} records or trace segments hold values a healthy run "
            "cannot produce (docs/metrics.md, Damage); they are set aside and no figure "
            f"below includes them.</p><ul>{items}</ul></section>")


def _title(data) -> str:
    exe = (data.exe or "").split(" ")[0] or "unknown executable"
    what = f" — file {data.file}" if data.file else ""
    return f"I/O report: {exe}{what}"


def _header(data) -> str:
    return (f"<h1>{html.escape(_title(data))}</h1><p class=\"sub\">job "
            f"{html.escape(str(data.job.get('jobid', '')))}, {counted(data.nprocs, 'process')}, "
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


def _nav(shown) -> str:
    links = "".join(f'<a href="#{_sec_id(s)}">{html.escape(s)}</a>' for s in shown)
    return f"<nav>{links}</nav>"


def _sec_id(section: str) -> str:
    return "sec-" + re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")


def _section(data, section: str, todo, progress) -> str:
    """The section's HTML, or "" when none of its entries has anything to show.
    The heading and the first entry are kept on one printed page."""
    parts, shown = [], False
    for item in todo:
        if item.section == section:
            progress.step(f"{section}: {item.title}")
            text, has_content = _item(data, item)
            parts.append(text)
            shown = shown or has_content
    if not shown:
        return ""
    head = f"<h2>{html.escape(section)}</h2>"
    return (f'<section id="{_sec_id(section)}"><div class="keep">{head}{parts[0]}</div>'
            + "".join(parts[1:]) + "</section>")


def _item(data, item):
    """(HTML of one entry, whether it shows anything: a figure, a table, or a
    sentence of its own saying why not).  An entry's function may also return
    (sentence, figure): the figure drawn in place of the usual one, and why."""
    try:
        built = item.build(data)
    except Exception as err:  # one broken figure must not lose the whole report
        data.notes.append(f"{item.title} could not be drawn: {type(err).__name__}: {err}")
        built = None
    head = (f"<figcaption><h3>{html.escape(item.title)}</h3>{html.escape(item.caption)}"
            "</figcaption>")
    if isinstance(built, tuple):   # (a sentence on what is drawn instead, the drawing)
        sentence, built = built
        head += f'<p class="note">{html.escape(sentence)}</p>'
    if built is None or isinstance(built, str):
        reason = built or f"No data for this {item.kind} in this log."
        return (f'<figure id="{item.id}">{head}<p class="nodata">{html.escape(reason)}'
                "</p></figure>", built is not None)
    content = _svg(built) if item.kind == FIGURE else _table(built)
    return f'<figure id="{item.id}" class="{item.kind}">{head}{content}</figure>', True


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
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
