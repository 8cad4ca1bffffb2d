"""The explorer at real scale (issue 29), in a real browser (Playwright driving
Debian's Chromium) and through the query: thousands of ranks aggregated with
the straggler always shown, a long operation found at any zoom, damaged
segments set aside with a notice, bounded replies.  Times of each step are
printed (-s), not asserted: bench/explore/bench_explore_ranks.py records them."""
from __future__ import annotations

import base64
import json
import time
import urllib.request

import numpy as np
import pytest

import iolens
from explore_helpers import corpus_log
from explore_traces import damaged, long_among_short, many_ranks
from iolens.explore import query as q
from iolens.explore.index import index_for
from iolens.explore.page import page_summary, render_page
from iolens.explore.views import summary
from test_explore_browser import Page, browser, served, shots  # noqa: F401 (fixtures)


def timed(label, action):
    t = time.perf_counter()
    action()
    print(f"{label}: {time.perf_counter() - t:.3f} s")


def test_twenty_thousand_ranks_show_the_straggler(browser, served, shots, tmp_path):
    url, data = served(many_ranks(tmp_path / "ranks.darshan"))
    assert any(f["kind"] == "trace-stragglers" and f["ranks"] == [19_999]
               for f in data["findings"])
    p = Page(browser, shots)
    timed("open", lambda: p.open(url))
    t = p.timeline()
    rows = p.page.evaluate("window.iolensExplorer.rows()")
    # 20,000 lanes grouped into rows, each naming its busiest and slowest lane
    assert rows["aggregated"] and rows["lanes_in_view"] == 20_000
    assert len(rows["first"]) == int(p.page.locator("#timeline").get_attribute("data-rows")) < 400
    assert p.page.locator("#aggregation-note").is_visible()
    last = len(rows["first"]) - 1
    assert data["lanes"][rows["slowest"][last]]["rank"] == 19_999
    assert t["kind"] == "bins" and t["n"] == data["nseg"]
    # the straggler's write is drawn alone in the last row after every other
    # rank stopped (cells of the last row past 10 s), and its hover names it
    reply = p.page.evaluate("(() => { const r = window.iolensExplorer.reply();"
                            " return {px: r.px, count: r.count, kind: r.cell_kind, width: r.count_bytes}; })()")
    count = np.frombuffer(base64.b64decode(reply["count"]),
                          f"<u{reply['width']}").reshape(-1, reply["px"])
    kind = np.frombuffer(base64.b64decode(reply["kind"]), "u1").reshape(count.shape)
    late = int(reply["px"] * 11 / data["span"])
    assert count[last, late:].min() >= 1 and count[:last, late:].sum() == 0
    assert set(kind[count > 0].tolist()) == {1}           # every cell: POSIX writes
    box = p.page.locator("#timeline").bounding_box()
    lane_h = (box["height"] - 22) / len(rows["first"])
    text = p.page.evaluate(f"window.iolensExplorer.hitText(5, {(last + 0.5) * lane_h})")
    assert "slowest:  rank 19999" in text
    x = 90 + (box["width"] - 90) * 20 / data["span"]       # a bin of the straggler alone
    text = p.page.evaluate(f"window.iolensExplorer.hitText({x}, {(last + 0.5) * lane_h})")
    assert "1 operations in flight, mostly POSIX write" in text and "ranks 19" in text
    p.shot("explore-20000-ranks")
    # each step answers (timings printed; bench/explore records them)
    timed("zoom time", lambda: p.after(lambda: p.page.keyboard.press("+")))
    assert p.timeline()["state"]["t1"] < data["span"]
    timed("zoom ranks", lambda: p.after(lambda: p.page.evaluate(
        "window.iolensExplorer.zoomRanks(0.01, 1.0)")))
    state = p.timeline()["state"]
    assert state["r1"] == 19_999 and state["r1"] - state["r0"] < 400
    timed("pan", lambda: p.after(lambda: p.page.evaluate(
        "(() => { const s = window.iolensExplorer.state; s.t0 += (s.t1 - s.t0) / 4;"
        " s.t1 += (s.t1 - s.t0) / 4; window.iolensExplorer.update(); })()")))
    assert p.errors == []


