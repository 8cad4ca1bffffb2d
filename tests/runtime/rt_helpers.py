"""Helpers and fixtures for the runtime tests: where the runtime, the tools, the shared
reference data and the reference workloads are; how to run a program under the
runtime and collect its logs."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Counter times are rounded to multiples of this many seconds when the log is
# written (src/runtime/core/payload.c); DXT segment times stay exact, so a counter
# timestamp is within half of it of the segment it came from.
TIME_QUANTUM = 2.0 ** -20
SHARED = (REPO / ".." / "shared").resolve()


def find_runtime():
    """IOLENS_RUNTIME, else build/src/runtime/libiolens.so, else <venv>/lib."""
    env = os.environ.get("IOLENS_RUNTIME")
    if env:
        return Path(env) if Path(env).exists() else None
    cands = [REPO / "build" / "src" / "runtime" / "libiolens.so",
             Path(sys.prefix) / "lib" / "libiolens.so"]
    cands += sorted(REPO.glob("build*/src/runtime/libiolens.so"), key=lambda p: -p.stat().st_mtime)
    return next((c for c in cands if c.exists()), None)


def runtime_having(marker: bytes, feature: str):
    """The runtime (find_runtime), skipping when it is not built or was built
    before `feature` (its library lacks `marker`): tests of that feature would
    otherwise fail for the wrong reason."""
    rt = find_runtime()
    if rt is None:
        pytest.skip("libiolens.so not built (set IOLENS_RUNTIME or build into build/)")
    if marker not in Path(rt).read_bytes():
        pytest.skip(f"{rt} predates {feature}: rebuild it")
    return rt


def find_tool():
    """The C `iolens` tool: IOLENS_BIN, else PATH, else a build tree."""
    env = os.environ.get("IOLENS_BIN")
    if env and Path(env).exists():
        return Path(env)
    rt = find_runtime()
    cands = []
    if rt is not None:   # the tool of the same build tree as the runtime
        cands.append(rt.parent.parent / "tools" / "iolens")
    on_path = shutil.which("iolens")
    if on_path:
        cands.append(Path(on_path))
    cands += sorted(REPO.glob("build*/src/tools/iolens"), key=lambda p: -p.stat().st_mtime)
    return next((c for c in cands if c.exists()), None)


@pytest.fixture(scope="session")
def runtime():
    rt = find_runtime()
    if rt is None:
        pytest.skip("libiolens.so not built (set IOLENS_RUNTIME or build into build/)")
    return rt


@pytest.fixture(scope="session")
def tool():
    t = find_tool()
    if t is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    return t


@pytest.fixture(scope="session")
def shared():
    if not (SHARED / "golden" / "runtime").is_dir():
        pytest.skip(f"reference data not found at {SHARED} (../shared)")
    return SHARED


@pytest.fixture(scope="session")
def workloads(shared, tmp_path_factory):
    """The reference workloads, built into a temporary directory."""
    out = tmp_path_factory.mktemp("workloads")
    names = ["w01_posix_basic", "w02_posix_patterns", "w03_stdio", "w04_many_files", "w07_fork"]
    r = subprocess.run(["make", "-s", "-C", str(shared / "workloads"), f"OUT={out}"]
                       + [str(out / n) for n in names], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot build the reference workloads: {r.stderr[-500:]}")
    return out


def tsan_preload():
    """(libtsan.so, the ThreadSanitizer build of the runtime named by
    IOLENS_TSAN_RUNTIME); skips, saying why, when either is missing.  Preload
    libtsan first: it must be set up before any of our wrappers runs."""
    lib = os.environ.get("IOLENS_TSAN_RUNTIME")
    if not lib or not Path(lib).exists():
        pytest.skip("no ThreadSanitizer runtime build: set IOLENS_TSAN_RUNTIME (scripts/test.sh does)")
    libtsan = subprocess.run(["gcc", "-print-file-name=libtsan.so"], capture_output=True,
                             text=True).stdout.strip()
    if not Path(libtsan).exists():
        pytest.skip("gcc has no libtsan.so")
    return libtsan, lib


def run_under(runtime, argv, logdir, extra_env=None, check=True, cwd=None, make_logdir=True,
              pass_fds=()):
    """Run argv with the runtime preloaded in non-MPI mode, logs into logdir
    (created first unless make_logdir is false); pass_fds are inherited."""
    if make_logdir:
        Path(logdir).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_LOG"))}
    env.update({"LD_PRELOAD": str(runtime), "DARSHAN_ENABLE_NONMPI": "1",
                "DARSHAN_LOGPATH": str(logdir)})
    env.update(extra_env or {})
    r = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True,
                       cwd=cwd, timeout=300, pass_fds=pass_fds)
    if check:
        assert r.returncode == 0, f"{argv} failed: {r.stderr}"
    return r


def compile_prog(tmp_path_factory, source, *flags):
    """Build tests/runtime/progs/<source> into a temporary directory (skip without a
    C compiler); returns the executable."""
    src = Path(__file__).resolve().parent / "progs" / source
    exe = tmp_path_factory.mktemp(src.stem) / src.stem
    r = subprocess.run(["cc", "-O1", "-g", *flags, "-o", str(exe), str(src)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        pytest.skip(f"no C compiler for {source}: {r.stderr[-300:]}")
    return exe


def logs_in(logdir):
    return sorted(Path(logdir).rglob("*.darshan"))
