"""The Spack package (packaging/spack, issue 32), with a real Spack: iolens built
from this source tree (`spack develop`) with the system's compilers, CMake, MPI,
zlib and bzip2 as externals; then `spack load iolens` gives an `iolens` that
parses a log and a runtime that instruments a program.

Spack comes from SPACK_ROOT (a checkout of github.com/spack/spack) or `spack` on
PATH.  Spack's concretizer (clingo) is bootstrapped from GitHub; without GitHub
run Spack with SPACK_PYTHON set to a Python that has `pip install clingo`
(docs/install.md, "Spack")."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from packaging_helpers import REPO, SAMPLE_MPI, clean_env, instrument_sample, \
    needs_package_tests, run_script

pytestmark = needs_package_tests


def find_spack():
    root = os.environ.get("SPACK_ROOT")
    if root and (Path(root) / "bin" / "spack").is_file():
        return Path(root) / "bin" / "spack"
    found = shutil.which("spack")
    return Path(found) if found else None


SPACK = find_spack()
if SPACK is None:
    pytestmark = [needs_package_tests, pytest.mark.skip(
        reason="no Spack: set SPACK_ROOT to a checkout of https://github.com/spack/spack or put "
               "`spack` on PATH (CI cannot fetch Spack here; docs/install.md, Spack)")]

# Externals found by `spack external find`; zlib and libdeflate are written by
# hand (below): Spack cannot detect them, they have no program.
DETECTED_EXTERNALS = ("cmake", "gmake", "pkgconf", "bzip2", "openmpi")


def header_version(header, macro):
    """The version string a system header defines (#define MACRO "x.y"), or None."""
    path = Path("/usr/include") / header
    m = path.is_file() and re.search(rf'#define {macro} "([\d.]+)"', path.read_text())
    return m.group(1) if m else None


def environment_yaml(store, libdeflate):
    """A Spack environment: this repo's package repository, a private install
    tree, and the system's zlib (and libdeflate) as non-buildable externals."""
    zlib = header_version("zlib.h", "ZLIB_VERSION")
    assert zlib, "no /usr/include/zlib.h: install zlib's headers (zlib1g-dev)"
    deflate = (f"    libdeflate:\n      externals:\n      - spec: libdeflate@{libdeflate}\n"
               f"        prefix: /usr\n      buildable: false\n") if libdeflate else ""
    return f"""spack:
  specs: []
  view: false
  concretizer:
    unify: false
  config:
    install_tree:
      root: {store}
    build_jobs: 2
  repos:
  - {REPO}/packaging/spack
  packages:
    all:
      providers:
        mpi: [openmpi]
        zlib-api: [zlib]
    zlib:
      externals:
      - spec: zlib@{zlib}
        prefix: /usr
      buildable: false
{deflate}"""


def source_copy(dest):
    """The checkout's sources (tracked, or new and not ignored) copied to dest:
    Spack's dev build writes its build trees and logs into the source tree."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        if (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


class SpackEnv:
    """A Spack environment in a temporary directory, Spack's user config and
    caches kept there too (nothing of ~/.spack is read or written)."""

    def __init__(self, root):
        self.dir = root / "env"
        self.dir.mkdir()
        self.vars = {"SPACK_USER_CONFIG_PATH": str(root / "user"),
                     "SPACK_USER_CACHE_PATH": str(root / "cache"),
                     "SPACK_DISABLE_LOCAL_CONFIG": "1"}

    def __call__(self, *args, timeout=600):
        proc = subprocess.run([str(SPACK), "-e", str(self.dir), *args], env=clean_env(**self.vars),
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            hint = ("\nSpack could not bootstrap its concretizer (clingo) from GitHub: run it "
                    "with SPACK_PYTHON=<a python with `pip install clingo`> (docs/install.md)"
                    if "bootstrap" in proc.stdout + proc.stderr else "")
            pytest.fail(f"spack {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}{hint}")
        return proc.stdout

    def load_setup(self, spec):
        """Shell lines that `spack load` spec and name its runtime $runtime."""
        exports = "".join(f"export {k}={v}\n" for k, v in self.vars.items())
        return f'{exports}eval "$({SPACK} -e {self.dir} load --sh {spec})"\nruntime=$IOLENS_RUNTIME'


@pytest.fixture(scope="module")
def spack_env(tmp_path_factory):
    """iolens ~mpi (and +mpi where an Open MPI was detected) installed from a copy
    of this source tree."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the sources to build come from git ls-files")
    root = tmp_path_factory.mktemp("spack")
    env = SpackEnv(root)
    libdeflate = header_version("libdeflate.h", "LIBDEFLATE_VERSION_STRING")
    (env.dir / "spack.yaml").write_text(environment_yaml(root / "store", libdeflate))
    env("compiler", "find")
    env("external", "find", "--not-buildable", *DETECTED_EXTERNALS)
    src = source_copy(root / "src")
    env("develop", "--no-clone", "--path", str(src), "iolens@=develop")
    variants = "" if libdeflate else "~libdeflate"
    env.specs = {"~mpi": f"iolens@develop~mpi{variants}"}
    if "openmpi:" in (env.dir / "spack.yaml").read_text():
        env.specs["+mpi"] = f"iolens@develop+mpi{variants}"
    env("add", *env.specs.values())
    env("concretize", timeout=1200)
    env("install", "--fail-fast", timeout=3600)
    return env


@pytest.mark.parametrize("mpi", ["~mpi", "+mpi"])
def test_spack_load_parses_and_instruments(spack_env, mpi, tmp_path):
    if mpi not in spack_env.specs:
        pytest.skip("spack external find detected no Open MPI")
    setup = spack_env.load_setup(spack_env.specs[mpi])
    where = run_script(setup, "command -v iolens; echo $runtime", cwd=tmp_path).split()
    assert all(str(spack_env.dir.parent / "store") in w for w in where), where
    instrument_sample(setup, tmp_path)


def test_spack_mpi_runtime_instruments_mpi_program(spack_env, tmp_path):
    if "+mpi" not in spack_env.specs:
        pytest.skip("spack external find detected no Open MPI")
    out = run_script(spack_env.load_setup(spack_env.specs["+mpi"]), f"""
mkdir data
mpicc -O1 -o sample_mpi {SAMPLE_MPI}
DARSHAN_LOGFILE=$PWD/mpi.darshan iolens run -- mpiexec -n 2 ./sample_mpi $PWD/data
iolens parse mpi.darshan
""", cwd=tmp_path)
    assert re.search(r"^# nprocs: 2$", out, re.M), out[:2000]
    assert re.search(r"^MPI-IO\t-1\t\S+\tMPIIO_COLL_WRITES\t\d+\t", out, re.M), out[:2000]
