"""The Spack package (packaging/spack, issue 32), with a real Spack: iolens built
from this source tree (`spack develop`) with the system's compilers, CMake, MPI,
zlib and bzip2 as externals; then `spack load iolens` gives an `iolens` that
parses a log and a runtime that instruments a program.

Spack comes from SPACK_ROOT (a checkout of github.com/spack/spack) or `spack` on
PATH.  Spack's concretizer (clingo) is bootstrapped from GitHub; without GitHub
run Spack with SPACK_PYTHON set to a Python that has `pip install clingo`
(docs/install.md, "Spack")."""
import os
import platform
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from packaging_helpers import LMOD_INIT, REPO, SAMPLE_MPI, clean_env, instrument_sample, \
    needs_package_tests, python_reads_log, run_script

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

# Externals found by `spack external find`; zlib, libdeflate and parallel-netcdf
# are written by hand (below): Spack cannot detect them, they have no program.
DETECTED_EXTERNALS = ("cmake", "gmake", "pkgconf", "bzip2", "openmpi", "hdf5")


def header_version(header, macro):
    """The version string a system header defines (#define MACRO "x.y"), or None."""
    path = Path("/usr/include") / header
    m = path.is_file() and re.search(rf'#define {macro} "([\d.]+)"', path.read_text())
    return m.group(1) if m else None


# +python's dependencies, taken from the Python environment running this test
# (a venv made by scripts/setup.sh holds them all): Spack cannot download them here.
PYTHON_DEPENDENCIES = {"py-pip": "pip", "py-scikit-build-core": "scikit-build-core",
                       "py-numpy": "numpy", "py-pandas": "pandas", "py-matplotlib": "matplotlib"}


def python_externals():
    """packages.yaml lines making this test's Python (its base interpreter) and
    its venv's packages non-buildable externals, or "" when it is not a venv
    holding all of them."""
    if sys.prefix == sys.base_prefix:
        return ""
    lines = [f"    python:\n      externals:\n      - spec: python@{platform.python_version()}\n"
             f"        prefix: {sys.base_prefix}\n      buildable: false\n"]
    for name, dist in PYTHON_DEPENDENCIES.items():
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            return ""
        lines.append(f"    {name}:\n      externals:\n      - spec: {name}@{version}\n"
                     f"        prefix: {sys.prefix}\n      buildable: false\n")
    return "".join(lines)


def hand_external(name, version):
    """packages.yaml lines of a non-buildable external in /usr ("" without a version)."""
    return (f"    {name}:\n      externals:\n      - spec: {name}@{version}\n"
            f"        prefix: /usr\n      buildable: false\n") if version else ""


def environment_yaml(env, libdeflate, pnetcdf, python):
    """A Spack environment: this repo's package repository, a private install
    tree and module root, and the system's zlib (and libdeflate, PnetCDF) and
    `python` (python_externals) as non-buildable externals."""
    zlib = header_version("zlib.h", "ZLIB_VERSION")
    assert zlib, "no /usr/include/zlib.h: install zlib's headers (zlib1g-dev)"
    return f"""spack:
  specs: []
  view: false
  concretizer:
    unify: false
  config:
    install_tree:
      root: {env.store}
    build_jobs: 2
  modules:
    default:
      enable: [lmod]
      roots:
        lmod: {env.modules}
      lmod:
        hash_length: 7
  repos:
  - {REPO}/packaging/spack
  packages:
    all:
      providers:
        mpi: [openmpi]
        zlib-api: [zlib]
{hand_external("zlib", zlib)}{hand_external("libdeflate", libdeflate)}\
{hand_external("parallel-netcdf", pnetcdf)}{python}"""


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
        self.store = root / "store"
        self.modules = root / "modules"
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
    """iolens ~mpi, +mpi (where an Open MPI was detected; +hdf5+pnetcdf too where
    the system has an MPI HDF5 and PnetCDF) and ~mpi+python (where this test runs
    in a venv with the Python dependencies) installed from a copy of this source
    tree."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the sources to build come from git ls-files")
    root = tmp_path_factory.mktemp("spack")
    env = SpackEnv(root)
    libdeflate = header_version("libdeflate.h", "LIBDEFLATE_VERSION_STRING")
    pnetcdf = header_version("pnetcdf.h", "PNETCDF_VERSION")
    python = python_externals()
    (env.dir / "spack.yaml").write_text(environment_yaml(env, libdeflate, pnetcdf, python))
    env("compiler", "find")
    env("external", "find", "--not-buildable", *DETECTED_EXTERNALS)
    src = source_copy(root / "src")
    env("develop", "--no-clone", "--path", str(src), "iolens@=develop")
    variants = "" if libdeflate else "~libdeflate"
    env.specs = {"~mpi": f"iolens@develop~mpi~python{variants}"}
    detected = (env.dir / "spack.yaml").read_text()
    if "openmpi:" in detected:
        # with the HDF5 and PnetCDF variants where the system has both (for MPI)
        io_libraries = ("+hdf5+pnetcdf" if pnetcdf and re.search(r"spec: hdf5@\S+\+mpi", detected)
                        else "")
        env.specs["+mpi"] = f"iolens@develop+mpi~python{io_libraries}{variants}"
    if python:
        env.specs["+python"] = f"iolens@develop~mpi+python{variants}"
    env("add", *env.specs.values())
    env("concretize", timeout=1200)
    env("install", "--fail-fast", timeout=3600)
    return env


@pytest.mark.parametrize("variant", ["~mpi", "+mpi", "+python"])
def test_spack_load_parses_and_instruments(spack_env, variant, tmp_path):
    if variant not in spack_env.specs:
        pytest.skip("spack external find detected no Open MPI" if variant == "+mpi" else
                    "not run from a venv holding pip, scikit-build-core, numpy, pandas and "
                    "matplotlib (scripts/setup.sh's .venv does)")
    setup = spack_env.load_setup(spack_env.specs[variant])
    where = run_script(setup, "command -v iolens; echo $runtime", cwd=tmp_path).split()
    assert all(str(spack_env.store) in w for w in where), where
    run_log, _ = instrument_sample(setup, tmp_path)
    if variant == "+python":
        python_reads_log(setup, run_log, spack_env.store, tmp_path)


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


def test_spack_lmod_module_instruments(spack_env, tmp_path):
    """The Lmod module Spack writes for iolens (`spack module lmod refresh`)."""
    if not LMOD_INIT.is_file():
        pytest.skip(f"no Lmod ({LMOD_INIT}): install Debian's lmod package")
    spack_env("module", "lmod", "refresh", "-y")
    short_hash = spack_env("find", "--format", "{hash:7}", spack_env.specs["~mpi"]).split()[0]
    (module,) = spack_env.modules.rglob(f"iolens/develop-{short_hash}.lua")
    setup = (f"source {LMOD_INIT}\nmodule use {module.parent.parent}\n"
             f"module load iolens/{module.stem}\nruntime=$IOLENS_RUNTIME")
    assert run_script(setup, "command -v iolens", cwd=tmp_path).startswith(str(spack_env.store))
    instrument_sample(setup, tmp_path)
