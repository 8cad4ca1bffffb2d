"""Fixtures of the convert/anonymise/merge/diff tests: the runtime and tool fixtures
of tests/runtime, the MPI helpers of tests/mpi, and the upstream corpus."""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "runtime"))
sys.path.insert(0, str(HERE.parents[0] / "mpi"))

from rt_helpers import SHARED, runtime, tool  # noqa: E402,F401  (fixtures)


@pytest.fixture(scope="session")
def corpus_logs():
    d = SHARED / "corpus" / "logs"
    logs = sorted(d.rglob("*.darshan")) if d.is_dir() else []
    if not logs:
        pytest.skip(f"upstream log corpus not found at {d} (../shared)")
    return logs
