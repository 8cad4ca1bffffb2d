"""`iolens run -- mpiexec ...` (issue #26; docs/cli.md, `iolens run`; docs/mpi.md,
"Running"): the ranks get the MPI runtime built for the launcher's MPI, through
the launcher's own option, and the launcher gets none; the result is the job's
normal MPI log (nprocs = ranks, an MPI-IO module, one log).  A launcher run cannot
handle, or a runtime built for another MPI, is refused with status 2 and the
command that works.  Slurm's srun is not installed here: a stand-in named srun
records the command line it is given and its own environment, and runs nothing."""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from mpi_helpers import MPIS, find_mpi_runtime, linked_mpi, one_log, records
from rt_helpers import tool  # noqa: F401  (fixture; mpi_helpers puts tests/runtime on the path)

NP = 4


def run_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "SLURM_", "PBS_", "LSB_"))}
    env.pop("LD_PRELOAD", None)
    mmap = tmp_path / "mmap"
    mmap.mkdir(exist_ok=True)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "DARSHAN_MMAP_LOGPATH": str(mmap)})
    env.update(extra)
    return env


def iolens_run(tool, tmp_path, argv, timeout=180, opts=(), **env):
    """`iolens run` with a TMPDIR of its own: Open MPI's session directory goes
    there, and two mpiexec started at once in one /tmp race to create it (kept
    short: it holds socket names)."""
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ior", dir="/tmp")
    try:
        return subprocess.run([str(tool), "run", "--logpath", str(logs), *opts, "--"] +
                              [str(a) for a in argv],
                              capture_output=True, text=True, timeout=timeout,
                              env=run_env(tmp_path, TMPDIR=tmp, **env)), logs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def launcher_argv(mpi, name=None):
    argv = [name or mpi.info["run"]]
    return argv + (["--oversubscribe"] if mpi.name == "openmpi" else []) + ["-n", str(NP)]


def check_mpi_job_log(r, logs, work):
    """One log, written by the ranks: nprocs 4, the probe's MPI-IO counters."""
    assert r.returncode == 0, r.stdout + r.stderr
    log = one_log(logs)
    assert re.findall(r"^iolens: log written to (.+)$", r.stderr, re.M) == [str(log)]
    mpiio, rep = records(log, "MPI-IO")
    assert rep.metadata["job"]["nprocs"] == NP
    shared = mpiio[(-1, str(work / "shared.dat"))]
    assert shared["MPIIO_COLL_WRITES"] == NP and shared["MPIIO_INDEP_READS"] == NP
    return log


@pytest.fixture
def probe(mpi, progs_dir, tmp_path):
    return mpi.compile(progs_dir / "mpiprobe.c", tmp_path / "mpiprobe")


def runtime_var(mpi):
    return {f"IOLENS_MPI_RUNTIME_{mpi.name.upper()}": str(mpi.runtime)}


def test_launcher_ranks_get_the_mpi_runtime(tool, mpi, probe, tmp_path):
    """mpiexec.openmpi / mpiexec.mpich under `iolens run`: the normal MPI log."""
    work = tmp_path / "work"
    work.mkdir()
    r, logs = iolens_run(tool, tmp_path, launcher_argv(mpi) + [probe, "basic", work],
                         **runtime_var(mpi))
    check_mpi_job_log(r, logs, work)
    assert list((tmp_path / "mmap").iterdir()) == []


