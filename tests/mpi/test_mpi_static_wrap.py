"""A static link through GNU ld --wrap (docs/mpi.md, "Static links"): the program is
linked with `iolens config --pre-ld-flags` / `--post-ld-flags` (the --wrap= response
file and libiolens-mpi-wrap.a), run without LD_PRELOAD, and its log must hold the
exact POSIX and MPI-IO counters of the preloaded runtime."""
import subprocess

import pytest

from mpi_helpers import check_thread_probe_log, one_log, records, tool_of

NP = 3


def ld_flags(mpi):
    tool = tool_of(mpi.runtime)
    if not tool.exists():
        pytest.skip(f"no iolens tool beside {mpi.runtime}")
    flags = {}
    for which in ("pre", "post"):
        r = subprocess.run([str(tool), "config", f"--{which}-ld-flags", "--mpi", mpi.name],
                           capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
        assert r.returncode == 0, r.stderr
        flags[which] = r.stdout.split()
    wrap = mpi.runtime.with_name("libiolens-mpi-wrap.a")
    if str(wrap) not in flags["pre"]:
        pytest.skip(f"{tool} gives no --wrap link (built before it, or without objcopy)")
    opts = mpi.runtime.with_name("iolens-mpi-ld-opts")
    assert f"-Wl,@{opts}" in flags["pre"], flags
    return flags


@pytest.fixture
def wrapped(mpi, progs_dir, tmp_path):
    flags = ld_flags(mpi)
    exe = tmp_path / "mpiprobe_wrap"
    r = subprocess.run([mpi.info["cc"], "-O1", "-pthread", "-o", str(exe),
                        str(progs_dir / "mpiprobe.c"), *flags["pre"], *flags["post"]],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    nm = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    assert " T __wrap_open\n" in nm and " T __wrap_write\n" in nm, "no __wrap_ definitions"
    assert " T open\n" not in nm and " T write\n" not in nm, "wrappers still interpose"
    return exe


def run(mpi, exe, mode, tmp_path):
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, mode, work], logdir, NP, preload=False, check=False)
    return r, work, logdir


def test_wrap_link_basic(mpi, wrapped, tmp_path):
    r, work, logdir = run(mpi, wrapped, "basic", tmp_path)
    assert r.returncode == 0, r.stderr
    recs, rep = records(one_log(logdir), "MPI-IO")
    s = recs[(-1, str(work / "shared.dat"))]
    assert s["MPIIO_COLL_OPENS"] == NP and s["MPIIO_COLL_WRITES"] == NP
    assert s["MPIIO_INDEP_READS"] == NP
    assert s["MPIIO_BYTES_WRITTEN"] == NP * 4096 and s["MPIIO_BYTES_READ"] == NP * 4096
    assert rep.metadata["job"]["nprocs"] == NP


def test_wrap_link_posix_and_mpiio_threads(mpi, wrapped, tmp_path):
    r, work, logdir = run(mpi, wrapped, "threads", tmp_path)
    if r.returncode == 77 or "no MPI_THREAD_MULTIPLE" in r.stderr:
        pytest.skip(f"{mpi.name} does not provide MPI_THREAD_MULTIPLE here")
    assert r.returncode == 0, r.stderr
    check_thread_probe_log(logdir, work, NP)


def test_interposing_archive_still_links(mpi, progs_dir, tmp_path):
    """libiolens-mpi.a (no --wrap: whole archive, definitions interpose) keeps working."""
    flags = ld_flags(mpi)
    static = mpi.runtime.with_suffix(".a")
    if not static.exists():
        pytest.skip(f"no {static}")
    exe = tmp_path / "mpiprobe_interpose"
    r = subprocess.run([mpi.info["cc"], "-O1", "-pthread", "-o", str(exe),
                        str(progs_dir / "mpiprobe.c"), "-Wl,--whole-archive", str(static),
                        "-Wl,--no-whole-archive", *flags["post"]], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r, work, logdir = run(mpi, exe, "basic", tmp_path)
    assert r.returncode == 0, r.stderr
    recs, _ = records(one_log(logdir), "MPI-IO")
    s = recs[(-1, str(work / "shared.dat"))]
    assert s["MPIIO_COLL_WRITES"] == NP and s["MPIIO_INDEP_READS"] == NP
