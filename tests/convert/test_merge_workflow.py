"""`iolens merge --workflow`: two real MPI jobs (tests/convert/progs/xfer.c under the
Open MPI runtime, DXT on) that use one shared file, merged into one log: ranks of
the second job follow those of the first, the shared file's records are combined
by the counter tables' rules, every other record is kept with its counters."""
import os
import shutil

import pytest

import iolens
from conv_helpers import run, start_shifts
from mpi_helpers import Mpi, find_mpi_runtime
from rt_helpers import logs_in

N = 4


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    rt = find_mpi_runtime("openmpi")
    if rt is None or not shutil.which("mpiexec.openmpi"):
        pytest.skip("Open MPI runtime not built (set IOLENS_MPI_RUNTIME_OPENMPI)")
    mpi = Mpi("openmpi", rt)
    root = tmp_path_factory.mktemp("wf")
    exe = mpi.compile(os.path.join(os.path.dirname(__file__), "progs", "xfer.c"), root / "xfer")
    data = root / "data"
    data.mkdir()
    out = []
    for k, (mode, xfer) in enumerate((("indep", 65536), ("coll", 1 << 20))):
        mpi.run([exe, data, "shared", mode, xfer, 2 << 20], root / f"logs{k}", nprocs=N,
                env={"DXT_ENABLE_IO_TRACE": "1"}, timeout=120)
        (log,) = logs_in(root / f"logs{k}")
        out.append(log)
    return out


def moved(t, shift):
    """A timestamp counted from the workflow's start (0, "never", stays 0)."""
    return t + shift if t != 0 else t


def test_workflow_merge(tool, jobs, tmp_path):
    merged = tmp_path / "wf.darshan"
    run(tool, "merge", "--workflow", "-o", merged, *jobs)
    sa, sb = start_shifts(jobs)     # the second job's times move to the first's start
    with iolens.open(jobs[0]) as a, iolens.open(jobs[1]) as b, iolens.open(merged) as m:
        assert m.job["nprocs"] == 2 * N
        for mod in ("POSIX", "MPI-IO"):
            ra, rb, rm = a.records(mod), b.records(mod), m.records(mod)
            p = "MPIIO" if mod == "MPI-IO" else "POSIX"
            shared = set(ra.loc[ra["rank"] == -1, "id"]) & set(rb.loc[rb["rank"] == -1, "id"])
            assert shared, f"{mod}: the jobs share no file"
            for fid in shared:
                x, y = ra[ra["id"] == fid].iloc[0], rb[rb["id"] == fid].iloc[0]
                z = rm[rm["id"] == fid]
                assert len(z) == 1 and z["rank"].iloc[0] == -1
                z = z.iloc[0]
                for c in (f"{p}_BYTES_WRITTEN", f"{p}_BYTES_READ"):
                    assert z[c] == x[c] + y[c], c
                assert z[f"{p}_F_WRITE_TIME"] == pytest.approx(x[f"{p}_F_WRITE_TIME"] + y[f"{p}_F_WRITE_TIME"])
                t = f"{p}_F_OPEN_START_TIMESTAMP"
                assert z[t] == min(moved(x[t], sa), moved(y[t], sb))
            # every other record: kept, counters unchanged, second job's ranks moved by N
            assert len(rm) == len(ra) + len(rb) - len(shared)
            for df, shift in ((ra, 0), (rb, N)):
                for _, r in df[~df["id"].isin(shared)].iterrows():
                    want = shift if r["rank"] == -1 else r["rank"] + shift
                    hit = rm[(rm["id"] == r["id"]) & (rm["rank"] == want)]
                    assert len(hit) == 1, (mod, r["name"], want)
                    assert hit.iloc[0][f"{p}_BYTES_WRITTEN"] == r[f"{p}_BYTES_WRITTEN"]
        da, db, dm = a.dxt("POSIX"), b.dxt("POSIX"), m.dxt("POSIX")
        assert len(dm) == len(da) + len(db)
        assert set(dm["rank"]) == set(da["rank"]) | {r + N for r in db["rank"]}
        assert sorted(dm.loc[dm["rank"] >= N, "start"]) == sorted(db["start"] + sb)
    text = run(tool, "parse", merged).stdout
    assert "# nprocs: 8" in text


def test_without_workflow_different_jobs_are_refused(tool, jobs, tmp_path):
    """Without --workflow the two jobs' ranks would be taken as one job's and
    collide (nprocs would stay N): refused as a usage error naming both job ids."""
    merged = tmp_path / "one.darshan"
    r = run(tool, "merge", "-o", merged, *jobs, check=False)
    with iolens.open(jobs[0]) as a, iolens.open(jobs[1]) as b:
        ids = a.job["jobid"], b.job["jobid"]
    assert r.returncode == 2 and not merged.exists()
    assert r.stderr.splitlines() == [
        f"iolens merge: {jobs[1]}: job id {ids[1]}, not {ids[0]} as {jobs[0]}; logs of "
        "different jobs are merged with --workflow"]
