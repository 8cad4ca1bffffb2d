"""bench/bench_reader.py still runs (tiny sizes, no PyDarshan); the real benchmark is by hand."""
import subprocess
import sys

import pytest

from pyreader_corpus import REPO


def test_bench_reader_smoke(tmp_path):
    gen = REPO / "build" / "bench" / "gen_big_log"
    if not gen.is_file():
        pytest.skip("bench/gen_big_log not built in build/ (cmake --build build)")
    res = subprocess.run([sys.executable, str(REPO / "bench" / "bench_reader.py"),
                          "--workdir", str(tmp_path), "--records", "300", "--segments", "3000",
                          "--skip-pydarshan", "--timeout", "120"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    rows = [l for l in res.stdout.splitlines() if l.startswith("| iolens")]
    assert len(rows) >= 2 and all(r.rstrip().endswith("| ok |") for r in rows), res.stdout
