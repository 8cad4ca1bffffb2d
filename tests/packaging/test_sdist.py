"""The sdist (issue 32): `python -m build --sdist`, then `pip install` of it in a
fresh virtual environment, with build isolation (scikit-build-core and the
dependencies come from PyPI) and no build tree, gives working C tools, runtime
and Python package; and the sdist holds the sources and nothing of a work tree."""
import subprocess
import sys
import tarfile
import venv

import pytest

from packaging_helpers import (REPO, instrument_sample, needs_package_tests, python_reads_log,
                               run_script)

pytestmark = needs_package_tests

# What a work tree holds that must never ship (pyproject.toml, sdist.exclude); the
# build trees are build/ and build-*/ (build-py, build-asan, Spack's build-<arch>-<hash>).
NOT_SHIPPED_DIRS = ("build", ".venv", ".tools", "dist")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdist")
    # Run from outside the checkout: there, the CMake tree build/ would stand in for
    # the `build` package (a directory on sys.path is a namespace package).
    if subprocess.run([sys.executable, "-m", "build", "--version"], cwd=out,
                      capture_output=True).returncode != 0:
        pytest.skip("the `build` package (requirements-test.txt) is missing")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "-o", str(out), str(REPO)],
                   cwd=out, check=True, capture_output=True, timeout=600)
    (path,) = out.glob("iolens-*.tar.gz")
    return path


def sdist_names(path):
    """The sdist's member paths, without the iolens-VERSION/ prefix."""
    with tarfile.open(path) as tar:
        return {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}


def tracked_sources():
    """The files git tracks (or would: untracked, not ignored) under the source dirs."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                          "CMakeLists.txt", "pyproject.toml", "src", "include", "python",
                          "cmake", "packaging"],
                         cwd=REPO, check=True, capture_output=True, text=True).stdout
    return {name for name in out.splitlines() if (REPO / name).is_file()}


def test_sdist_holds_every_source(sdist):
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the list of sources comes from git")
    missing = tracked_sources() - sdist_names(sdist)
    assert not missing, f"sources missing from the sdist: {sorted(missing)[:20]}"


def test_sdist_holds_no_work_tree_files(sdist):
    names = sdist_names(sdist)
    shipped = sorted(n for n in names if n.split("/", 1)[0] in NOT_SHIPPED_DIRS
                     or n.startswith("build-") or n.endswith((".darshan", ".log")))
    assert not shipped, f"work-tree files in the sdist: {shipped[:20]}"


@pytest.fixture(scope="module")
def fresh_venv(sdist, tmp_path_factory):
    """A new venv with iolens pip-installed from the sdist alone (build isolation on)."""
    root = tmp_path_factory.mktemp("venv") / "venv"
    venv.create(root, with_pip=True)
    proc = subprocess.run([str(root / "bin" / "python"), "-m", "pip", "install", "-q",
                           "--no-cache-dir", str(sdist)], cwd=root.parent,
                          capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, f"pip install of the sdist failed:\n{proc.stdout}\n{proc.stderr}"
    return root


def venv_setup(root):
    """Puts the venv's programs first on PATH; $runtime is the runtime the
    installed `iolens config` names, which must be the one in the venv's data dir."""
    return (f"export PATH={root}/bin:$PATH\nruntime=$(iolens config --runtime)\n"
            f'test "$runtime" = {root}/lib/libiolens.so')


def test_sdist_install_gives_tools_and_runtime(fresh_venv, tmp_path):
    run_script(venv_setup(fresh_venv), f'test "$(command -v iolens)" = {fresh_venv}/bin/iolens',
               cwd=tmp_path)
    instrument_sample(venv_setup(fresh_venv), tmp_path)


def test_sdist_install_gives_python_package(fresh_venv, tmp_path):
    run_log, _ = instrument_sample(venv_setup(fresh_venv), tmp_path)
    python_reads_log(venv_setup(fresh_venv), run_log, fresh_venv, tmp_path)
