"""Every corpus log renders a complete, self-contained report page whose
overview numbers equal upstream darshan-parser's --perf/--total output."""
from __future__ import annotations

import re

import pytest

import iolens
from iolens.report import render_html
from iolens.report.registry import ITEMS, sections
from report_helpers import (corpus_logs, log_id, need_corpus, page_facts, parser_numbers,
                            upstream_summary)

LOGS = corpus_logs()
SECTION_IDS = ["sec-" + re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") for s in sections()]
EXTERNAL = re.compile(r"""(src|href)\s*=\s*["']?(https?:|//)|url\(\s*["']?https?:|<script[^>]+src""")


def render(path):
    with iolens.open(path) as log:
        text = render_html(log)
        modules = {name: len(log.records(name)) for name in log.modules
                   if name in ("POSIX", "MPI-IO", "STDIO", "H5D", "PNETCDF_VAR")}
        partial = bool(log.partial) or any(m["partial"] for m in log.modules.values())
    return path, text, modules, partial


# One test per log (rendering is the expensive part); the checks are
# separate functions so that a failure names what broke.
@pytest.mark.parametrize("path", LOGS or [None], ids=[log_id(p) for p in LOGS] or ["none"])
def test_corpus_log_report(path):
    need_corpus()
    page = render(path)
    check_page_is_complete_and_offline(page)
    check_every_section_has_content_or_says_none(page)
    check_partial_warning_iff_partial(page)
    check_figures_have_titles_and_axis_labels(page)
    check_overview_equals_upstream_parser(page)


def check_page_is_complete_and_offline(page):
    path, text, modules, _ = page
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert not EXTERNAL.search(text), "report must not load anything from the network"
    assert "could not be drawn" not in text
    ids, _ = page_facts(text)
    assert {"job-table"} <= ids
    if any(modules.values()):
        assert {"overview-table", "fig-io-cost", "fig-op-counts", "fig-timeline"} <= ids
    else:
        assert "sec-overall-i-o" not in ids and 'id="empty-sections"' in text


def check_every_section_has_content_or_says_none(page):
    """A section is on the page (and in the navigation) with content, or named
    in the closing line of sections without data; never an empty heading."""
    _, text, _, _ = page
    nav = text.split("<nav>", 1)[1].split("</nav>", 1)[0]
    empty = text.split('id="empty-sections">', 1)[1] if 'id="empty-sections"' in text else ""
    for section, sid in zip(sections(), SECTION_IDS):
        if f'<section id="{sid}">' not in text:
            assert section in empty.split("</p>", 1)[0] and f'href="#{sid}"' not in nav, sid
            continue
        assert f'href="#{sid}"' in nav, sid
        chunk = text.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]
        has_content = "<svg" in chunk or "<table" in chunk
        assert has_content or 'class="nodata"' in chunk, sid


def check_partial_warning_iff_partial(page):
    _, text, _, partial = page
    assert ('id="partial-warning"' in text) == partial


def check_figures_have_titles_and_axis_labels(page):
    _, text, _, _ = page
    for item in ITEMS:
        if item.kind != "figure" or f'<figure id="{item.id}" class="figure">' not in text:
            continue
        chunk = text.split(f'<figure id="{item.id}"', 1)[1].split("</figure>", 1)[0]
        assert item.caption.split(" ")[0] in chunk
        # Units are in parentheses in every axis label we draw.
        assert re.search(r"\((seconds|count|bytes|B|KiB|MiB|GiB|TiB|%)\)", chunk), item.id


def check_overview_equals_upstream_parser(page):
    path, text, _, _ = page
    summary = upstream_summary(path)
    if summary is None:
        return
    want = parser_numbers(summary)
    _, values = page_facts(text)
    checked = 0
    for module, numbers in want.items():
        for key in ("bytes_read", "bytes_written", "agg_time_by_slowest", "agg_perf_by_slowest"):
            if key in numbers:
                assert values.get(f"{module}.{key}") == numbers[key], (module, key)
                checked += 1
    assert checked or not want
