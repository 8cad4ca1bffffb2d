"""The report page in headless Chromium: it loads offline with no console
errors, the key figures are there (by element id), a screenshot is taken, and
the overview numbers shown equal `iolens parse --perf --total`."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import iolens
from iolens.report import render_html
from report_helpers import corpus_log, iolens_bin, page_facts, parser_numbers, parser_text

websocket = pytest.importorskip("websocket", reason="websocket-client is not installed")

BROWSER = os.environ.get("IOLENS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
KEY_IDS = ("job-table", "modules-table", "overview-table", "fig-io-cost", "fig-op-counts",
           "fig-access-sizes", "file-kinds-table", "fig-timeline", "fig-dxt-heatmap")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--remote-debugging-port=0", "--window-size=1200,900"]


class Browser:
    """Just enough of the DevTools protocol: navigate, evaluate, screenshot,
    and collect console errors and uncaught exceptions."""

    def __init__(self, profile: Path):
        self.proc = subprocess.Popen([BROWSER, *FLAGS, f"--user-data-dir={profile}",
                                      "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._port(profile / "DevToolsActivePort")
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60,
                                              suppress_origin=True)
        self.next_id, self.errors, self.loaded = 0, [], False
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _port(self, path: Path) -> int:
        deadline = time.time() + 60
        while time.time() < deadline:
            if path.exists() and path.read_text().strip():
                return int(path.read_text().split()[0])
            if self.proc.poll() is not None:
                raise RuntimeError("chromium exited before opening DevTools")
            time.sleep(0.1)
        raise TimeoutError("chromium did not open its DevTools port")

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def _event(self, msg):
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(str(params.get("args")))
        elif method == "Runtime.exceptionThrown":
            self.errors.append(str(params.get("exceptionDetails")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))
        elif method == "Page.loadEventFired":
            self.loaded = True

    def open(self, url: str):
        self.loaded = False
        self.call("Page.navigate", url=url)
        deadline = time.time() + 120
        while not self.loaded and time.time() < deadline:
            self._event(json.loads(self.ws.recv()))
        assert self.loaded, f"page did not load: {url}"
        self.call("Runtime.evaluate", expression="1")  # flush pending console events

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression,
                         returnByValue=True)["result"].get("value")

    def screenshot(self, path: Path):
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16000),
                "scale": 1}
        shot = self.call("Page.captureScreenshot", format="png", clip=clip,
                         captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (Path(BROWSER).exists() or shutil.which(BROWSER)):
        pytest.skip(f"no Chromium at {BROWSER} (set IOLENS_CHROMIUM)")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    log = corpus_log("mpi_io_test_with_dxt")
    out = tmp_path_factory.mktemp("report") / "report.html"
    with iolens.open(log) as handle:
        out.write_text(render_html(handle), encoding="utf-8")
    return log, out


def test_console_error_detection_works(browser, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><script>console.error('boom')</script>")
    browser.errors.clear()
    browser.open(bad.as_uri())
    assert any("boom" in e for e in browser.errors)


def test_page_loads_cleanly_with_key_figures(browser, report, tmp_path):
    log, page = report
    browser.errors.clear()
    browser.open(page.as_uri())
    assert browser.errors == []
    found = browser.evaluate("JSON.stringify(%s.filter(id => document.getElementById(id)))"
                             % json.dumps(list(KEY_IDS)))
    assert json.loads(found) == list(KEY_IDS)
    svgs = browser.evaluate("document.querySelectorAll('figure.figure svg').length")
    assert svgs >= 5
    shot = Path(os.environ.get("IOLENS_REPORT_SCREENSHOT", tmp_path / "report.png"))
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000


def test_page_numbers_equal_iolens_parse(browser, report):
    log, page = report
    if iolens_bin() is None:
        pytest.skip("C tool `iolens` not found ($IOLENS_BIN, build/src/tools/iolens, PATH)")
    want = parser_numbers(parser_text(log, "--perf", "--total") or "")
    browser.open(page.as_uri())
    shown = json.loads(browser.evaluate(
        "JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-value]')]"
        ".map(e => [e.dataset.key, e.dataset.value])))"))
    assert shown == {k: v for k, v in page_facts(page.read_text())[1].items()}
    compared = 0
    for module, numbers in want.items():
        for key, value in numbers.items():
            if key != "total_bytes":
                assert shown[f"{module}.{key}"] == value, (module, key)
                compared += 1
    assert compared >= 9   # POSIX, MPI-IO and STDIO, 3-4 numbers each
