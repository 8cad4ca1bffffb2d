"""Helpers for the MPI tests: which MPI runtimes are built (one libiolens-mpi.so per
MPI, see docs/mpi.md), how to compile against and launch with each MPI, and how to
read the one log of a job."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "runtime"))
from rt_helpers import SHARED  # noqa: E402

# per MPI: the library its runtime links, its compilers and its launcher
MPIS = {
    "openmpi": {"lib": "libmpi.so", "cc": "mpicc.openmpi", "fc": "mpif90.openmpi",
                "run": "mpiexec.openmpi"},
    "mpich": {"lib": "libmpich.so", "cc": "mpicc.mpich", "fc": "mpif90.mpich",
              "run": "mpiexec.mpich"},
}


def linked_mpi(lib):
    """Which MPI a built libiolens-mpi.so links ('openmpi', 'mpich' or None)."""
    r = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True)
    for name, info in MPIS.items():
        if f"[{info['lib']}." in r.stdout:
            return name
    return None


def find_mpi_runtime(mpi):
    """IOLENS_MPI_RUNTIME_<MPI> (e.g. IOLENS_MPI_RUNTIME_MPICH), else the newest
    build*/src/runtime/libiolens-mpi.so (or a further MPI's, in src/runtime/<mpi>/)
    linked against that MPI."""
    env = os.environ.get(f"IOLENS_MPI_RUNTIME_{mpi.upper()}")
    if env:
        return Path(env).resolve() if Path(env).exists() else None
    cands = [*REPO.glob("build*/src/runtime/libiolens-mpi.so"),
             *REPO.glob("build*/src/runtime/*/libiolens-mpi.so")]
    cands = sorted(cands, key=lambda p: -p.stat().st_mtime)
    return next((c for c in cands if linked_mpi(c) == mpi), None)


def tool_of(runtime):
    """The iolens tool of the build tree holding a built MPI runtime (a further MPI's
    runtime is in src/runtime/<mpi>/ of the same tree: docs/install.md, "One build")."""
    for parent in runtime.parents:
        if (parent / "CMakeCache.txt").exists():
            return parent / "src" / "tools" / "iolens"
    return runtime.parent.parent / "tools" / "iolens"


class Mpi:
    """One MPI with our runtime built for it."""

    def __init__(self, name, runtime):
        self.name, self.runtime, self.info = name, runtime, MPIS[name]

    def compile(self, src, out, fortran=False, extra=()):
        cc = self.info["fc" if fortran else "cc"]
        r = subprocess.run([cc, "-O1", "-pthread", "-o", str(out), str(src), *extra],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{cc} {src}: {r.stderr}"
        return out

    def run(self, argv, logdir, nprocs=4, env=None, preload=True, check=True, timeout=120):
        """Run argv on nprocs processes with the runtime preloaded; logs into logdir."""
        Path(logdir).mkdir(parents=True, exist_ok=True)
        full = {k: v for k, v in os.environ.items()
                if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_LOG", "SLURM_", "PBS_", "LSB_"))}
        full.update({"DARSHAN_LOGPATH": str(logdir), "OMPI_ALLOW_RUN_AS_ROOT": "1",
                     "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"})
        full.update(env or {})
        if preload:
            full["LD_PRELOAD"] = str(self.runtime)
        names = ["LD_PRELOAD", "DARSHAN_LOGPATH"] + [k for k in (env or {})]
        cmd = [self.info["run"], "-n", str(nprocs)]
        if self.name == "openmpi":
            cmd += ["--oversubscribe"] + [a for k in names if k in full for a in ("-x", k)]
        else:
            cmd += [a for k in names if k in full for a in ("-genv", k, full[k])]
        r = subprocess.run(cmd + [str(a) for a in argv], env=full, capture_output=True, text=True,
                           timeout=timeout)
        if check:
            assert r.returncode == 0, f"{cmd} {argv}: rc={r.returncode}\n{r.stdout}{r.stderr}"
        return r


def available_mpis():
    out = []
    for name, info in MPIS.items():
        rt = find_mpi_runtime(name)
        missing = [t for t in (info["cc"], info["run"]) if not shutil.which(t)]
        out.append(pytest.param(name, marks=pytest.mark.skipif(
            rt is None or bool(missing),
            reason=f"{name}: " + (f"libiolens-mpi.so not built for it (docs/mpi.md)" if rt is None
                                  else f"{missing} not installed"))))
    return out


def logs_in(logdir):
    return sorted(Path(logdir).rglob("*.darshan"))


def one_log(logdir):
    logs = logs_in(logdir)
    assert len(logs) == 1, f"expected one log per job, got {logs}"
    return logs[0]


def records(log, module):
    """{(rank, name): {counter: value}} of a module, read with PyDarshan."""
    darshan = pytest.importorskip("darshan")
    rep = darshan.DarshanReport(str(log), read_all=True)
    if module not in rep.records:
        return {}, rep
    dfs = rep.records[module].to_df()
    df, fdf = dfs["counters"], dfs["fcounters"]
    names = rep.name_records
    out = {}
    ids, ranks = df["id"].tolist(), df["rank"].tolist()   # ints (a row would be floats)
    frows = fdf.to_dict("records")
    for i, row in enumerate(df.to_dict("records")):
        row.update({k: v for k, v in frows[i].items() if k not in ("id", "rank")})
        out[(int(ranks[i]), names[int(ids[i])])] = row
    return out, rep


def check_thread_probe_log(logdir, work, nprocs):
    """The log of the probe's "threads" mode (4 threads per process, 8 independent
    MPI-IO writes each to one shared file, plus 8 POSIX writes each to a file of
    its own): exact operation and byte counts."""
    log = one_log(logdir)
    mpiio, _ = records(log, "MPI-IO")
    shared = mpiio[(-1, str(work / "shared.dat"))]
    assert shared["MPIIO_INDEP_WRITES"] == nprocs * 4 * 8
    assert shared["MPIIO_BYTES_WRITTEN"] == nprocs * 4 * 8 * 4096
    posix, _ = records(log, "POSIX")
    for rank in range(nprocs):
        for t in range(4):
            rec = posix[(rank, str(work / f"thread-{rank}-{t}.dat"))]
            assert rec["POSIX_OPENS"] == 1 and rec["POSIX_WRITES"] == 8
            assert rec["POSIX_BYTES_WRITTEN"] == 8 * 4096 and rec["POSIX_READS"] == 0
