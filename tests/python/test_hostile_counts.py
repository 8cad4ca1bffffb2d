"""A log's claimed counts cost memory in proportion to its content (issue 26).

nprocs is a claim nobody can check: a 1.5 KB log may say 134 million processes, and
a record may name rank 134,000,000 - 1.  Before the fix `diff` took 4.5 GB (then a
MemoryError traceback), `diagnose` 2.2 GB and `report` 2.3 GB on such a log, with
arrays of nprocs values.  Each verb runs here as a child with a 700 MB address-space
limit (a Python with numpy and pandas needs about 400 MB of it) and must succeed
with every rule and figure (they catch their own failures and say so).
The per-rank statistics (iolens._ranks) are checked against dense arrays."""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys

import numpy as np
import pytest

from iolens._meta import module_info
from iolens._ranks import RankSums
from iolens.write import Writer

CLAIMED = 134_000_000
ADDRESS_SPACE = 700 << 20


def write_log(path, nprocs, ranks, dxt_ranks=()):
    """POSIX records of the given ranks (1 s of I/O and 4 KiB each), and optionally
    DXT_POSIX segments of other ranks."""
    info = module_info("POSIX")
    n = len(ranks)
    ids = [1000 + i for i in range(n)]
    c = np.zeros((n, len(info.counters)), dtype=np.int64)
    f = np.zeros((n, len(info.fcounters)))
    for name, v in (("POSIX_OPENS", 1), ("POSIX_WRITES", 1), ("POSIX_BYTES_WRITTEN", 4096)):
        c[:, info.counters.index(name)] = v
    for name in ("POSIX_F_WRITE_TIME", "POSIX_F_META_TIME"):
        f[:, info.fcounters.index(name)] = 40.0
    with Writer(path) as w:
        w.set_job(uid=1, start_time_sec=100, end_time_sec=400, nprocs=nprocs, jobid=7,
                  exe="/bin/app")
        w.add_names(ids, [f"/data/f{i}" for i in range(n)])
        w.put_records("POSIX", ids, list(ranks), c, f)
        if dxt_ranks:
            k = len(dxt_ranks)
            w.put_dxt("DXT_POSIX", ids[:1] * k, list(dxt_ranks), ["node"] * k, [1] * k,
                      [0] * k, [0] * k, [4096] * k, [float(r % 7) for r in range(k)],
                      [float(r % 7) + 30 * (1 + r % 3) for r in range(k)])
    return path


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_verb(module, *args):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          timeout=300, preexec_fn=limited)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    d = tmp_path_factory.mktemp("counts")
    return {"claim": write_log(d / "claim.darshan", CLAIMED, [0, -1]),
            "far": write_log(d / "far.darshan", CLAIMED, [0, CLAIMED - 1, -1, 5],
                             dxt_ranks=[CLAIMED - 1, 3, 12345678]),
            "small": write_log(d / "small.darshan", 4, [0, 1, -1]),
            "dir": d}


@pytest.mark.parametrize("which", ["claim", "far"])
@pytest.mark.parametrize("verb", ["diff", "diagnose", "report", "explore", "export"])
def test_a_huge_claim_costs_its_content(logs, verb, which):
    log = logs[which]
    args = {"diff": ("iolens.diff_cli", log, logs["small"]),
            "diagnose": ("iolens.diagnose.cli", log),
            "report": ("iolens.report.cli", "-o", logs["dir"] / f"{which}.html", log),
            "explore": ("iolens.explore.cli", "--cache", logs["dir"] / f"c-{which}", "-o",
                        logs["dir"] / f"e-{which}.html", log),
            "export": ("iolens.export.cli", "--cache", logs["dir"] / f"x-{which}", "--format",
                       "json", "-o", logs["dir"] / f"x-{which}.json", log)}[verb]
    res = run_verb(*args)
    err = res.stderr.decode()
    assert res.returncode in (0, 1), err[-2000:]     # diagnose: 1 = findings
    # diagnose and report keep going when one rule or figure fails: none may fail
    out = err + res.stdout.decode()
    if verb == "report":
        out += (logs["dir"] / f"{which}.html").read_text(errors="replace")
    for sign in ("Traceback", "MemoryError", "could not run", "could not be drawn"):
        assert sign not in out, out[-2000:]


def dense(ranks, values, nprocs, spread=True):
    """The statistics' reference: the nprocs-long array they stand for."""
    ranks, values = np.asarray(ranks), np.asarray(values, dtype=float)
    out = np.zeros(nprocs)
    own = (ranks >= 0) & (ranks < nprocs)
    np.add.at(out, ranks[own], values[own])
    if spread:
        out += values[ranks < 0].sum() / nprocs
    return out


@pytest.mark.parametrize("seed", range(40))
def test_rank_sums_match_the_dense_array(seed):
    rng = np.random.default_rng(seed)
    nprocs = int(rng.integers(1, 40))
    n = int(rng.integers(0, 30))
    ranks = rng.integers(-1, nprocs + 3, n)
    values = rng.choice([0.0, 1.0, 2.5, 7.0], n)      # repeated values: ties
    for spread in (True, False):
        got, want = RankSums(ranks, values, nprocs, spread), dense(ranks, values, nprocs, spread)
        assert got.max() == pytest.approx(want.max()) and got.min() == pytest.approx(want.min())
        assert got.argmax() == int(np.argmax(want)) and got.argmin() == int(np.argmin(want))
        assert got.median() == pytest.approx(float(np.median(want)))
        assert got.mean() == pytest.approx(float(want.mean()))
        assert all(got.at(r) == pytest.approx(want[r]) for r in range(nprocs))
        limit = float(rng.choice(want)) if n else 0.0
        over = np.flatnonzero(want >= limit - 1e-9)
        count, lowest = got.at_least(limit - 1e-9, k=5)
        assert count == len(over) and lowest == [int(r) for r in over[:5]]


def test_rank_sums_of_a_huge_claim_hold_its_records():
    s = RankSums([CLAIMED - 1, -1, 3], [5.0, CLAIMED * 2.0, 1.0], CLAIMED)
    assert len(s.sums) == 2 and s.rest == 2.0
    assert s.max() == 7.0 and s.argmax() == CLAIMED - 1 and s.median() == 2.0
    assert s.at_least(2.0, k=3) == (CLAIMED, [0, 1, 2])


def test_parse_perf_holds_the_ranks_it_saw(logs):
    """`iolens parse --perf` sums I/O time per rank: in a table of the ranks seen,
    not an array reaching the largest rank (3 GB for rank 134M - 1 before)."""
    tool = os.environ.get("IOLENS_BIN") or shutil.which("iolens")
    if not tool:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    res = subprocess.run([tool, "parse", "--perf", str(logs["far"])], capture_output=True,
                         timeout=120, preexec_fn=lambda: resource.setrlimit(
                             resource.RLIMIT_AS, (200 << 20, 200 << 20)))
    assert res.returncode == 0, res.stderr.decode()
    # ranks 0, 5 and 134M - 1 tie at 80 s: the lowest is the slowest, as upstream
    assert b"# unique files: slowest_rank: 0\n" in res.stdout
    assert b"# unique files: slowest_rank_io_time: 80.000000\n" in res.stdout
