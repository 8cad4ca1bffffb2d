"""packaging/lmod/iolens.lua, the module file for sites that turn the runtime on in
every job: valid Lua, and with a real Lmod, `module load iolens` instruments an
MPI job's program, leaves a non-MPI process idle, honours DARSHAN_DISABLE, and
`module unload` takes the preload away.  The install prefix is made of this
build's artefacts (IOLENS_BIN and the runtimes, as scripts/test.sh exports them),
laid out as `cmake --install` does."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from packaging_helpers import LMOD_INIT, REPO, SAMPLE_MPI, run_script

MODULE = REPO / "packaging" / "lmod" / "iolens.lua"


def test_module_file_is_valid_lua():
    luac = shutil.which("luac") or shutil.which("luac5.3")
    if not luac:
        pytest.skip("no luac: install Debian's lmod (or lua5.3) package")
    subprocess.run([luac, "-p", str(MODULE)], check=True)


def installed_prefix(root):
    """<root>/bin/iolens and <root>/lib/libiolens{,-mpi}.so: this build's artefacts."""
    parts = {"bin/iolens": "IOLENS_BIN", "lib/libiolens.so": "IOLENS_RUNTIME",
             "lib/libiolens-mpi.so": "IOLENS_MPI_RUNTIME_OPENMPI"}
    for dest, var in parts.items():
        if not os.environ.get(var):
            pytest.skip(f"{var} is not set (scripts/test.sh exports it)")
        (root / dest).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.environ[var], root / dest)
    return root


def module_dir(tmp_path, preload):
    """A module directory holding iolens.lua with this test's prefix, log dir and preload."""
    text = MODULE.read_text()
    for key, value in (("prefix", tmp_path / "prefix"), ("logdir", tmp_path / "logs"),
                       ("preload", preload)):
        text, n = re.subn(rf'^local {key} *= ".*"$', f'local {key} = "{value}"', text, flags=re.M)
        assert n == 1, f"iolens.lua has no `local {key} = ...` line"
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "iolens.lua").write_text(text)
    return tmp_path / "modules"


@pytest.fixture
def lmod_setup(tmp_path):
    if not LMOD_INIT.is_file():
        pytest.skip(f"no Lmod ({LMOD_INIT}): install Debian's lmod package")
    installed_prefix(tmp_path / "prefix")
    (tmp_path / "logs").mkdir()
    return f"source {LMOD_INIT}\nmodule use {module_dir(tmp_path, 'mpi')}\nmodule load iolens"


def logs(tmp_path):
    return sorted(p.name for p in (tmp_path / "logs").rglob("*.darshan"))


def test_module_load_instruments_mpi_job(lmod_setup, tmp_path):
    out = run_script(lmod_setup, f"""
echo "LD_PRELOAD=$LD_PRELOAD"
mpicc -O1 -o sample_mpi {SAMPLE_MPI}
mkdir data
mpiexec -n 2 ./sample_mpi $PWD/data
cat data/rank0.log > /dev/null               # a non-MPI process: preloaded, idle
DARSHAN_DISABLE=1 mpiexec -n 2 ./sample_mpi $PWD/data
module unload iolens
echo "after unload: LD_PRELOAD=${{LD_PRELOAD:-}}"
""", cwd=tmp_path)
    assert f"LD_PRELOAD={tmp_path}/prefix/lib/libiolens-mpi.so" in out
    assert "after unload: LD_PRELOAD=\n" in out
    (log,) = logs(tmp_path)                      # the first job only
    parsed = run_script(lmod_setup, f"iolens parse {next((tmp_path / 'logs').rglob(log))}",
                        cwd=tmp_path)
    assert re.search(r"^MPI-IO\t-1\t\S+\tMPIIO_COLL_WRITES\t\d+\t", parsed, re.M)
