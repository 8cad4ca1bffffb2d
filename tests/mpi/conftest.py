"""Fixtures of the MPI tests (helpers in mpi_helpers.py)."""
import pytest

from mpi_helpers import HERE, Mpi, SHARED, available_mpis, find_mpi_runtime


@pytest.fixture(params=available_mpis())
def mpi(request):
    return Mpi(request.param, find_mpi_runtime(request.param))


@pytest.fixture(scope="session")
def shared():
    if not (SHARED / "golden" / "runtime").is_dir():
        pytest.skip(f"reference data not found at {SHARED} (../shared)")
    return SHARED


@pytest.fixture(scope="session")
def progs_dir():
    return HERE / "progs"