def test_plain_mpiexec_is_known_by_its_version(tool, mpi, probe, tmp_path):
    """A launcher called just `mpiexec` whose file is not named after its MPI (a
    hard link here; a site's own install elsewhere): run asks `mpiexec --version`."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    real = Path(os.path.realpath(shutil.which(mpi.info["run"])))
    helpers = ["hydra_pmi_proxy"] if mpi.name == "mpich" else []
    try:
        for name, src in [("mpiexec", real)] + [(h, Path(shutil.which(h))) for h in helpers]:
            os.link(src, bindir / name)
    except OSError as e:
        pytest.skip(f"cannot hard-link {real} into {bindir}: {e}")
    work = tmp_path / "work"
    work.mkdir()
    r, logs = iolens_run(tool, tmp_path, launcher_argv(mpi, str(bindir / "mpiexec")) +
                         [probe, "basic", work], **runtime_var(mpi))
    check_mpi_job_log(r, logs, work)


def test_runtime_of_the_other_mpi_is_refused(tool, mpi, probe, tmp_path):
    """IOLENS_MPI_RUNTIME_<MPI> naming the runtime built for the other MPI: refused
    before anything starts, with the command to run once the right one is built."""
    other = "mpich" if mpi.name == "openmpi" else "openmpi"
    wrong = find_mpi_runtime(other)
    if wrong is None:
        pytest.skip(f"no runtime built for {other}")
    marker = tmp_path / "started"
    r, logs = iolens_run(tool, tmp_path, launcher_argv(mpi) + ["touch", marker],
                         **{f"IOLENS_MPI_RUNTIME_{mpi.name.upper()}": str(wrong)})
    assert r.returncode == 2 and not marker.exists(), r.stderr
    names = {"openmpi": "Open MPI", "mpich": "MPICH"}
    assert f"{wrong}, is built for {names[other]}" in r.stderr
    assert f"IOLENS_MPI_RUNTIME_{mpi.name.upper()}" in r.stderr
    lib = f"<libiolens-mpi.so built for {names[mpi.name]}>"
    option = f"-x 'LD_PRELOAD={lib}'" if mpi.name == "openmpi" else f"-genv LD_PRELOAD '{lib}'"
    assert f"  {mpi.info['run']} {option} " in r.stderr
    assert list(logs.iterdir()) == []


def own_mpi_runtimes(tool):
    """The MPIs whose runtime the tool's own build tree or install holds: the
    default libiolens-mpi.so, and a further MPI's in <runtime dir>/<mpi>/ or
    <libdir>/iolens/<mpi>/ (docs/install.md, "One build")."""
    tool = Path(tool).resolve()
    tree, prefix = tool.parents[2], tool.parents[1]
    places = [tree / "src" / "runtime", prefix / "lib"]
    libs = [p / "libiolens-mpi.so" for p in places]
    libs += [p / d / "libiolens-mpi.so" for p in (places[0], places[1] / "iolens") for d in MPIS]
    return {linked_mpi(lib) for lib in libs if lib.exists()} - {None}


def test_run_finds_the_runtime_of_each_mpi_it_has(tool, tmp_path):
    """Without the variables, run finds the runtimes its own build or install has:
    the launcher of each MPI with a runtime there runs (a tree built with
    IOLENS_MPI_EXTRA, as scripts/setup.sh builds, has both); one without is refused
    with status 2 (tests/install checks that on an install of one MPI)."""
    if not all(shutil.which(i["run"]) for i in MPIS.values()):
        pytest.skip("needs both mpiexec.openmpi and mpiexec.mpich")
    have = own_mpi_runtimes(tool)
    if not have:
        pytest.skip(f"{tool} finds no MPI runtime of its own (a build without MPI)")
    for name, info in MPIS.items():
        r, _ = iolens_run(tool, tmp_path, [info["run"], "-n", "1", "true"], timeout=120,
                          IOLENS_MPI_RUNTIME_OPENMPI="", IOLENS_MPI_RUNTIME_MPICH="")
        if name in have:
            assert r.returncode == 0, (name, r.stderr)
        else:
            assert r.returncode == 2 and "is built for" in r.stderr, (name, r.stderr)


SRUN = """#!/bin/sh
{ printf '%s\\n' "$@"; echo "own LD_PRELOAD=${LD_PRELOAD-}"; } > "$SRUN_RECORD"
"""


@pytest.fixture
def fake_srun(tmp_path):
    """A directory holding the stand-in srun, and the file it records into."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    (bindir / "srun").write_text(SRUN)
    (bindir / "srun").chmod(0o755)
    return bindir, tmp_path / "srun-record"


def srun_run(tool, tmp_path, fake_srun, args, mpi):
    bindir, record = fake_srun
    path = f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    r, logs = iolens_run(tool, tmp_path, ["srun"] + args, timeout=60, PATH=path,
                         SRUN_RECORD=str(record), **runtime_var(mpi))
    return r, logs, record.read_text().splitlines() if record.exists() else None


def exported(value):
    """{NAME: VALUE} of an --export list (and its leading ALL/NONE words)."""
    out = {}
    for item in value.split(","):
        k, _, v = item.partition("=")
        out[k] = v
    return out


