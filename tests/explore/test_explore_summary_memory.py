"""The explorer's summary takes its job figures from the view (iolens.view),
whose pass over the trace is streamed in chunks: building the index and then
the summary of five times the segments may not raise the peak memory (the
summary before the view loaded nothing either; a whole-trace load, as
``JobView.dxt()`` does, would add ~60 bytes per segment: +290 MB here)."""
from __future__ import annotations

import shutil
import subprocess
import sys

from test_explore_index_stream import write_flat_trace

SUMMARY_CHILD = r"""
import sys
from pathlib import Path
import iolens
from iolens.explore import index as ix
from iolens.explore.views import summary
with iolens.open(sys.argv[1]) as log:
    ix.build(log, Path(sys.argv[2]), chunk_rows=50_000, sort_rows=200_000)
    data = summary(log, ix.open_index(Path(sys.argv[2])))
    assert data["bandwidth"]["source"] == "DXT_POSIX" and data["gaps"]["global"] is not None
with open("/proc/self/status") as f:
    print(next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024)
"""


def test_summary_memory_does_not_grow_with_the_trace(tmp_path):
    peaks = {}
    for n in (1_200_000, 6_000_000):
        log = write_flat_trace(tmp_path / f"flat{n}.darshan", n)
        out = subprocess.run([sys.executable, "-c", SUMMARY_CHILD, str(log),
                              str(tmp_path / f"i{n}")],
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr
        peaks[n] = float(out.stdout.split()[-1])
        log.unlink()                                  # ~300 MB: not left for pytest's tmp
        shutil.rmtree(tmp_path / f"i{n}")
    assert peaks[6_000_000] < peaks[1_200_000] + 40, peaks
