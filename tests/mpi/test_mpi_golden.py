"""Fidelity under MPI: w05_mpiio and w06_posix_shared on 4 processes against upstream's
golden logs, judged by ../shared/tools/compare-logs with the project's allow file.
Open MPI (the MPI the golden logs were made with): 0 differences.  MPICH: the
MPI-IO records and the workload's own POSIX records must agree; POSIX records of
files the MPI library itself opens (ROMIO's lock tests, its own writes) may differ."""
import subprocess
import sys

import pytest

from mpi_helpers import REPO, one_log, records

GOLDEN = ["w05_mpiio", "w06_posix_shared"]


@pytest.fixture(scope="module")
def allow_file(shared, tmp_path_factory):
    path = tmp_path_factory.mktemp("allow") / "allowed.txt"
    text = (shared / "golden" / "allowed-deviations.txt").read_text()
    text += "\n" + (REPO / "tests" / "runtime" / "allowed-deviations.txt").read_text()
    path.write_text(text)
    return path


def build_workload(mpi, shared, name, out):
    r = subprocess.run(["make", "-s", "-C", str(shared / "workloads"), f"OUT={out}",
                        f"MPICC={mpi.info['cc']}", str(out / name)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot build {name} with {mpi.info['cc']}: {r.stderr[-300:]}")
    return out / name


def compare(shared, ours, golden, allow):
    r = subprocess.run([sys.executable, str(shared / "tools" / "compare-logs"), str(ours),
                        str(golden), "--allow", str(allow)], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r


@pytest.mark.parametrize("name", GOLDEN)
def test_workload_matches_golden(name, mpi, shared, allow_file, tmp_path):
    pytest.importorskip("darshan")
    (tmp_path / "bin").mkdir()
    exe = build_workload(mpi, shared, name, tmp_path / "bin")
    work, logdir = tmp_path / name, tmp_path / "logs"
    work.mkdir()
    mpi.run([exe, work], logdir)
    r = compare(shared, one_log(logdir), shared / "golden" / "runtime" / f"{name}.darshan", allow_file)
    if name == "w06_posix_shared":
        # float counter compare-logs skips: process r moved 12 (r+1) x 64 KiB, so the
        # population variance of bytes is 786432^2 x 1.25 (upstream's value too)
        recs, _ = records(one_log(logdir), "POSIX")
        assert recs[(-1, str(work / "shared.posix"))]["POSIX_F_VARIANCE_RANK_BYTES"] == 773094113280.0
    if mpi.name == "openmpi":
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
        return
    # MPICH: only differences in POSIX records (files ROMIO opens) and the heat
    # maps that count them are acceptable, and for w06 (plain POSIX) none at all.
    diffs = [l for l in r.stdout.splitlines()
             if l and not l.startswith("note:") and "allowed:" not in l and " differences" not in l]
    mpiio = [l for l in diffs if "MPI-IO" in l]
    assert not mpiio, "\n".join(mpiio)
    if name == "w06_posix_shared":
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
    else:
        assert all(l.startswith(("POSIX ", "missing record ('POSIX'", "extra record ('POSIX'",
                                 "HEATMAP ('POSIX'")) for l in diffs), "\n".join(diffs)


# ---------------------------------------------------------------- DXT tracing
# The same workloads with DXT_ENABLE_IO_TRACE=1, against upstream's traced logs.
DXT_GOLDEN = {"w05_mpiio": "w05_dxt", "w06_posix_shared": "w06_dxt"}
# the DXT regions each log must hold, at the 3.5.0 release's versions (32-byte
# segments without thread ids): DXT_POSIX 1, DXT_MPIIO 2; w06 does no MPI-IO
DXT_VERSIONS = {"w05_mpiio": {"DXT_POSIX": 1, "DXT_MPIIO": 2}, "w06_posix_shared": {"DXT_POSIX": 1}}
NP = 4


def workload_traces(rep, wdir):
    """{(module, rank, name relative to wdir, 'write'|'read'): [(offset, length)]}
    of the DXT traces of the files under wdir."""
    out = {}
    for mod in ("DXT_POSIX", "DXT_MPIIO"):
        if mod not in rep.records:
            continue
        for rec in rep.records[mod].to_df():
            name = rep.name_records.get(int(rec["id"]), "")
            if not name.startswith(str(wdir).rstrip("/") + "/"):
                continue
            rel = name[len(str(wdir).rstrip("/")) + 1:]
            for kind in ("write", "read"):
                segs = rec[f"{kind}_segments"]
                out[(mod, int(rec["rank"]), rel, kind)] = (
                    [] if len(segs) == 0 else
                    list(zip(segs["offset"].astype(int).tolist(), segs["length"].astype(int).tolist())))
    return out


def w05_mpiio_byte_offsets(rank):
    """The byte offsets of w05_mpiio's MPI-IO calls of one process, in call order
    (what an MPICH build records in DXT_MPIIO): {(file, kind): [offset]}."""
    block = 65536
    return {
        ("shared.mpi", "write"): [(i * NP + rank) * block for i in range(16)] +
                                 [16 * NP * block + (rank * 4 + i) * 4096 for i in range(4)],
        ("shared.mpi", "read"): [(i * NP + (rank + 1) % NP) * block for i in range(8)],
        ("view.mpi", "write"): [rank * 1024],          # view displacement, pointer at 0
        ("view.mpi", "read"): [],
        (f"fpp-{rank}.mpi", "write"): [i * 8192 for i in range(8)],
        (f"fpp-{rank}.mpi", "read"): [i * 16384 for i in range(4)],
    }


@pytest.mark.parametrize("name", GOLDEN)
def test_workload_dxt_matches_golden(name, mpi, shared, allow_file, tmp_path):
    darshan = pytest.importorskip("darshan")
    (tmp_path / "bin").mkdir()
    exe = build_workload(mpi, shared, name, tmp_path / "bin")
    work, logdir = tmp_path / name, tmp_path / "logs"
    work.mkdir()
    mpi.run([exe, work], logdir, NP, env={"DXT_ENABLE_IO_TRACE": "1"})
    log = one_log(logdir)
    golden = shared / "golden" / "runtime" / f"{DXT_GOLDEN[name]}.darshan"
    r = compare(shared, log, golden, allow_file)

    rep = darshan.DarshanReport(str(log), read_all=True)
    gold = darshan.DarshanReport(str(golden), read_all=True)
    want = DXT_VERSIONS[name]
    for mod, ver in want.items():
        assert mod in rep.modules, f"no {mod} region in {sorted(rep.modules)}"
        assert rep.modules[mod]["ver"] == ver and gold.modules[mod]["ver"] == ver
        assert not rep.modules[mod]["partial_flag"]
        assert rep.modules[mod]["len"] > 0
    # the same DXT regions as upstream's log: none beyond these
    dxt_mods = {m for m in rep.modules if m.startswith("DXT_")}
    assert dxt_mods == set(want) == {m for m in gold.modules if m.startswith("DXT_")}

    ours = workload_traces(rep, work)
    theirs = workload_traces(gold, gold.metadata["exe"].split()[-1])
    # segments that compare-logs compared (traces present in both logs)
    compared = sum(len(ours[k]) for k in ours.keys() & theirs.keys())
    assert compared > 0
    assert {m for m, *_ in ours} == set(want)   # the workload's files are traced in each module

    if mpi.name == "openmpi":
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
        assert ours == theirs
        assert compared == sum(len(v) for v in theirs.values())
        return
    diffs = [l for l in r.stdout.splitlines()
             if l and not l.startswith("note:") and "allowed:" not in l and " differences" not in l]
    if name == "w06_posix_shared":       # plain POSIX: identical, traces included
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
        assert ours == theirs
        return
    # MPICH, w05: as without DXT, POSIX records and traces of the files ROMIO does
    # its own I/O on may differ; the MPI-IO counters may not.  The DXT_MPIIO traces
    # must agree in length sequence; their offsets are the real byte offsets
    # (upstream's Open MPI build, the golden, stores -1).
    assert not [l for l in diffs if "MPI-IO" in l], "\n".join(diffs)
    bad = [l for l in diffs if not l.startswith((
        "POSIX ", "missing record ('POSIX'", "extra record ('POSIX'", "HEATMAP ('POSIX'",
        "DXT trace differs ('DXT_POSIX'", "DXT trace differs ('DXT_MPIIO'"))]
    assert not bad, "\n".join(bad)
    mine = {k: v for k, v in ours.items() if k[0] == "DXT_MPIIO"}
    ref = {k: v for k, v in theirs.items() if k[0] == "DXT_MPIIO"}
    assert mine.keys() == ref.keys()
    for key in ref:
        assert [l for _, l in mine[key]] == [l for _, l in ref[key]], key
        assert all(o == -1 for o, _ in ref[key]), key
    for rank in range(NP):
        for (fname, kind), offs in w05_mpiio_byte_offsets(rank).items():
            assert [o for o, _ in mine.get(("DXT_MPIIO", rank, fname, kind), [])] == offs, (rank, fname, kind)