def test_page_data_is_small_at_twenty_thousand_ranks(tmp_path):
    """The page carries per-lane facts as columns and only the per-lane figures
    it draws: at 20,000 ranks it was 3.4 MB of JSON to parse before the first
    view (one object per lane, every lane total); now under 1 MB.  The full
    summary stays the server's (/api/summary)."""
    log = many_ranks(tmp_path / "ranks.darshan")
    with iolens.open(log) as lg:
        idx = index_for(lg, tmp_path / "cache")
        data = summary(lg, idx)
    html = render_page(data, None)
    assert len(html.encode()) < 1_000_000
    sent = page_summary(data)
    assert sent["lane_rank"] == [lane["rank"] for lane in data["lanes"]]
    assert sent["lane_thread"] is None and "lanes" not in sent and "lane_totals" not in sent
    assert sent["offsets"]["t"] == pytest.approx(data["offsets"]["t"], rel=1e-6)
    assert sent["offsets"]["offset"] == data["offsets"]["offset"] and "lane" not in sent["offsets"]


FIRST_QUERIES = """(() => {
  const parsed = performance.getEntriesByName('iolens-parsed')[0].startTime;
  const asked = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/spans'));
  return {parsed: parsed, starts: asked.map((e) => e.startTime)}; })()"""


def test_first_view_is_asked_before_the_data_is_parsed(browser, served, shots):
    """A served page opened without a view asks for its first view once, before
    its data is parsed (first_view.js: the server computes it meanwhile), and
    draws that reply; with a view in its URL it asks for that view instead."""
    url, data = served(corpus_log("mpi-io-test_id4373053"))
    p = Page(browser, shots)
    p.open(url)
    asked = p.page.evaluate(FIRST_QUERIES)
    assert len(asked["starts"]) == 1 and asked["starts"][0] < asked["parsed"]
    t = p.timeline()
    assert t["n"] == data["nseg"] and t["state"]["t1"] == data["span"]
    p.open(url + "&r0=0&r1=0")
    asked = p.page.evaluate(FIRST_QUERIES)
    assert len(asked["starts"]) == 1 and asked["starts"][0] > asked["parsed"]
    reply = p.page.evaluate("window.iolensExplorer.reply()")
    assert reply["rows"]["lanes_in_view"] == sum(lane["rank"] == 0 for lane in data["lanes"])
    assert p.errors == []


def test_reply_size_is_bounded_at_any_px(served, tmp_path):
    url, data = served(many_ranks(tmp_path / "ranks.darshan"))
    base, token = url.split("?")
    body = urllib.request.urlopen(f"{base}api/spans?px=99999&rows=99999&{token}", timeout=60).read()
    reply = json.loads(body)
    assert len(body) < 5_000_000 and reply["px"] == q.MAX_PX
    assert len(reply["rows"]["first"]) == q.MAX_ROWS
    spans = urllib.request.urlopen(f"{base}api/spans?max=10000000&r0=0&r1=19999&{token}",
                                   timeout=60).read()
    assert len(spans) < 8_000_000


def test_long_operation_found_in_its_middle(browser, served, shots, tmp_path):
    """More than SCAN_CAP operations start before the middle of a 100 s read:
    zooming there shows it (and every operation in flight) singly."""
    log = long_among_short(tmp_path / "long.darshan")
    url, data = served(log)
    with iolens.open(log) as lg:
        df = lg.dxt("POSIX")
    start, end = df["start"].to_numpy(), df["end"].to_numpy()
    p = Page(browser, shots)
    p.open(url)

    def window():
        p.page.fill("#f-t0", "75")
        p.page.fill("#f-t1", "75.001")
        p.page.click("#f-apply")
    p.after(window)
    for _ in range(4):                       # and deeper, with the + key
        p.after(lambda: p.page.keyboard.press("+"))
    t = p.timeline()
    assert t["state"]["t1"] - t["state"]["t0"] < 1e-4
    want = int(((end >= t["state"]["t0"]) & (start <= t["state"]["t1"])).sum())
    assert t["kind"] == "spans" and t["spans"] == t["n"] == want >= 1
    long_op = p.page.evaluate("(() => { const r = window.iolensExplorer.reply();"
                              " const i = r.length.indexOf(12345);"
                              " return i < 0 ? null : [r.start[i], r.end[i], r.offset[i]]; })()")
    assert long_op == [0.5, 100.5, 7]
    labels = p.page.locator("#timeline").get_attribute("data-axis").split("|")
    assert len(labels) == len(set(labels)) >= 3 and all(x.startswith("+") for x in labels)
    p.shot("explore-long-operation")
    assert p.errors == []


