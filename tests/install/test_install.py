"""The installed artefacts (docs/install.md, "CMake and pkg-config"; issue 32).

A fresh build tree in a temporary directory (BUILD_TESTING=OFF, the runtime on),
`cmake --install` into a temporary prefix, then the build tree is deleted: from
then on only the install exists.  Against it:
  - log_summary.c (progs/) is built through pkg-config (shared, and `--static`) and
    through a CMake project using find_package(iolens), and its figures of a log
    equal what the installed `iolens parse` reads in the same log;
  - the log is written by the installed libiolens.so, preloaded into write_file.c;
  - `iolens config --paths` of the install names the install (also once moved), and
    `--pre-ld-flags` finds the installed static MPI runtime.
The build takes minutes on two cores: the tests run with IOLENS_PACKAGE_TESTS=1
(.ci/run sets it) and skip, saying so, otherwise.  test_wheel_data_dir checks the
same files in the Python environment's prefix (the wheel's data directory)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PROGS = HERE / "progs"
WRITTEN = 3 * 4096   # write_file.c


def run(cmd, **kw):
    """cmd's stdout; a failure shows its output."""
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, **kw)
    assert res.returncode == 0, f"{cmd} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
    return res.stdout


def need_tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def needed_libs(binary):
    """The DT_NEEDED entries of an ELF file (none for a static executable)."""
    out = run(["readelf", "-d", str(binary)])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


# ---------------------------------------------------------------- the install
@pytest.fixture(scope="module")
def install(tmp_path_factory):
    """(prefix, the build tree's `iolens config --paths` output): built, installed,
    and the build tree deleted."""
    if os.environ.get("IOLENS_PACKAGE_TESTS") != "1":
        pytest.skip("a fresh build and install takes minutes: set IOLENS_PACKAGE_TESTS=1 "
                    "(.ci/run does)")
    need_tool("cmake")
    base = tmp_path_factory.mktemp("install")
    build, prefix = base / "build", base / "prefix"
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    run(["cmake", "-S", str(REPO), "-B", str(build), *gen, "-DBUILD_TESTING=OFF",
         "-DIOLENS_WITH_RUNTIME=ON", f"-DCMAKE_INSTALL_PREFIX={prefix}"])
    run(["cmake", "--build", str(build), "-j2"])
    run(["cmake", "--install", str(build)])
    from_build_tree = run([str(build / "src" / "tools" / "iolens"), "config", "--paths"])
    shutil.rmtree(build)
    return prefix, from_build_tree


@pytest.fixture(scope="module")
def prefix(install):
    return install[0]


@pytest.fixture(scope="module")
def libdir(prefix):
    """The install's library directory (lib, or lib64 / a multiarch lib on some hosts)."""
    found = sorted(prefix.glob("lib*/pkgconfig/iolens-log.pc")) + \
        sorted(prefix.glob("lib/*/pkgconfig/iolens-log.pc"))
    assert found, f"no iolens-log.pc under {prefix}"
    return found[0].parent.parent


def make_log(runtime, work):
    """A log of write_file.c run with RUNTIME (a libiolens.so) preloaded."""
    prog = work / "write_file"
    run([need_tool("cc"), "-o", str(prog), str(PROGS / "write_file.c")])
    path = work / "write_file.darshan"
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_LOGFILE=str(path))
    run([str(prog), str(work / "data")], env=env)
    assert path.exists(), f"{runtime} preloaded wrote no log"
    return path


def parse_summary(iolens, log):
    """What `iolens parse` reads in the log, as log_summary.c prints it."""
    text = run([str(iolens), "parse", str(log)])
    nprocs = re.search(r"^# nprocs: (\d+)$", text, re.M).group(1)
    posix = [line.split("\t") for line in text.splitlines() if line.startswith("POSIX\t")]
    records = {(f[1], f[2]) for f in posix}
    written = sum(int(f[4]) for f in posix if f[3] == "POSIX_BYTES_WRITTEN")
    return f"nprocs {nprocs}\nPOSIX records {len(records)}\nPOSIX_BYTES_WRITTEN {written}\n"


@pytest.fixture(scope="module")
def log(libdir, tmp_path_factory):
    """A log written by the installed libiolens.so."""
    return make_log(libdir / "libiolens.so", tmp_path_factory.mktemp("log"))


