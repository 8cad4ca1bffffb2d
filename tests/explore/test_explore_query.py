"""The explorer's index and queries, without a browser: the segments returned
for a view are exactly the log's (compared with ``Log.dxt()``); wide views are
binned, from a scan or from the pyramid, with the same totals; the index is
built once and reused; the server answers bad parameters with 400 and listens on
127.0.0.1 only; `-o` refuses logs too large to embed."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.error
import urllib.request

import numpy as np
import pandas as pd
import pytest

import iolens
from explore_helpers import corpus_dxt_logs, corpus_log
from iolens.explore import page, query as q
from iolens.explore.cli import main as explore_main
from iolens.explore.index import index_for
from iolens.explore.server import Explorer, serve
from iolens.explore.views import summary


def frame(path):
    with iolens.open(path) as log:
        df = pd.concat([log.dxt(m).assign(mod=k) for k, m in enumerate(("POSIX", "MPIIO"))],
                       ignore_index=True)
    df["name"] = df["name"].astype(object)
    return df


def opened(path, tmp_path):
    with iolens.open(path) as log:
        idx = index_for(log, tmp_path / "cache")
        return idx, summary(log, idx)


@pytest.mark.parametrize("log", corpus_dxt_logs())
def test_query_returns_exactly_the_segments_in_view(log, tmp_path):
    idx, data = opened(log, tmp_path)
    df = frame(log)
    assert idx.nseg == len(df)
    span = data["span"]
    files = idx.meta["files"]
    for t0, t1, op in ((0, span, None), (span * 0.25, span * 0.5, 1), (span * 0.9, span, 0)):
        v = q.View(t0=t0, t1=t1, ops=None if op is None else {op}, max_spans=10 ** 6)
        r = q.query(idx, v)
        m = (df["end"] >= v.t0) & (df["start"] <= v.t1)
        if op is not None:
            m &= df["op"].astype(str) == ("write", "read")[1 - op]
        want = df[m]
        assert r["kind"] == "spans" and r["n"] == len(want)
        got = pd.DataFrame({"start": r["start"], "offset": r["offset"], "length": r["length"],
                            "name": [files[f] for f in r["file"]]})
        key = ["start", "offset", "length", "name"]
        pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                      want[key].sort_values(key).reset_index(drop=True),
                                      check_dtype=False)
    # per-process totals in the summary equal the trace's
    lt = data["lane_totals"]
    # one layer per process (POSIX when it has POSIX segments, else MPI-IO):
    # an MPI-IO operation and the POSIX ones under it move the same bytes
    by_rank = df[df["mod"] == 0].groupby("rank")["length"].sum().combine_first(
        df[df["mod"] == 1].groupby("rank")["length"].sum())
    ranks = [lane["rank"] for lane in data["lanes"]]
    got = pd.Series(np.add(lt["read_bytes"], lt["write_bytes"]), index=ranks).groupby(level=0).sum()
    assert (got.sort_index().to_numpy() == by_rank.sort_index().to_numpy()).all()


def test_bin_counts_travel_in_the_smallest_width(tmp_path):
    """A bins reply's counts are uint16 when every count fits (half the bytes
    to send and decode at thousands of ranks), else uint32; both decode to the
    counts themselves."""
    idx, _ = opened(corpus_log("partial_data_dxt"), tmp_path)
    view = q.View(px=16).normalise(idx)
    for peak, width in ((65_535, 2), (65_536, 4)):
        counts = np.zeros((view.rows, view.px), np.int64)
        counts[0, 3], counts[-1, -1] = peak, 7
        r = q._bins_reply(idx, view, counts, np.zeros(counts.shape, np.uint8), q._LaneSums(idx),
                          "scan")
        got = np.frombuffer(base64.b64decode(r["count"]), f"<u{r['count_bytes']}")
        assert r["count_bytes"] == width and r["max"] == peak
        assert (got.reshape(counts.shape) == counts).all()


def test_wide_views_are_binned_with_consistent_totals(tmp_path, monkeypatch):
    log = corpus_log("partial_data_dxt")
    idx, data = opened(log, tmp_path)
    p = q.query(idx, q.View(px=500))                # wide: from the pyramid
    assert p["kind"] == "bins" and p["source"] == "pyramid" and p["n"] == idx.nseg
    count = np.frombuffer(base64.b64decode(p["count"]), f"<u{p['count_bytes']}")
    assert count.size == len(p["rows"]["first"]) * 500 and count.sum() >= idx.nseg
    w = q.query(idx, q.View(px=500, ops={1}))
    assert w["n"] == int((np.asarray(idx.cols["op"]) == 1).sum())
    mid = data["span"] / 2                           # finer than the pyramid:
    narrow = q.View(t0=mid, t1=mid + idx.bin_width * 100, px=500, max_spans=100)
    r = q.query(idx, narrow)
    start, end = np.asarray(idx.cols["start"]), np.asarray(idx.cols["end"])
    want = int(((end >= narrow.t0) & (start <= narrow.t1)).sum())
    assert r["source"] == "scan" and r["n"] == want > 100
    f = q.query(idx, q.View(px=500, files={0}))   # file filter: scan
    assert f["source"] == "scan" and f["n"] == int((np.asarray(idx.cols["file"]) == 0).sum())
    monkeypatch.setattr(q, "SCAN_CAP", 1000)
    monkeypatch.setattr(q, "CHUNK", 5000)            # ... in chunks beyond SCAN_CAP
    f = q.query(idx, q.View(px=500, files={0}))
    assert f["source"] == "scan" and f["n"] == int((np.asarray(idx.cols["file"]) == 0).sum())


def test_index_built_once_and_reused(tmp_path):
    log = corpus_log("mpi-io-test_id4373053")
    with iolens.open(log) as lg:
        a = index_for(lg, tmp_path)
        stamp = (a.root / "meta.json").stat().st_mtime_ns
        b = index_for(lg, tmp_path)
    assert a.root == b.root and (b.root / "meta.json").stat().st_mtime_ns == stamp
    assert len(list(tmp_path.iterdir())) == 1


def test_server_routes_and_bad_parameters(tmp_path):
    log = corpus_log("mpi-io-test_id4373053")
    idx, data = opened(log, tmp_path)
    df = frame(log)
    reads3 = df[(df["rank"] == 3) & (df["op"].astype(str) == "read")]
    app = Explorer(idx, data)
    server = serve(app)
    host, port = server.server_address
    try:
        assert host == "127.0.0.1"
        base = f"http://127.0.0.1:{port}"
        tok = "token=" + app.token
        s = json.load(urllib.request.urlopen(base + "/api/summary?" + tok, timeout=30))
        assert s["nseg"] == 576 and s["job"]["nprocs"] == 32
        r = json.load(urllib.request.urlopen(base + "/api/spans?r0=3&r1=3&op=read&" + tok,
                                             timeout=30))
        assert r["n"] == len(reads3) > 0
        assert {data["lanes"][lane]["rank"] for lane in r["lane"]} == {3}
        assert set(r["op"]) == {0}
        for bad in ("t0=abc", "op=delete", "t1=nan", "px=1e400"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + "/api/spans?" + bad + "&" + tok, timeout=30)
            assert err.value.code == 400
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "/nothing?" + tok, timeout=30)
        assert err.value.code == 404
    finally:
        server.shutdown()


def test_self_contained_page_refuses_large_logs(tmp_path, monkeypatch, capsys):
    log = corpus_log("nonmpi_dxt_anonymized")
    monkeypatch.setattr(page, "EMBED_LIMIT", 1000)
    import iolens.explore.cli as cli
    monkeypatch.setattr(cli, "EMBED_LIMIT", 1000)
    out = tmp_path / "p.html"
    assert explore_main([str(log), "-o", str(out), "--cache", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err
    assert "17652 DXT segments" in err and "without -o" in err and not out.exists()


def test_cli_serves_on_localhost_and_prints_the_url(tmp_path):
    log = corpus_log("mpi-io-test_id4373053")
    proc = subprocess.Popen([sys.executable, "-m", "iolens.explore.cli", str(log), "--no-browser",
                             "--cache", str(tmp_path), "--serve-seconds", "60"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line and "?token=" in line
        url = line.split(" at ")[1].split()[0]
        html = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<canvas id=\"timeline\"" in html and "iolens-data" in html
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_unreadable_log_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.darshan"
    bad.write_bytes(b"not a darshan log at all" * 10)
    assert explore_main([str(bad), "--no-browser", "--cache", str(tmp_path / "c")]) == 1
    assert "iolens explore:" in capsys.readouterr().err


def test_narrow_process_range_gets_single_operations(tmp_path):
    """A wide view of a few processes holding few operations shows them singly
    even when the whole trace in that window is too large to send."""
    log = corpus_log("mpi-io-test_id4373053")
    idx, data = opened(log, tmp_path)
    r = q.query(idx, q.View(rank0=3, rank1=3, max_spans=100))
    df = frame(log)
    assert r["kind"] == "spans" and r["n"] == int((df["rank"] == 3).sum()) < 100
    wide = q.query(idx, q.View(max_spans=100))
    assert wide["kind"] == "bins" and wide["source"] == "pyramid"
