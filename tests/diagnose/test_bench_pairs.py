"""bench/diagnose/run_pairs.py still works end to end: one pair (small vs
buffered writes), once, at a small scale, under the real MPI runtime.  Checks
the script's plumbing (timings, the log, the diagnosis, the JSON), not the
ratio: that is a benchmark result, recorded in docs/diagnosis.md."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIME = Path(os.environ.get("IOLENS_MPI_RUNTIME_OPENMPI",
                              REPO / "build" / "src" / "runtime" / "libiolens-mpi.so"))


@pytest.mark.skipif(not RUNTIME.is_file(), reason=f"no Open MPI runtime at {RUNTIME}")
@pytest.mark.skipif(not (shutil.which("mpicc.openmpi") and shutil.which("mpiexec.openmpi")),
                    reason="Open MPI compilers or launcher not installed")
def test_one_pair_end_to_end(tmp_path):
    out = tmp_path / "pairs.json"
    r = subprocess.run([sys.executable, str(REPO / "bench" / "diagnose" / "run_pairs.py"),
                        "--pairs", "small_writes", "--repeat", "1", "--scale", "0.05",
                        "--workdir", str(tmp_path / "work"), "--json", str(out),
                        "--timeout", "120"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, IOLENS_MPI_RUNTIME_OPENMPI=str(RUNTIME)))
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())["small_writes"]
    assert res["runs"] == 1 and res["bad"] > 0 and res["fixed"] > 0
    assert res["saving"] == pytest.approx(res["bad"] - res["fixed"])
    # 6,553 writes of 64 B per process: the diagnosis of the bad run finds them
    assert "small-io" in res["fired"] and res["fired_runs"] == 1 and res["estimate"] > 0
    assert "| small_writes | small-io |" in r.stdout