@pytest.fixture(scope="module")
def expected(prefix, log):
    return parse_summary(prefix / "bin" / "iolens", log)


def test_preloaded_installed_runtime_writes_a_log_parse_reads(expected):
    assert expected == f"nprocs 1\nPOSIX records 1\nPOSIX_BYTES_WRITTEN {WRITTEN}\n"


def api_only(shared_library):
    """The library's exported functions are the public API's (iolens_*) alone."""
    dyn = run(["nm", "-D", "--defined-only", str(shared_library)])
    names = [line.split()[-1] for line in dyn.splitlines() if line.strip()]
    assert "iolens_log_open" in names
    assert [n for n in names if not n.startswith("iolens_")] == []


def test_installed_headers_and_libraries(prefix, libdir):
    inc = prefix / "include" / "iolens"
    for name in ("log.h", "counters.h", "counter_enums.h", "metrics.h", "modules.def",
                 "posix.def", "annotate.h"):
        assert (inc / name).is_file(), name
    for name in ("libiolens-log.a", "libiolens-log.so", "libiolens.so"):
        assert (libdir / name).exists(), name
    api_only(libdir / "libiolens-log.so")


# ---------------------------------------------------------------- pkg-config
def pkg_config(libdir, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig"))
    return run([need_tool("pkg-config"), *args, "iolens-log"], env=env).split()


def test_pkg_config_shared(libdir, log, expected, tmp_path):
    exe = tmp_path / "log_summary"
    run([need_tool("cc"), "-o", str(exe), str(PROGS / "log_summary.c"),
         *pkg_config(libdir, "--cflags", "--libs")])
    assert any(n.startswith("libiolens-log.so") for n in needed_libs(exe))
    out = run([str(exe), str(log)], env=dict(os.environ, LD_LIBRARY_PATH=str(libdir)))
    assert out == expected


def test_pkg_config_static(libdir, log, expected, tmp_path):
    cc = need_tool("cc")
    for lib in ("libc.a", "libz.a"):
        if run([cc, f"-print-file-name={lib}"]).strip() == lib:
            pytest.skip(f"{lib} is not installed: no fully static link here")
    exe = tmp_path / "log_summary_static"
    flags = pkg_config(libdir, "--static", "--cflags", "--libs")
    run([cc, "-static", "-o", str(exe), str(PROGS / "log_summary.c"), *flags])
    assert needed_libs(exe) == []
    assert run([str(exe), str(log)]) == expected


# ---------------------------------------------------------------- CMake package
def check_cmake_package(prefix, libdir, log, expected, build):
    """cmake_project built against PREFIX: both programs read LOG as EXPECTED."""
    run([need_tool("cmake"), "-S", str(HERE / "cmake_project"), "-B", str(build),
         f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", str(build)])
    shared, static = build / "log_summary_shared", build / "log_summary_static"
    assert any(n.startswith("libiolens-log.so") for n in needed_libs(shared))
    assert not any(n.startswith("libiolens-log") for n in needed_libs(static))
    assert run([str(shared), str(log)]) == expected   # CMake's build RPATH finds it
    assert run([str(static), str(log)]) == expected
    package = dict(line.split("=", 1) for line in
                   (build / "iolens-package.txt").read_text().splitlines())
    assert package["runtime"] == str(libdir / "libiolens.so")
    assert package["executable"] == str(prefix / "bin" / "iolens")


def test_cmake_find_package(prefix, libdir, log, expected, tmp_path):
    check_cmake_package(prefix, libdir, log, expected, tmp_path / "user")


# ---------------------------------------------------------------- iolens config
def config_paths(iolens):
    """`iolens config --paths` as {label: value} (mpi-link-dir: {mpi: dir})."""
    paths, links = {}, {}
    for line in run([str(iolens), "config", "--paths"]).splitlines():
        if line.startswith("#"):
            continue
        label, value = line.split(None, 1)
        if label == "mpi-link-dir":
            mpi, d = value.split(None, 1)
            links[mpi] = d
        else:
            paths[label] = value
    return paths, links


def check_paths_of(prefix, libdir):
    paths, links = config_paths(prefix / "bin" / "iolens")
    assert paths["prefix"] == str(prefix)
    assert paths["bindir"] == str(prefix / "bin")
    assert paths["libdir"] == str(libdir)
    assert paths["includedir"] == str(prefix / "include")
    assert paths["runtime"] == str(libdir / "libiolens.so")
    assert paths["pkgconfig-path"] == str(libdir / "pkgconfig")
    assert paths["cmake-dir"] == str(libdir / "cmake" / "iolens")
    for d in links.values():
        assert Path(d).parent == libdir / "iolens"
    return paths


def test_config_names_the_install(prefix, libdir):
    paths = check_paths_of(prefix, libdir)
    out = run([str(prefix / "bin" / "iolens"), "config", "--pkgconfig-path"])
    assert out == paths["pkgconfig-path"] + "\n"


def test_config_of_a_moved_install(prefix, libdir, tmp_path):
    moved = tmp_path / "moved"
    shutil.copytree(prefix, moved, symlinks=True)
    check_paths_of(moved, moved / libdir.relative_to(prefix))


@pytest.fixture(scope="module")
def lib64_prefix(install, tmp_path_factory):
    """A second install, without MPI, its libraries in lib64 (as RHEL-like HPC
    systems have them), its build tree deleted."""
    base = tmp_path_factory.mktemp("install-lib64")
    build, prefix = base / "build", base / "prefix"
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    run(["cmake", "-S", str(REPO), "-B", str(build), *gen, "-DBUILD_TESTING=OFF",
         "-DIOLENS_WITH_RUNTIME=ON", "-DIOLENS_WITH_MPI=OFF", f"-DCMAKE_INSTALL_PREFIX={prefix}",
         "-DCMAKE_INSTALL_LIBDIR=lib64"])
    run(["cmake", "--build", str(build), "-j2"])
    run(["cmake", "--install", str(build)])
    shutil.rmtree(build)
    return prefix


@pytest.mark.parametrize("which", ["lib", "lib64"])
def test_run_of_a_moved_install_takes_its_own_runtime(which, prefix, request, tmp_path):
    """A copy of the install, the original moved away meanwhile: its `iolens run`
    preloads the runtime beside it (<bindir>/../<libdir>: lib64 too, where it
    looked in ../lib only; not the original prefix) and writes the program's log."""
    if which == "lib64":
        prefix = request.getfixturevalue("lib64_prefix")
    moved, away = tmp_path / "moved", prefix.with_name(prefix.name + "-away")
    shutil.copytree(prefix, moved, symlinks=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("IOLENS_", "DARSHAN_", "LD_PRELOAD"))}
    logs, data = tmp_path / "logs", tmp_path / "data"
    logs.mkdir()
    prefix.rename(away)
    try:
        res = subprocess.run([str(moved / "bin" / "iolens"), "run", "--logpath", str(logs), "--",
                              "sh", "-c", f"echo moved > {data}"], capture_output=True,
                             text=True, env=env, timeout=300)
    finally:
        away.rename(prefix)
    assert res.returncode == 0, res.stderr
    [log] = list(logs.glob("*.darshan"))
    assert str(data) in run([str(moved / "bin" / "iolens"), "parse", str(log)])


def test_config_says_when_it_runs_from_a_build_tree(install):
    first = install[1].splitlines()[0]
    assert first.startswith("# running from the build tree ") and "not installed" in first
    assert re.search(r"^prefix\s+\(none\)$", install[1], re.M)


def test_config_paths_and_exports_of_the_test_build_tree():
    """The `iolens` pytest uses (IOLENS_BIN; no fresh build needed) names its build
    tree's libraries and no install, and says so; the single options agree; its
    libiolens-log.so exports the API only."""
    tool = Path(os.environ.get("IOLENS_BIN", REPO / "build" / "src" / "tools" / "iolens"))
    if not tool.exists() or tool.parent.parts[-2:] != ("src", "tools"):
        pytest.skip(f"{tool} is not an iolens in a build tree (set IOLENS_BIN)")
    top = tool.resolve().parents[2]
    paths, _ = config_paths(tool)
    assert paths["prefix"] == "(none)" and paths["pkgconfig-path"] == "(none)"
    assert paths["libdir"] == str(top / "src" / "format")
    res = subprocess.run([str(tool), "config", "--libdir"], capture_output=True, text=True)
    assert (res.returncode, res.stdout) == (0, paths["libdir"] + "\n")
    assert f"running from the build tree {top}" in res.stderr
    res = subprocess.run([str(tool), "config", "--prefix"], capture_output=True, text=True)
    assert res.returncode == 1 and res.stdout == "" and "build tree" in res.stderr
    res = subprocess.run([str(tool), "config", "--no-such-path"], capture_output=True, text=True)
    assert res.returncode == 2 and "unknown option" in res.stderr
    api_only(top / "src" / "format" / "libiolens-log.so")


def test_pre_ld_flags_find_the_installed_static_runtime(prefix, libdir):
    iolens = str(prefix / "bin" / "iolens")
    res = subprocess.run([iolens, "config", "--pre-ld-flags"], capture_output=True, text=True)
    if res.returncode == 2 and "no MPI runtime" in res.stderr:
        pytest.skip("this build has no MPI (no static MPI runtime to install)")
    assert res.returncode == 0, res.stderr
    files = [w.split("@", 1)[-1] for w in res.stdout.split() if not w.startswith("-Wl,--")]
    assert files
    for f in files:
        assert Path(f).is_file() and Path(f).parent.parent == libdir / "iolens", f
    run([iolens, "config", "--post-ld-flags"])


LAUNCHERS = {"openmpi": ["mpiexec.openmpi", "--oversubscribe"], "mpich": ["mpiexec.mpich"]}
MPI_SONAMES = {"openmpi": "libmpi.so", "mpich": "libmpich.so"}


def test_installed_run_takes_the_runtime_of_its_one_mpi(prefix, libdir, tmp_path):
    """This install holds one MPI's runtime (no IOLENS_MPI_EXTRA): `iolens run` with
    that MPI's launcher runs, with the other MPI's it refuses (status 2) and says
    why, from the install alone (the build tree is gone)."""
    runtime = libdir / "libiolens-mpi.so"
    if not runtime.exists():
        pytest.skip("this build has no MPI runtime")
    needed = " ".join(needed_libs(runtime))
    own = next((m for m, so in MPI_SONAMES.items() if so in needed), None)
    if own is None or not all(shutil.which(cmd[0]) for cmd in LAUNCHERS.values()):
        pytest.skip("needs mpiexec.openmpi and mpiexec.mpich, and a runtime of one of them")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("IOLENS_MPI_RUNTIME_", "DARSHAN_", "LD_PRELOAD"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", TMPDIR=str(tmp_path))
    logs = tmp_path / "logs"
    logs.mkdir()
    for mpi, launcher in LAUNCHERS.items():
        res = subprocess.run([str(prefix / "bin" / "iolens"), "run", "--logpath", str(logs), "--",
                              *launcher, "-n", "1", "true"], capture_output=True, text=True,
                             env=env, timeout=300)
        if mpi == own:
            assert res.returncode == 0, (mpi, res.stderr)
        else:
            assert res.returncode == 2 and "is built for" in res.stderr, (mpi, res.stderr)


# ---------------------------------------------------------------- the wheel
def test_wheel_data_dir(tmp_path):
    """The Python package (pip install .) installs the same files into its
    environment's prefix, where `iolens config` of the environment finds them and
    pkg-config and find_package(iolens) link against them."""
    if os.environ.get("IOLENS_PACKAGE_TESTS") != "1":
        pytest.skip("set IOLENS_PACKAGE_TESTS=1 (.ci/run does, after scripts/setup.sh "
                    "has installed the package)")
    prefix = Path(sys.prefix).resolve()
    if not (prefix / "bin" / "iolens").exists():
        pytest.skip(f"the iolens Python package is not installed in {prefix}")
    libdir = prefix / "lib"
    check_paths_of(prefix, libdir)
    log = make_log(libdir / "libiolens.so", tmp_path)
    exe = tmp_path / "log_summary"
    run([need_tool("cc"), "-o", str(exe), str(PROGS / "log_summary.c"),
         *pkg_config(libdir, "--cflags", "--libs")])
    expected = parse_summary(prefix / "bin" / "iolens", log)
    assert run([str(exe), str(log)], env=dict(os.environ, LD_LIBRARY_PATH=str(libdir))) == expected
    check_cmake_package(prefix, libdir, log, expected, tmp_path / "user")
