"""Fixtures of the recovery tests: the runtime/tool fixtures of tests/runtime, plus
helpers to run programs with a private safety-copy directory and read logs."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from rt_helpers import runtime_having, tool  # noqa: E402,F401  (fixtures)


@pytest.fixture(scope="session")
def runtime():
    """The runtime, which must have the safety copy (a build tree older than it
    would fail every test here for the wrong reason)."""
    return runtime_having(b"_mmap-log-", "the safety copy")
