import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fleet_helpers import write_config  # noqa: E402


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """60 synthetic logs (every shape, 1 to 64 processes, a few partial)."""
    from iolens.fleet.synth import generate
    d = tmp_path_factory.mktemp("generated")
    return str(d), generate(str(d), 60, seed=7, max_procs=64)


@pytest.fixture(scope="session")
def config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("config"))
