"""The explorer's regions (docs/explore.md, "Regions") in headless Chromium: a real
job in three phases (tests/runtime/progs/region_phases.py) traced under `iolens run
--trace`; the page draws a band per region and rank from the REGION records, with
their names and a legend, and its region selector keeps only the operations that ran
in the region chosen (counted here from ``Log.dxt()``'s ``region`` column,
independently of the explorer's index)."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import iolens
from explore_helpers import REPO, traced_log
from iolens.explore.cli import main as explore_main
from test_explore_browser import Page, browser, segments, served, shots  # noqa: F401 (fixtures)

PROG = REPO / "tests" / "runtime" / "progs" / "region_phases.py"
PHASES = ("load", "checkpoint", "flush")


def phases_log(tmp_path):
    # only the job's data files are recorded (importing iolens opens many more)
    skip = sorted({str(Path(sys.prefix).resolve()), str(Path(sys.base_prefix).resolve()),
                   str(REPO.resolve()), "/usr", "/etc", "/proc", "/sys", "/dev", "/opt"})
    return traced_log(tmp_path, (str(PROG),), {"DARSHAN_EXCLUDE_DIRS": ",".join(skip),
                                               "DXT_THREAD_IDS": "1"})


def bands(p):
    return p.page.evaluate(
        "(() => { const d = document.getElementById('timeline').dataset;"
        " return {bands: +d.regionBands, labels: d.regionLabels,"
        " legend: [...document.querySelectorAll('#region-legend .region-key')]"
        ".map((e) => e.dataset.region)}; })()")


def check_bands(p):
    b = bands(p)
    assert b["bands"] >= len(PHASES)
    assert sorted(b["labels"].split("|")) == sorted(PHASES)
    assert sorted(b["legend"]) == sorted(PHASES)


def test_region_bands_served_and_self_contained(browser, served, shots, tmp_path):
    log = phases_log(tmp_path)
    url, data = served(log)
    assert sorted(data["regions"]["names"]) == sorted(PHASES)
    p = Page(browser, shots)
    p.open(url)
    check_bands(p)
    p.shot("explore-regions")
    page = tmp_path / "page.html"
    assert explore_main([str(log), "-o", str(page)]) == 0
    q = Page(browser, shots)
    q.open(page.as_uri())
    check_bands(q)
    assert p.errors == [] and q.errors == []


def test_log_without_regions_has_no_band(browser, served, shots, tmp_path):
    url, data = served(traced_log(tmp_path))     # the threaded workload: no region
    assert data["regions"]["names"] == []
    p = Page(browser, shots)
    p.open(url)
    assert bands(p) == {"bands": 0, "labels": "", "legend": []}
    assert p.page.evaluate("document.getElementById('f-region-box').hidden")
    assert p.errors == []


def test_region_selector_filters(browser, served, shots, tmp_path):
    log = phases_log(tmp_path)
    df = segments(log)
    assert df["region"].notna().any()
    url, data = served(log)
    names = data["regions"]["names"]
    p = Page(browser, shots)
    p.open(url)
    assert p.timeline()["spans"] == len(df)
    choices = [(str(names.index(n)), df["region"] == n) for n in PHASES]
    choices.append(("-2", df["region"].isna()))
    for value, want in choices:
        p.after(lambda: (p.page.select_option("#f-region", value), p.page.click("#f-apply")))
        t = p.timeline()
        assert t["state"]["region"] == int(value)
        assert t["spans"] == int(want.sum()) > 0, value
        p.shot(f"explore-region-{value}")
    assert p.errors == []


def test_index_keeps_each_segments_region_in_small_chunks(tmp_path):
    """The index's region column, built 7 segments at a time, names for every
    operation the region Log.dxt() gives it."""
    from iolens.explore import index as ix
    log = phases_log(tmp_path)
    df = segments(log)
    assert df["region"].notna().any()
    with iolens.open(log) as lg:
        ix.build(lg, tmp_path / "idx", chunk_rows=7, sort_rows=16)
    idx = ix.open_index(tmp_path / "idx")
    names = idx.meta["regions"]
    got = sorted(zip(idx.cols["start"].tolist(), idx.cols["offset"].tolist(),
                     [names[c] if c >= 0 else None for c in idx.cols["region"].tolist()]))
    want = sorted(zip(df["start"].tolist(), df["offset"].tolist(),
                      [None if pd.isna(r) else r for r in df["region"]]))
    assert got == want and set(names) == set(PHASES)


def test_region_codes_past_int16():
    """A large job's ranks can name more than 32,767 regions between them: each
    keeps its own code in the index's int32 region column (a 16-bit remap table
    wrapped them onto other regions' codes)."""
    from iolens.explore.regions import NO_REGION, final_codes
    names = {f"r{k:06d}": k for k in range(40000)}
    remap, order = final_codes(names)
    assert remap[0] == NO_REGION
    assert remap[names["r039999"] + 1] == order.index("r039999") == 39999
    assert len(set(remap[1:].tolist())) == 40000
