"""The static-link recipe of docs/mpi.md ("Static links") from an install, not from a
build tree: the static runtime and its --wrap option file are installed (by
`cmake --install` and in the wheel), and `iolens config --pre-ld-flags` of an
installed iolens names those files, found relative to itself.  The recipe is run
from a moved install with every build tree of the checkout out of sight, and the
log is read back with our own reader."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpi_helpers import MPIS, REPO, Mpi, find_mpi_runtime, linked_mpi, logs_in
from rt_helpers import find_tool

iolens = pytest.importorskip("iolens")

NP = 2
BLOCK = 4096


def tree_of(path):
    """The CMake build tree holding a built file, or None."""
    for parent in Path(path).resolve().parents:
        if (parent / "CMakeCache.txt").exists():
            return parent
    return None


def cmake_install(tree, prefix, component=None):
    cmd = ["cmake", "--install", str(tree), "--prefix", str(prefix)]
    if component:
        cmd += ["--component", component]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"{cmd}: {r.stdout}{r.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The tool's build tree installed whole, plus the MPI runtime of every other MPI's
    build tree (component iolens-mpi-link), into one prefix, which is then moved: a
    path fixed at build or install time would now be wrong."""
    tool = find_tool()
    tree = tree_of(tool) if tool else None
    if tree is None or not (tree / "cmake_install.cmake").exists():
        pytest.skip(f"the iolens tool ({tool}) is not in a CMake build tree to install from")
    staging = tmp_path_factory.mktemp("install") / "staging"
    cmake_install(tree, staging)
    for name in MPIS:
        runtime = find_mpi_runtime(name)
        other = tree_of(runtime) if runtime else None
        if other is not None and other != tree:
            cmake_install(other, staging, "iolens-mpi-link")
    moved = staging.with_name("moved")
    staging.rename(moved)
    return moved


def can_hide():
    r = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return r.returncode == 0


def build_trees():
    """Every build tree of the checkout (build*) and those
    the tool and the MPI runtimes under test come from."""
    trees = {p.resolve() for p in REPO.glob("build*") if p.is_dir()}
    built = [find_tool()] + [find_mpi_runtime(name) for name in MPIS]
    trees |= {tree_of(b) for b in built if b is not None and tree_of(b) is not None}
    return sorted(trees)


def out_of_sight(argv, empty):
    """argv run with every build tree (build_trees) covered by an empty directory, in
    a private mount namespace, where this machine allows one; else argv as is (the
    tests' path checks still hold)."""
    trees = build_trees()
    if not trees or not can_hide():
        return [str(a) for a in argv]
    empty.mkdir(exist_ok=True)
    mounts = "".join(f'mount --bind "$0" "{t}" && ' for t in trees)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", mounts + 'exec "$@"',
            str(empty), *[str(a) for a in argv]]


def config_flags(tool, mpi=None, wrap=lambda argv: argv):
    flags = {}
    for which in ("pre", "post"):
        argv = [tool, "config", f"--{which}-ld-flags"] + (["--mpi", mpi] if mpi else [])
        r = subprocess.run(wrap(argv), capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin"})
        assert r.returncode == 0, r.stderr
        flags[which] = r.stdout.split()
    return flags


def named_files(flags):
    """The files a --pre-ld-flags line names: the -Wl,@ response file and the archive."""
    return [Path(t[len("-Wl,@"):] if t.startswith("-Wl,@") else t)
            for t in flags if t.startswith(("-Wl,@", "/"))]


def assert_installed(flags, prefix, mpi):
    files = named_files(flags["pre"])
    assert files, flags
    for f in files:
        assert f.is_relative_to(prefix.resolve()) and f.is_file(), (f, prefix)
    assert any(f.parent.name == mpi and f.parent.parent.name == "iolens" for f in files), files


def link_and_run(mpi, flags, progs_dir, tmp_path, wrap=lambda argv: argv):
    """The recipe: mpicc ... $(pre) ... $(post), then the program on NP processes
    without LD_PRELOAD; returns the work directory and its one log."""
    exe = tmp_path / "mpiprobe_installed"
    argv = [mpi.info["cc"], "-O1", "-pthread", "-o", exe, progs_dir / "mpiprobe.c",
            *flags["pre"], *flags["post"]]
    r = subprocess.run(wrap(argv), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, "mixed", work], logdir, NP, preload=False, check=False)
    assert r.returncode == 0, r.stderr
    logs = logs_in(logdir)
    assert len(logs) == 1, logs
    return work, logs[0]


def check_log(log, work):
    """MPI-IO: one shared record of shared.dat (NP collective writes); POSIX: the
    program's own rank-1.dat, one block written by process 1 (mpiprobe "mixed")."""
    with iolens.open(log) as lg:
        assert lg.job["nprocs"] == NP
        mpiio = lg.records("MPI-IO")
        shared = mpiio[mpiio.name == str(work / "shared.dat")]
        assert len(shared) == 1 and shared.iloc[0]["rank"] == -1, mpiio[["rank", "name"]]
        assert shared.iloc[0]["MPIIO_COLL_WRITES"] == NP
        assert shared.iloc[0]["MPIIO_BYTES_WRITTEN"] == NP * BLOCK
        posix = lg.records("POSIX")
        own = posix[posix.name == str(work / "rank-1.dat")]
        assert len(own) == 1 and own.iloc[0]["rank"] == 1, posix[["rank", "name"]]
        assert own.iloc[0]["POSIX_WRITES"] == 1 and own.iloc[0]["POSIX_BYTES_WRITTEN"] == BLOCK