@pytest.mark.parametrize("given,expect_all", [([], True), (["--export=NONE"], False),
                                              (["--export", "HOME,PATH"], False)])
def test_srun_command(tool, mpi, probe, tmp_path, fake_srun, given, expect_all):
    """srun gets `--export=ALL,LD_PRELOAD=<runtime of the program's MPI>,...` (a
    user's --export extended; NONE becomes only ours), and none of it itself."""
    r, logs, got = srun_run(tool, tmp_path, fake_srun, given + ["-n", "4", str(probe), "basic"],
                            mpi)
    assert got is not None, r.stderr
    assert got[-1] == "own LD_PRELOAD="                  # the launcher is not instrumented
    assert got[1:-1] == ["-n", "4", str(probe), "basic"]
    assert got[0].startswith("--export=")
    env = exported(got[0][len("--export="):])
    assert ("ALL" in env) == expect_all
    assert ("HOME" in env and "PATH" in env) == (given[:1] == ["--export"])
    assert "NONE" not in env
    assert env["LD_PRELOAD"] == str(mpi.runtime)
    assert env["DARSHAN_LOGPATH"] == str(logs)
    assert set(env) >= {"IOLENS_LOG_REPORT", "IOLENS_RUN_PID"}
    assert linked_mpi(mpi.runtime) == mpi.name


def test_srun_of_a_script_is_refused_with_the_command(tool, mpi, tmp_path, fake_srun):
    """Which MPI a script's ranks use cannot be read off the script: refused, with
    the srun command that gives them a runtime."""
    script = tmp_path / "job.py"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o755)
    r, logs, got = srun_run(tool, tmp_path, fake_srun, ["-n", "4", str(script)], mpi)
    assert r.returncode == 2 and got is None, r.stderr
    assert "cannot tell which MPI the program links" in r.stderr
    (cmd,) = [ln for ln in r.stderr.splitlines() if ln.startswith("  srun ")]
    assert cmd.startswith("  srun --export=ALL,LD_PRELOAD=") and cmd.endswith(f" -n 4 {script}")
    assert f"  iolens run --no-mpi --logpath {logs} -- srun -n 4 {script}" in r.stderr


def test_srun_of_a_program_without_mpi_is_run_as_any_program(tool, mpi, tmp_path, fake_srun):
    """srun of an ELF program that links no MPI (here /bin/true), and any command
    with --no-mpi: no MPI runtime, no --export; libiolens.so for everything, as
    for any program."""
    r, _, got = srun_run(tool, tmp_path, fake_srun, ["-n", "4", "/bin/true"], mpi)
    assert r.returncode == 0 and got[:-1] == ["-n", "4", "/bin/true"], r.stderr
    assert got[-1].startswith("own LD_PRELOAD=") and got[-1].endswith("/libiolens.so")
    bindir, record = fake_srun
    record.unlink()
    script = tmp_path / "job.py"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o755)
    r, _ = iolens_run(tool, tmp_path, ["srun", "-n", "2", script], timeout=60, opts=["--no-mpi"],
                      PATH=f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                      SRUN_RECORD=str(record))
    got = record.read_text().splitlines()
    assert r.returncode == 0 and got[:-1] == ["-n", "2", str(script)], r.stderr
    assert got[-1].endswith("/libiolens.so")


def test_unknown_launcher_is_refused_with_the_command(tool, mpi, tmp_path):
    """A launcher whose way of passing settings run does not know (aprun): refused,
    with an `env LD_PRELOAD=...` command for a launcher that hands its
    environment on."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    marker = tmp_path / "started"
    (bindir / "aprun").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (bindir / "aprun").chmod(0o755)
    r, _ = iolens_run(tool, tmp_path, ["aprun", "-n", "4", "./app"], timeout=60,
                      PATH=f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                      **runtime_var(mpi))
    assert r.returncode == 2 and not marker.exists(), r.stderr
    assert "aprun is an MPI launcher whose way of passing settings" in r.stderr
    assert re.search(r"^  env LD_PRELOAD=\S+libiolens-mpi\.so DARSHAN_LOGPATH=\S+ aprun -n 4 "
                     r"\./app$", r.stderr, re.M), r.stderr
