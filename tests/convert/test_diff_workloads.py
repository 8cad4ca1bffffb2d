"""`iolens diff` on two runs of a real MPI program (tests/convert/progs/xfer.c, run
with mpiexec under the Open MPI runtime) that differ in one parameter: the change
made is found and ranked first, in text and --json output."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from mpi_helpers import Mpi, find_mpi_runtime
from rt_helpers import logs_in

BASE = {"layout": "shared", "mode": "indep", "xfer": 65536}
TOTAL = 4 << 20          # bytes per rank


@pytest.fixture(scope="module")
def mpi():
    rt = find_mpi_runtime("openmpi")
    if rt is None or not shutil.which("mpiexec.openmpi"):
        pytest.skip("Open MPI runtime not built (set IOLENS_MPI_RUNTIME_OPENMPI)")
    return Mpi("openmpi", rt)


@pytest.fixture(scope="module")
def xfer(mpi, tmp_path_factory):
    exe = tmp_path_factory.mktemp("prog") / "xfer"
    return mpi.compile(os.path.join(os.path.dirname(__file__), "progs", "xfer.c"), exe)


@pytest.fixture(scope="module")
def runs(mpi, xfer, tmp_path_factory):
    """Run the program with the given parameters (cached); path of its log.  Every
    run uses one data directory, as two runs of one workload would."""
    root = tmp_path_factory.mktemp("diffruns")
    data = root / "data"
    data.mkdir()
    cache = {}

    def get(**change):
        p = {**BASE, **change}
        key = tuple(sorted(p.items()))
        if key not in cache:
            logdir = root / f"logs{len(cache)}"
            for f in data.iterdir():
                f.unlink()
            mpi.run([xfer, data, p["layout"], p["mode"], p["xfer"], TOTAL], logdir, nprocs=4,
                    timeout=120)
            (cache[key],) = logs_in(logdir)
        return cache[key]
    return get


def diff(a, b, *opts):
    r = subprocess.run([sys.executable, "-m", "iolens.diff_cli", str(a), str(b), *opts],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("change,aspect,metric", [
    ({"xfer": 1 << 20}, "access size", ("mean_access", "common_access")),
    ({"mode": "coll"}, "collective", ("collective",)),
    ({"layout": "fpp"}, "layout", ("shared",)),
], ids=["transfer-size", "collective", "file-per-process"])
def test_known_change_ranked_first(runs, change, aspect, metric):
    a, b = runs(), runs(**change)
    out = json.loads(diff(a, b, "--json"))
    first = out["changes"][0]
    assert first["aspect"] == aspect and first["metric"] in metric, out["changes"][:3]
    text = diff(a, b).splitlines()
    assert text[0].startswith("  1. [" + aspect)
    # and the other direction finds it too
    back = json.loads(diff(b, a, "--json"))["changes"][0]
    assert back["aspect"] == aspect


def test_same_parameters_small(runs):
    """Two runs with the same parameters differ only by noise (time), nothing the
    known changes would be confused with."""
    a = runs()
    b = runs(xfer=65536, layout="shared", mode="indep")   # cached: the same log
    assert json.loads(diff(a, b, "--json"))["changes"] == []


def test_bad_input(tmp_path):
    bad = tmp_path / "bad.darshan"
    bad.write_bytes(b"not a log")
    r = subprocess.run([sys.executable, "-m", "iolens.diff_cli", str(bad), str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "bad.darshan" in r.stderr