def test_recipe_from_moved_install_without_build_tree(mpi, installed, progs_dir, tmp_path):
    """cmake --install, move the prefix, hide the build trees: the flags name the
    moved prefix's files for this MPI, and the linked program logs MPI-IO and POSIX."""
    hide = lambda argv: out_of_sight(argv, tmp_path / "empty")   # noqa: E731
    flags = config_flags(installed / "bin" / "iolens", mpi.name, hide)
    assert_installed(flags, installed, mpi.name)
    work, log = link_and_run(mpi, flags, progs_dir, tmp_path, hide)
    check_log(log, work)


def test_default_mpi_is_the_one_built(installed):
    """Without --mpi: the MPI of the tree the tool was built in (what its installed
    libiolens-mpi.so links), the same line as --mpi naming it."""
    tool = installed / "bin" / "iolens"
    built = linked_mpi(installed / "lib" / "libiolens-mpi.so")
    if built is None:
        pytest.skip(f"no MPI runtime installed in {installed}/lib")
    default = config_flags(tool)
    assert {f.parent.name for f in named_files(default["pre"])} == {built}, default
    assert default == config_flags(tool, built)


def test_wheel_carries_the_link_files(progs_dir, tmp_path):
    """The `pip install .` environment running these tests: its iolens names files
    of the environment, and a copy of its bin/ and lib/ elsewhere names the copy's,
    which link a working program."""
    tool = Path(sys.prefix) / "bin" / "iolens"
    if sys.prefix == sys.base_prefix or not tool.exists():
        pytest.skip(f"not running in an environment with iolens installed ({sys.prefix})")
    flags = config_flags(tool)
    files = named_files(flags["pre"])
    name = files[0].parent.name if files else None
    assert_installed(flags, Path(sys.prefix), name)
    copy = tmp_path / "copy"
    (copy / "bin").mkdir(parents=True)
    shutil.copy2(tool, copy / "bin" / "iolens")
    shutil.copytree(Path(sys.prefix) / "lib" / "iolens", copy / "lib" / "iolens")
    flags = config_flags(copy / "bin" / "iolens")
    assert_installed(flags, copy, name)
    mpi = Mpi(name, None)
    if not shutil.which(mpi.info["cc"]) or not shutil.which(mpi.info["run"]):
        pytest.skip(f"{name}'s compiler or launcher is not installed")
    work, log = link_and_run(mpi, flags, progs_dir, tmp_path)
    check_log(log, work)


def test_run_preloads_the_installed_runtime(installed, tmp_path):
    """`iolens run` of a moved install preloads that install's libiolens.so."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IOLENS_", "DARSHAN_"))}
    argv = [installed / "bin" / "iolens", "run", "--logpath", tmp_path, "--",
            "grep", "-o", "/[^ ]*libiolens[^ ]*", "/proc/self/maps"]
    r = subprocess.run(out_of_sight(argv, tmp_path / "empty"), capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    loaded = {Path(line) for line in r.stdout.split()}
    assert loaded == {(installed / "lib" / "libiolens.so").resolve()}, r.stdout


def test_missing_link_files_are_named(installed, tmp_path):
    """An iolens with no runtime beside it says where it looked (exit 1); an unknown
    --mpi is a usage error (exit 2)."""
    (tmp_path / "bin").mkdir()
    lone = tmp_path / "bin" / "iolens"
    shutil.copy2(installed / "bin" / "iolens", lone)
    r = subprocess.run([lone, "config", "--pre-ld-flags"], capture_output=True, text=True)
    assert r.returncode == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert "no static MPI runtime" in r.stderr and str(tmp_path) in r.stderr, r.stderr
    r = subprocess.run([installed / "bin" / "iolens", "config", "--pre-ld-flags", "--mpi", "lam"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--mpi lam" in r.stderr, r.stderr


def fresh_install(how, mpi, work):
    """A new build tree under WORK, installed into WORK/prefix by cmake or by pip
    (the wheel), then deleted; returns the prefix."""
    tree, prefix = work / "tree", work / "prefix"
    if how == "cmake":
        steps = [["cmake", "-S", REPO, "-B", tree, "-G", "Ninja", "-DBUILD_TESTING=OFF",
                  f"-DMPI_C_COMPILER={mpi.info['cc']}"],
                 ["cmake", "--build", tree, "-j2"],
                 ["cmake", "--install", tree, "--prefix", prefix]]
    else:
        steps = [[sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                  "--no-deps", "--prefix", prefix, "--config-settings", f"build-dir={tree}",
                  "--config-settings", f"cmake.define.MPI_C_COMPILER={mpi.info['cc']}", REPO]]
    for step in steps:
        r = subprocess.run([str(a) for a in step], capture_output=True, text=True)
        assert r.returncode == 0, f"{step}: {r.stdout[-3000:]}{r.stderr[-3000:]}"
    shutil.rmtree(tree)
    return prefix


@pytest.mark.skipif(os.environ.get("IOLENS_LONG") != "1",
                    reason="builds iolens from scratch (minutes): set IOLENS_LONG=1")
@pytest.mark.parametrize("how", ["cmake", "pip"])
def test_recipe_after_build_tree_deleted(how, mpi, progs_dir, tmp_path):
    """The literal recipe: build, install, delete the build tree, link, run."""
    prefix = fresh_install(how, mpi, tmp_path)
    flags = config_flags(prefix / "bin" / "iolens")
    assert_installed(flags, prefix, mpi.name)
    work, log = link_and_run(mpi, flags, progs_dir, tmp_path)
    check_log(log, work)
