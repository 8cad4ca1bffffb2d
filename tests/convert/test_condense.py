"""--condense on a generated 1,000-process file-per-process log: one compressed
stream per module instead of one per process, the same records, a smaller file,
readable by `iolens parse` and PyDarshan 3.5.0.  (The sizes themselves are
recorded by bench/convert/condense_sizes.py in docs/convert.md.)"""
import pytest

import iolens
from conv_helpers import record_lines, region_streams, run
from fpp_log import write_fpp_log

N = 1000


@pytest.fixture(scope="module")
def layouts(tool, tmp_path_factory):
    d = tmp_path_factory.mktemp("fpp")
    write_fpp_log(d / "gen.darshan", N)
    run(tool, "convert", d / "gen.darshan", d / "per-process.darshan")
    run(tool, "convert", "--condense", d / "per-process.darshan", d / "condensed.darshan")
    return d / "per-process.darshan", d / "condensed.darshan"


def streams(path, module):
    with iolens.open(path) as log:
        m = log.modules[module]
        return region_streams(path, m["offset"], m["length"])


def test_stream_layout(layouts):
    per, cond = layouts
    for module in ("POSIX", "MPI-IO"):
        p_payload, p_n = streams(per, module)
        c_payload, c_n = streams(cond, module)
        assert p_n == N and c_n == 1
        assert p_payload == c_payload           # the same bytes, only compressed apart


def test_same_records_smaller(tool, layouts):
    per, cond = layouts
    assert record_lines(tool, per) == record_lines(tool, cond)
    # measured: 37 % smaller file, module regions 35-42 % smaller (docs/convert.md)
    assert cond.stat().st_size < 0.8 * per.stat().st_size
    with iolens.open(per) as a, iolens.open(cond) as b:
        for m in ("POSIX", "MPI-IO"):
            assert b.modules[m]["length"] < 0.75 * a.modules[m]["length"]


def test_pydarshan_reads_condensed(layouts):
    darshan = pytest.importorskip("darshan", reason="PyDarshan (darshan==3.5.0) not installed")
    per, cond = layouts
    for path in layouts:
        with darshan.DarshanReport(str(path), read_all=True) as rep:
            df = rep.records["POSIX"].to_df()["counters"]
            assert len(df) == N
            assert int(df["POSIX_BYTES_WRITTEN"].sum()) == \
                int(iolens.open(path).records("POSIX")["POSIX_BYTES_WRITTEN"].sum())
