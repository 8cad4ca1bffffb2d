"""Fixtures of the live-view tests (docs/live.md): the runtime and tool fixtures
of tests/runtime, and a helper to build the test programs."""
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from rt_helpers import runtime_having, tool  # noqa: E402,F401  (fixtures)

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def runtime():
    """The runtime, which must publish the live trailer (an older build would
    fail the tests here for the wrong reason)."""
    return runtime_having(b"IOLLIVE1", "the live snapshots")


@pytest.fixture(scope="session")
def progs(tmp_path_factory):
    """Build tests/live/progs/NAME.c on demand: progs("hammer") -> path."""
    out = tmp_path_factory.mktemp("live-progs")

    def build(name):
        exe = out / name
        if not exe.exists():
            subprocess.run(["cc", "-O1", "-pthread", "-o", str(exe), str(HERE / "progs" / f"{name}.c")],
                           check=True)
        return exe
    return build
