"""Without the optional fleet dependencies (pyarrow, duckdb, dask), every
`iolens fleet` subcommand says so in one line that names the install command,
and --help still works.  The real installed command runs in a subprocess in
which a sitecustomize puts a finder on sys.meta_path that refuses those modules,
as if they were not installed."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fleet_helpers import write_log

BLOCKER = '''
import os, sys

class _NotInstalled:
    """Refuses the modules of IOLENS_TEST_UNINSTALLED, as if absent."""
    blocked = set(os.environ["IOLENS_TEST_UNINSTALLED"].split(","))

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
'''


def _iolens() -> list:
    """The installed `iolens` command (it runs iolens-fleet from beside itself)."""
    beside = Path(sys.executable).parent / "iolens"
    if beside.exists() and (beside.parent / "iolens-fleet").exists():
        return [str(beside)]
    found = shutil.which("iolens")
    if found is None:
        pytest.skip("no installed iolens command (pip install . in the test environment)")
    return [found]


@pytest.fixture
def without_fleet_deps(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = dict(os.environ, IOLENS_TEST_UNINSTALLED="pyarrow,duckdb,dask,distributed")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


def test_blocker_blocks(without_fleet_deps):
    run = subprocess.run([sys.executable, "-c", "import pyarrow"], env=without_fleet_deps,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "No module named 'pyarrow'" in run.stderr


@pytest.mark.parametrize("args", [
    ("ingest", "{log}", "--store", "{tmp}/store"),
    ("query", "{tmp}/store", "coverage"),
    ("job-stats", "{log}"),
    ("file-stats", "{log}"),
    ("report", "{tmp}/store", "-o", "{tmp}/fleet.html"),
])
def test_missing_dependencies_one_line(tmp_path, without_fleet_deps, args):
    log = write_log(tmp_path / "a.darshan")
    argv = [a.format(log=log, tmp=tmp_path) for a in args]
    run = subprocess.run(_iolens() + ["fleet", *argv], env=without_fleet_deps,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"iolens fleet {args[0]}: needs the optional fleet dependencies")
    assert lines[0].endswith("pip install 'iolens[fleet]'")
    assert not os.path.exists(tmp_path / "store") and not os.path.exists(tmp_path / "fleet.html")


def test_help_without_dependencies(without_fleet_deps):
    run = subprocess.run(_iolens() + ["fleet", "--help"], env=without_fleet_deps,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "ingest" in run.stdout, run.stderr
