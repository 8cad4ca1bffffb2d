"""Every corpus log read by iolens equals PyDarshan 3.5.0 (the official library),
field by field, except for the PyDarshan bugs listed with their reasons in
allowed-pydarshan-deviations.txt (also explained in docs/deviations.md)."""
import logging

import pytest

import iolens
from pyreader_compare import load_allowed, compare
from pyreader_corpus import corpus_logs, rel

darshan = pytest.importorskip("darshan", reason="PyDarshan (pip darshan==3.5.0) not installed")
logging.getLogger("darshan").setLevel(logging.ERROR)


@pytest.fixture(scope="module")
def allowed():
    return load_allowed()


@pytest.mark.parametrize("path", corpus_logs())
def test_equal_to_pydarshan(path, allowed):
    expected = allowed.get(rel(path), {})
    # Close reports explicitly: a report left to the garbage collector can run its
    # __del__ inside cffi's type-parsing lock and deadlock (PyDarshan 3.5.0).
    with darshan.DarshanReport(str(path), read_all=True) as report, iolens.open(path) as log:
        probs, seen = compare(report, log, expected)
    assert not probs, "\n".join(probs[:40])
    # The allow list must stay exact: every listed deviation really occurs.
    assert seen == set(expected), f"listed but not observed: {set(expected) - seen}"


def test_allow_list_entries_are_corpus_logs(allowed):
    from pyreader_corpus import CORPUS
    if not CORPUS.is_dir():
        pytest.skip(f"log corpus not found at {CORPUS}")
    missing = [log for log in allowed if not (CORPUS / log).is_file()]
    assert not missing
