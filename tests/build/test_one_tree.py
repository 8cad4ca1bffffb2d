"""The wheel, the C tools and the tests come from one build tree (docs/install.md,
"One build"): the Python package imported here was built in the same CMake tree as
the `iolens` tool the tests run (IOLENS_BIN), and the installed tool and runtime
are that tree's files.  Before, the wheel was built in build-py/<tag> and the
tools in build/, so the tests mixed two builds."""
import filecmp
import importlib
import os
import shutil
from pathlib import Path

import pytest


def tree_of(path):
    for parent in Path(path).resolve().parents:
        if (parent / "CMakeCache.txt").exists():
            return parent
    return None


@pytest.fixture(scope="module")
def tree():
    tool = os.environ.get("IOLENS_BIN")
    if not tool or not Path(tool).exists():
        pytest.skip("IOLENS_BIN names no built iolens (scripts/test.sh sets it)")
    found = tree_of(tool)
    if found is None:
        pytest.skip(f"IOLENS_BIN ({tool}) is not in a CMake build tree")
    return found


def test_python_extension_is_the_trees(tree):
    core = Path(importlib.import_module("iolens._core").__file__)
    built = tree / "python" / "iolens" / core.name
    assert built.exists(), f"the tree of IOLENS_BIN ({tree}) did not build {core.name}"
    assert filecmp.cmp(core, built, shallow=False), f"{core} is not {built}"


def test_installed_tool_and_runtime_are_the_trees(tree):
    installed = shutil.which("iolens")
    if installed is None:
        pytest.skip("no installed iolens on PATH")
    prefix = Path(installed).resolve().parent.parent
    pairs = [(Path(installed), tree / "src" / "tools" / "iolens"),
             (prefix / "lib" / "libiolens.so", tree / "src" / "runtime" / "libiolens.so")]
    for inst, built in pairs:
        assert inst.exists() and built.exists(), (inst, built)
        assert filecmp.cmp(inst, built, shallow=False), f"{inst} is not {built}"
