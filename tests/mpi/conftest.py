"""Fixtures of the MPI tests (helpers in mpi_helpers.py)."""
import pytest

from mpi_helpers import HERE, Mpi, available_mpis, find_mpi_runtime
from rt_helpers import shared  # noqa: F401  (fixture; mpi_helpers puts tests/runtime on the path)


@pytest.fixture(params=available_mpis())
def mpi(request):
    return Mpi(request.param, find_mpi_runtime(request.param))


@pytest.fixture(scope="session")
def progs_dir():
    return HERE / "progs"
