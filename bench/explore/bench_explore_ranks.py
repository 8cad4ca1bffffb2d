"""Explorer interaction benchmark at many ranks (not part of the test run): the
time of each step in a real browser (Playwright, Debian's Chromium) on a
generated trace of N ranks whose last rank is a straggler (the trace of
tests/explore/test_explore_scale.py), and the reply sizes.  Goal: each step
under 1 s on a small shared machine (docs/explore.md records the figures).

    python bench/explore/bench_explore_ranks.py [--ranks 20000] [--repeat 5]

A step is measured from the action to the redrawn timeline (the page's
body[data-ready] changes), so it includes the query, the transfer, decoding
and drawing.  The open is measured twice: from Playwright's goto (which adds
its own latency, a few hundred ms on a loaded machine) and in the page, from
the navigation's start to body[data-ready]; the page's marks say where it goes."""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "explore"))

STEPS = {
    "zoom time (+ key)": lambda p: p.keyboard.press("+"),
    "zoom out (- key)": lambda p: p.keyboard.press("-"),
    "zoom ranks (last 1%)": lambda p: p.evaluate("window.iolensExplorer.zoomRanks(0.01, 1.0)"),
    "pan time": lambda p: p.evaluate(
        "(() => { const s = window.iolensExplorer.state, d = (s.t1 - s.t0) / 4;"
        " s.t0 += d; s.t1 += d; window.iolensExplorer.update(); })()"),
    "reset (all ranks)": lambda p: p.click("#f-reset"),
}


# Where opening the page goes: the page's performance marks (explorer.js), in
# ms from the navigation's start: its data parsed, the static charts drawn, the
# first view's reply received and drawn.
MARKS = ("(() => { const m = {}; performance.getEntriesByType('mark').forEach((e) => {"
         " if (e.name.startsWith('iolens-')) m[e.name.slice(7)] = e.startTime; }); return m; })()")


# When body[data-ready] is first set, in ms from the navigation's start (works
# for any version of the page): the open without Playwright's own latency.
READY_WATCH = """new MutationObserver((_, watch) => {
  if (document.body && document.body.dataset.ready !== undefined) {
    window.iolensReadyAt = performance.now(); watch.disconnect(); }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ["data-ready"]});"""


def step(page, action) -> float:
    prev = page.evaluate("document.body.dataset.ready")
    t = time.perf_counter()
    action(page)
    page.wait_for_function(f"document.body.dataset.ready !== {prev!r}", timeout=120_000)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    import iolens
    from explore_traces import many_ranks
    from iolens.explore.index import index_for
    from iolens.explore.server import Explorer, page_url, serve
    from iolens.explore.views import summary
    from playwright.sync_api import sync_playwright
    work = Path(tempfile.mkdtemp(prefix="iolens-bench-ranks-"))
    try:
        t = time.perf_counter()
        log = many_ranks(work / "ranks.darshan", nprocs=args.ranks)
        with iolens.open(log) as lg:
            idx = index_for(lg, work / "cache")
            data = summary(lg, idx)
        print(f"{args.ranks} ranks, {idx.nseg} operations; log + index + summary "
              f"{time.perf_counter() - t:.1f} s")
        app = Explorer(idx, data)
        server = serve(app)
        url = page_url(app, server)
        base, token = url.split("?")
        for q in ("", "px=99999&rows=99999&"):
            body = urllib.request.urlopen(f"{base}api/spans?{q}{token}", timeout=120).read()
            print(f"reply /api/spans?{q or 'default'}: {len(body) / 1e6:.2f} MB")
        times = {"open": []}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium,
                                         args=["--no-sandbox", "--disable-gpu"])
            for _ in range(args.repeat):
                page = browser.new_page(viewport={"width": 1300, "height": 900})
                page.add_init_script(READY_WATCH)
                t = time.perf_counter()
                page.goto(url)
                page.wait_for_selector("body[data-ready]", timeout=120_000)
                times["open"].append(time.perf_counter() - t)
                times.setdefault("open (in the page)", []).append(
                    page.evaluate("window.iolensReadyAt") / 1000)
                for name, at in page.evaluate(MARKS).items():
                    times.setdefault(f"  open: {name}", []).append(at / 1000)
                for name, action in STEPS.items():
                    times.setdefault(name, []).append(step(page, action))
                page.close()
            browser.close()
        server.shutdown()
        for name, ts in times.items():
            print(f"{name:24s} median {statistics.median(ts):.3f} s  max {max(ts):.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