def test_long_operations_counted_at_every_zoom(tmp_path, monkeypatch):
    """Through the query, with a small SCAN_CAP: every window holds exactly the
    operations in flight there, singly or binned."""
    from explore_traces import _write
    monkeypatch.setattr(q, "SCAN_CAP", 500)
    rng = np.random.default_rng(3)
    s = np.sort(rng.uniform(0, 100, 5000))
    e = s + 0.001
    s[10], e[10] = s[10], 90.0            # long ones among short ones
    s[4000], e[4000] = s[4000], s[4000] + 5
    seg = {"offset": np.zeros(5000, int), "length": np.ones(5000, int), "start": s, "end": e}
    log = _write(tmp_path / "l.darshan", 1, [0], [5000], [0], seg, 100)
    with iolens.open(log) as lg:
        idx = index_for(lg, tmp_path / "c")
    for t0, t1 in ((50, 50.00001), (80, 80.01), (s[4000] + 1, s[4000] + 1.0001), (0, 100)):
        r = q.query(idx, q.View(t0=t0, t1=t1, max_spans=100))
        want = int(((e >= r["t0"]) & (s <= r["t1"])).sum())
        assert r["n"] == want, (t0, t1)
        if r["kind"] == "spans":
            assert sorted(r["start"]) == sorted(s[(e >= r["t0"]) & (s <= r["t1"])].tolist())


def test_damaged_segments_leave_the_page_working(browser, served, shots, tmp_path):
    url, data = served(damaged(tmp_path / "damaged.darshan"))
    assert data["damage"]["segments"]["DXT_POSIX"] == {"bad-time": 2} or \
        sum(data["damage"]["segments"]["DXT_POSIX"].values()) == 2
    base, token = url.split("?")
    for path in ("api/summary", "api/spans"):      # strict JSON: no NaN, no Infinity
        body = urllib.request.urlopen(f"{base}{path}?{token}", timeout=30).read().decode()
        json.loads(body, parse_constant=lambda c: pytest.fail(f"{path}: {c} in JSON"))
    p = Page(browser, shots)
    p.open(url)
    assert p.timeline()["spans"] == 38 == data["nseg"]
    note = p.page.locator("#damage-note")
    assert note.is_visible() and "DXT_POSIX" in note.inner_text()
    p.after(lambda: p.page.keyboard.press("+"))
    assert p.timeline()["kind"] == "spans"
    p.shot("explore-damaged")
    assert p.errors == []


def test_small_things(browser, served, shots, tmp_path):
    """Thread lanes by number (pthread id on hover), the mark of a partial
    trace, a 4,000-character file name in a bounded tooltip."""
    from explore_traces import _write
    from iolens._meta import module_info
    long_name = "/scratch/" + "d" * 3990 + "/f.dat"
    seg = {"offset": [0, 10, 20], "length": [10, 10, 10], "start": [0.1, 0.2, 0.3],
           "end": [0.15, 0.25, 0.35]}
    log = _write(tmp_path / "partial.darshan", 1, [0], [3], [0], seg, 1, names=(long_name,),
                 ids=[iolens.record_id(long_name)], partial=1 << module_info("DXT_POSIX").id)
    url, data = served(log)
    assert data["partial"] == ["DXT_POSIX"]
    p = Page(browser, shots)
    p.open(url)
    assert p.page.locator("#partial-note").is_visible()
    rect = p.page.evaluate("window.iolensExplorer.drawn()[1]")
    box = p.page.locator("#timeline").bounding_box()
    p.page.mouse.move(box["x"] + rect["x"] + rect["w"] / 2, box["y"] + rect["y"] + rect["h"] / 2)
    tip = p.page.locator("#tooltip")
    tip.wait_for(state="visible")
    tb = tip.bounding_box()
    assert tb["width"] <= 520 and tb["height"] <= 320
    assert "f.dat" in tip.inner_text() and "…" in tip.inner_text()
    p.shot("explore-partial-longname")

    from explore_helpers import CORPUS
    threads = CORPUS.parent.parent / "corpus-next" / "logs" / "dxt_thread_ids" / "threads_posix.darshan"
    if not threads.is_file():
        pytest.skip(f"log with DXT thread ids not found at {threads} (needs ../shared)")
    url, data = served(threads)
    q = Page(browser, shots)
    q.open(url)
    lanes = data["lanes"]
    first = [i for i, lane in enumerate(lanes) if lane["rank"] == lanes[0]["rank"]]
    assert len(first) >= 2 and all(lanes[i]["thread"] is not None for i in first)
    names = q.page.evaluate(f"{first}.map((l) => window.iolensExplorer.laneName(l))")
    assert names == [f"rank {lanes[0]['rank']} t{k}" for k in range(len(first))]
    text = q.page.evaluate("window.iolensExplorer.hitText(5, 5)")
    assert f"thread 0 (pthread {lanes[0]['thread']})" in text
    q.shot("explore-threads")
    assert p.errors == [] and q.errors == []


