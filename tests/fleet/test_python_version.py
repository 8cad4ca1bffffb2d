"""pyproject.toml's requires-python states the truth: the oldest Python it
names compiles every module of the package and has every standard-library
module the package imports (tomllib came in 3.11), and the suite runs on it."""
from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from fleet_helpers import REPO

PACKAGE = REPO / "python" / "iolens"

# Run by the oldest interpreter: compile each file given, then look for each
# standard-library module named in the last argument.
CHECK = r'''
import importlib.util, sys
files, modules = sys.argv[1:-1], sys.argv[-1].split(",")
for f in files:
    with open(f, encoding="utf-8") as fh:
        compile(fh.read(), f, "exec")
missing = [m for m in modules if importlib.util.find_spec(m) is None]
print("missing:", ",".join(missing))
sys.exit(1 if missing else 0)
'''


def oldest_python() -> tuple:
    spec = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    m = re.fullmatch(r"\s*>=\s*3\.(\d+)\s*", spec)
    assert m, f"requires-python {spec!r}: expected '>=3.N'"
    return 3, int(m.group(1))


def interpreter(version: tuple):
    """A Python of exactly `version`: this one, pyenv's, or python3.N on PATH."""
    if sys.version_info[:2] == version:
        return sys.executable
    pyenv = sorted(glob.glob(os.path.expanduser(
        f"~/.pyenv/versions/{version[0]}.{version[1]}.*/bin/python")))
    return pyenv[-1] if pyenv else shutil.which(f"python{version[0]}.{version[1]}")


def stdlib_imports() -> list:
    """Top-level standard-library modules imported anywhere in the package."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(n for n in names if n in sys.stdlib_module_names)


def test_this_python_satisfies_requires_python():
    assert sys.version_info[:2] >= oldest_python()


def test_oldest_stated_python_has_what_the_package_uses():
    version = oldest_python()
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version[0]}.{version[1]} here to check requires-python against")
    files = [str(p) for p in PACKAGE.rglob("*.py")]
    run = subprocess.run([python, "-c", CHECK, *files, ",".join(stdlib_imports())],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (
        f"Python {version[0]}.{version[1]} (requires-python) can't run the package: "
        f"{run.stdout.strip()} {run.stderr.strip()[-2000:]}")
