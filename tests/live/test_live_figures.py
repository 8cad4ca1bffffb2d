"""The live view's per-process figures combine layers as the log's view does."""
import pytest

from iolens._meta import layered_seconds
from iolens.live.snapshot import FIGURES
from iolens.live.view import io_seconds


def figures(seconds):
    fig = dict.fromkeys(FIGURES, 0.0)
    fig["read_seconds"], fig["write_seconds"], fig["meta_seconds"] = seconds
    return fig


def test_layers_combine_without_counting_a_call_twice():
    # file-system layers add up; a layer above contains their time
    assert layered_seconds({"POSIX": 2.0, "STDIO": 1.0}) == pytest.approx(3.0)
    assert layered_seconds({"POSIX": 2.0, "STDIO": 1.0, "MPI-IO": 2.5}) == pytest.approx(3.0)
    assert layered_seconds({"POSIX": 2.0, "MPI-IO": 5.0}) == pytest.approx(5.0)
    assert layered_seconds({"POSIX": 1.0, "MPI-IO": 4.0, "H5D": 4.5}) == pytest.approx(4.5)
    assert layered_seconds({}) == 0.0


def test_live_io_seconds_do_not_add_mpiio_to_posix():
    """An MPI-IO write of 3 s that made 2 s of POSIX writes is 3 s of I/O, not 5
    (the live view summed every layer before)."""
    totals = {"posix": figures((0.0, 1.5, 0.5)), "mpiio": figures((0.0, 2.5, 0.5)),
              "stdio": figures((0.0, 0.0, 0.0))}
    assert io_seconds(totals) == pytest.approx(3.0)
    assert io_seconds({"posix": figures((1.0, 0.0, 0.0)),
                       "stdio": figures((0.0, 0.5, 0.0))}) == pytest.approx(1.5)
