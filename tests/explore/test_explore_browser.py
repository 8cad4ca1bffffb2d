"""The explorer page in a real browser (Playwright driving Debian's Chromium;
no browser is downloaded): it opens, zooms, pans and filters; the number of
operations drawn equals what the log holds for the view (counted here from
``Log.dxt()``, independently of the explorer's index); tooltips show the right
file, offset and size; the URL restores a view; no console errors.  Screenshots
go to the test's tmp dir (or $IOLENS_SCREENSHOT_DIR)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iolens
from explore_helpers import corpus_log, start_server, traced_log
from iolens.explore.cli import main as explore_main

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = os.environ.get("IOLENS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, timeout=TIMEOUT_MS,
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


class Page:
    """One tab with console errors collected."""

    def __init__(self, browser, shots: Path):
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.shots = shots

    def open(self, url):
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]")

    def after(self, action):
        """Run ``action`` and wait until the timeline has been redrawn."""
        prev = self.page.evaluate("document.body.dataset.ready")
        action()
        self.page.wait_for_function(f"document.body.dataset.ready !== {prev!r}")

    def timeline(self) -> dict:
        return self.page.evaluate(
            "(() => { const d = document.getElementById('timeline').dataset;"
            " return {spans: +d.spans, kind: d.kind, n: +d.segments,"
            " state: Object.assign({}, window.iolensExplorer.state)}; })()")

    def shot(self, name):
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
        return path


@pytest.fixture
def shots(tmp_path):
    d = Path(os.environ.get("IOLENS_SCREENSHOT_DIR") or tmp_path)
    d.mkdir(parents=True, exist_ok=True)
    return d


def segments(log_path) -> pd.DataFrame:
    with iolens.open(log_path) as log:
        parts = [log.dxt(m).assign(mod=k) for k, m in enumerate(("POSIX", "MPIIO"))]
    df = pd.concat(parts, ignore_index=True)
    df["name"] = df["name"].astype(object)
    return df


def expected(df, state, files=None) -> int:
    m = (df["end"] >= state["t0"]) & (df["start"] <= state["t1"])
    m &= (df["rank"] >= state["r0"]) & (df["rank"] <= state["r1"])
    if state["op"] != "all":
        m &= df["op"].astype(str) == state["op"]
    if state["file"] >= 0:
        m &= df["name"] == files[state["file"]]
    return int(m.sum())


@pytest.fixture
def served(tmp_path):
    servers = []

    def start(log_path):
        url, data, _, _, server = start_server(log_path, tmp_path / "cache")
        servers.append(server)
        return url, data
    yield start
    for s in servers:
        s.shutdown()


def test_timeline_zoom_pan_filter_tooltip(browser, served, shots):
    log = corpus_log("mpi-io-test_id4373053")
    url, data = served(log)
    df = segments(log)
    p = Page(browser, shots)
    p.open(url)
    t = p.timeline()
    assert t["kind"] == "spans" and t["spans"] == len(df) == 576
    p.shot("explore-full")

    # zoom in around the middle of the plot with the mouse wheel
    box = p.page.locator("#timeline").bounding_box()
    p.page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + 100)
    for _ in range(3):
        p.after(lambda: p.page.mouse.wheel(0, -200))
    t = p.timeline()
    assert t["state"]["t1"] - t["state"]["t0"] < 0.6 * data["span"]
    assert t["spans"] == expected(df, t["state"]) < len(df)
    assert f"t0={t['state']['t0']:.12g}"[:8] in p.page.url   # the view is in the URL

    # pan left by dragging
    before = t["state"]["t0"]
    def drag():
        p.page.mouse.move(box["x"] + 400, box["y"] + 100)
        p.page.mouse.down()
        p.page.mouse.move(box["x"] + 700, box["y"] + 100, steps=5)
        p.page.mouse.up()
    p.after(drag)
    t = p.timeline()
    assert t["state"]["t0"] < before
    assert t["spans"] == expected(df, t["state"])
    p.shot("explore-zoomed")

    # filter: writes of the shared file by ranks 4-11, from the form
    files = [f["name"] for f in data["files"]]
    big = files.index("/yellow/users/treddy/mpi_io_rough_work/test.out")
    def apply():
        p.page.fill("#f-t0", "0")
        p.page.fill("#f-t1", "")
        p.page.fill("#f-r0", "4")
        p.page.fill("#f-r1", "11")
        p.page.select_option("#f-op", "write")
        p.page.select_option("#f-file", str(big))
        p.page.click("#f-apply")
    p.after(apply)
    t = p.timeline()
    assert t["state"]["r0"] == 4 and t["state"]["r1"] == 11 and t["state"]["file"] == big
    want = expected(df, t["state"], files)
    assert t["spans"] == want > 0
    assert "op=write" in p.page.url and f"file={big}" in p.page.url and "r0=4" in p.page.url

    # the URL alone restores the view
    q = Page(browser, shots)
    q.open(p.page.url)
    assert q.timeline()["spans"] == want

    # tooltip of one drawn span shows its file, offset and size
    rect = p.page.evaluate("window.iolensExplorer.drawn()[5]")
    p.page.mouse.move(box["x"] + rect["x"] + rect["w"] / 2, box["y"] + rect["y"] + rect["h"] / 2)
    tip = p.page.locator("#tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    row = p.page.evaluate("fetch('/api/spans?' + new URLSearchParams({t0: 0, t1: 1e9, r0: 4,"
                          " r1: 11, op: 'write', file: %d, token: new URLSearchParams("
                          "location.search).get('token')})).then(r => r.json())" % big)
    i = rect["i"]                 # the span's row in the (same) query reply
    rank = data["lanes"][row["lane"][i]]["rank"]
    assert files[big] in text and f"process:  rank {rank}\n" in text
    assert f"offset:   {row['offset'][i]}\n" in text and f"size:     {row['length'][i]}\n" in text
    dur = row["end"][i] - row["start"][i]
    assert f"duration: {dur:.6f} s" in text
    match = df[(df["offset"] == row["offset"][i]) & (df["length"] == row["length"][i])
               & (df["rank"] == rank) & (np.isclose(df["start"], row["start"][i]))]
    assert len(match) >= 1 and (match["name"] == files[big]).all()
    p.shot("explore-filtered-tooltip")
    assert p.errors == [] and q.errors == []


def test_large_trace_is_binned_then_resolved(browser, served, shots):
    log = corpus_log("partial_data_dxt")
    url, data = served(log)
    p = Page(browser, shots)
    p.open(url)
    t = p.timeline()
    assert t["kind"] == "bins" and t["n"] == data["nseg"] and t["spans"] == 0
    p.shot("explore-binned")
    df = segments(log)
    # zoom far in: single operations again, as many as the log holds in view
    for _ in range(40):
        p.after(lambda: p.page.click("#zoom-in"))
        t = p.timeline()
        if t["kind"] == "spans":
            break
    assert t["kind"] == "spans"
    assert t["spans"] == expected(df, t["state"]) > 0
    p.shot("explore-binned-zoomed")
    assert p.errors == []


def test_self_contained_page(browser, tmp_path, shots):
    log = corpus_log("nonmpi_dxt_anonymized")
    out = tmp_path / "page.html"
    assert explore_main([str(log), "-o", str(out), "--cache", str(tmp_path / "c")]) == 0
    text = out.read_text()
    assert "http://" not in text.split("<script")[0] and "src=" not in text
    p = Page(browser, shots)
    p.open(out.as_uri())
    df = segments(log)
    assert p.timeline()["spans"] == len(df)
    p.after(lambda: p.page.click("#zoom-in"))
    t = p.timeline()
    assert t["spans"] == expected(df, t["state"])
    p.shot("explore-selfcontained")
    assert p.errors == []


@pytest.mark.parametrize("part", ["imbalanced-io", "e3sm_io_heatmap_only"])
def test_log_without_dxt_shows_counter_views(browser, served, shots, part):
    url, data = served(corpus_log(part))
    p = Page(browser, shots)
    p.open(url)
    assert p.page.locator("#dxt-views").is_hidden()
    assert p.page.locator("#no-dxt-note").is_visible()
    if data["heatmap"]:
        assert p.page.locator("#heatmap").is_visible()
    if data["counters"]:
        assert int(p.page.eval_on_selector("#rank-bytes", "e => e.dataset.bars")) == \
            len(next(iter(data["counters"].values()))["ranks"])
    p.shot(f"explore-nodxt-{part}")
    assert p.errors == []


def test_own_traced_log(browser, served, shots, tmp_path):
    log = traced_log(tmp_path)
    url, data = served(log)
    p = Page(browser, shots)
    p.open(url)
    df = segments(log)
    assert p.timeline()["spans"] == len(df) > 0
    p.shot("explore-own")
    assert p.errors == []


def test_findings_are_the_diagnosis(browser, served, shots):
    """The overlay lists what `iolens diagnose` finds (counter rules), in its order,
    and a finding that names processes moves the view to them."""
    from iolens.diagnose import RULES, diagnose_log
    log_path = corpus_log("mpi-io-test_id4373053")
    url, data = served(log_path)
    with iolens.open(log_path) as log:
        want = diagnose_log(log, rules=[r for r in RULES if not r.dxt]).findings
    from_diag = [f for f in data["findings"] if f["source"] == "diagnosis"]
    assert [f["kind"] for f in from_diag] == [f.rule.id for f in want] != []
    assert [f["detail"] for f in from_diag] == [f.hit.message for f in want]
    p = Page(browser, shots)
    p.open(url)
    items = p.page.locator("#findings li")
    assert items.count() == len(data["findings"])
    texts = items.all_inner_texts()
    for f, text in zip(data["findings"], texts):
        assert f["title"] in text and f["severity"].upper() in text
    with_ranks = [i for i, f in enumerate(data["findings"]) if f["ranks"]]
    if with_ranks:
        f = data["findings"][with_ranks[0]]
        p.after(lambda: items.nth(with_ranks[0]).click())
        state = p.timeline()["state"]
        assert (state["r0"], state["r1"]) == (min(f["ranks"]), max(f["ranks"]))
    assert p.errors == []


def test_findings_without_dxt_come_from_the_diagnosis(served):
    log_path = corpus_log("imbalanced-io")
    _, data = served(log_path)
    kinds = [f["kind"] for f in data["findings"]]
    assert "imbalance-ranks" in kinds and "metadata-time" in kinds
    assert all(f["source"] == "diagnosis" for f in data["findings"])
    imb = data["findings"][kinds.index("imbalance-ranks")]
    assert imb["ranks"] == [0]      # the diagnosis names rank 0 twice; shown once