def test_findings_shown_without_dxt(browser, served, shots):
    from explore_helpers import corpus_log
    url, data = served(corpus_log("imbalanced-io"))
    p = Page(browser, shots)
    p.open(url)
    items = p.page.locator("#findings li")
    assert items.count() == len(data["findings"]) > 0 and items.first.is_visible()
    assert p.errors == []


def test_phase_fastest_and_slowest_from_start_and_end(tmp_path):
    """Each phase's fastest and slowest process and their I/O time equal the
    trace's operations clipped to the phase (start AND end), counted here from
    Log.dxt() independently of the index."""
    from explore_traces import _write
    rng = np.random.default_rng(7)
    seg = {"start": [], "end": [], "offset": [], "length": []}
    for r in range(3):                       # phase 1: [0, 4) s, phase 2: [10, 14) s
        for base in (0.0, 10.0):
            s = np.sort(rng.uniform(base, base + 3, 20))
            e = s + rng.uniform(0.01, 0.2 * (r + 1), 20)
            seg["start"].append(s)
            seg["end"].append(e)
    seg = {"start": np.concatenate(seg["start"]), "end": np.concatenate(seg["end"]),
           "offset": np.zeros(120, int), "length": np.full(120, 10)}
    log = _write(tmp_path / "phases.darshan", 3, [0, 1, 2], [40] * 3, [0] * 3, seg, 20)
    with iolens.open(log) as lg:
        idx = index_for(lg, tmp_path / "c")
        data = summary(lg, idx)
        df = lg.dxt("POSIX")
    assert len(data["phases"]) == 2
    for ph in data["phases"]:
        clipped = (np.minimum(df["end"], ph["t1"]) - np.maximum(df["start"], ph["t0"])).clip(0)
        per_rank = clipped.groupby(df["rank"]).sum()
        assert ph["slowest"]["rank"] == per_rank.idxmax()
        assert ph["fastest"]["rank"] == per_rank.idxmin()
        assert ph["slowest"]["busy"] == pytest.approx(per_rank.max())
        assert ph["fastest"]["busy"] == pytest.approx(per_rank.min())


def test_overlapping_operations_on_sub_rows(browser, served, shots, tmp_path):
    from explore_traces import _write
    seg = {"start": [0.1, 0.2, 0.3, 0.8], "end": [0.6, 0.7, 0.5, 0.9],
           "offset": [0, 1, 2, 3], "length": [1, 1, 1, 1]}
    url, _ = served(_write(tmp_path / "overlap.darshan", 1, [0], [4], [0], seg, 1))
    p = Page(browser, shots)
    p.open(url)
    drawn = p.page.evaluate("window.iolensExplorer.drawn()")
    assert sorted(d["sub"] for d in drawn) == [0, 0, 1, 2]   # 0.8 s reuses the first sub-row
    for a in drawn:
        for b in drawn:
            if a is not b and a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]:
                assert a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]
    p.shot("explore-sub-rows")
    assert p.errors == []


def test_phase_time_takes_one_layer(tmp_path):
    """With both DXT modules, a phase's I/O time per process is its POSIX
    operations' (the MPI-IO calls above them are the same time, never added)."""
    from explore_helpers import corpus_log
    log = corpus_log("mpi-io-test_id4373053")
    with iolens.open(log) as lg:
        idx = index_for(lg, tmp_path / "c")
        data = summary(lg, idx)
        df = lg.dxt("POSIX")
    assert data["phases"]
    for ph in data["phases"]:
        clipped = (np.minimum(df["end"], ph["t1"]) - np.maximum(df["start"], ph["t0"])).clip(0)
        per_rank = clipped.groupby(df["rank"]).sum()
        assert ph["slowest"]["busy"] == pytest.approx(per_rank.max())
