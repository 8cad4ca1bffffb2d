"""iolens.view on synthetic traces with known answers: idle gaps, phases, bytes
in flight and bandwidth from operations' start and end; bytes per layer never
added; per-OST bytes and time with PFL layouts, multi-stripe operations and
MPI-IO offset -1."""
import numpy as np
import pytest

iolens = pytest.importorskip("iolens")
from iolens.view import JobView  # noqa: E402
from view_logs import MiB, Segments, posix_row, write_log  # noqa: E402

DATA = "/lus/run/data.bin"


def view_of(path):
    log = iolens.open(path)
    return JobView(log)


@pytest.fixture
def trace_log(tmp_path):
    """Rank 0 reads 1 MiB for 0.9 s, rank 1 reads at 1.0-1.1 s, then both are idle
    until 3.0 s, and rank 0 writes 2 MiB during 3.0-3.5 s."""
    seg = (Segments().add(DATA, 0, "read", 0, MiB, 0.0, 0.9)
           .add(DATA, 1, "read", MiB, MiB, 1.0, 1.1)
           .add(DATA, 0, "write", 0, 2 * MiB, 3.0, 3.5))
    posix = [(DATA, 0, posix_row(reads=1, writes=1, read_bytes=MiB, written=2 * MiB,
                                 read_time=0.9, write_time=0.5)),
             (DATA, 1, posix_row(reads=1, read_bytes=MiB, read_time=0.1,
                                 POSIX_MAX_BYTE_READ=2 * MiB - 1))]
    return write_log(tmp_path / "t.darshan", posix=posix, dxt_posix=seg)


def test_gaps_come_from_start_and_end(trace_log):
    v = view_of(trace_log)
    iv = v.intervals
    assert iv.source == "DXT_POSIX" and iv.operations == 3
    gaps = iv.gaps()
    assert gaps["start"].iloc[0] == pytest.approx(1.1) and gaps["end"].iloc[0] == \
        pytest.approx(3.0)
    assert gaps["seconds"].iloc[1] == pytest.approx(0.1)      # 0.9 -> 1.0
    # the 0.9 s read is busy, not idle: no gap inside it
    assert not ((gaps["start"] < 0.9) & (gaps["end"] > 0.0)).any()
    assert iv.busy_seconds == pytest.approx(0.9 + 0.1 + 0.5)


def test_phases_and_bandwidth(trace_log):
    iv = view_of(trace_log).intervals
    ph = iv.phases(min_gap=1.0)
    assert ph[["start", "end"]].to_numpy() == pytest.approx(np.array([[0.0, 1.1], [3.0, 3.5]]))
    assert ph["read_bytes"].to_numpy() == pytest.approx([2 * MiB, 0], abs=1)
    assert ph["write_bytes"].to_numpy() == pytest.approx([0, 2 * MiB], abs=1)
    assert iv.bandwidth() == pytest.approx(4 * MiB / 1.5)


def test_bytes_in_flight_follow_each_operation(trace_log):
    flight = view_of(trace_log).intervals.in_flight()
    t = flight["start"].to_numpy()
    read = flight["read_bytes"].to_numpy()
    # rank 0's 1 MiB read is spread over 0-0.9 s: 0.45 s hold half of it
    assert read[t < 0.45 - 1e-9].sum() == pytest.approx(MiB / 2, rel=1e-3)
    assert read.sum() == pytest.approx(2 * MiB)
    assert flight["write_bytes"].sum() == pytest.approx(2 * MiB)


def test_layers_are_never_added(tmp_path):
    """MPI-IO and POSIX move the same 8 MiB: the job moved 8 MiB, not 16, and
    bandwidth counts one trace (POSIX) only."""
    posix = [(DATA, 0, posix_row(reads=8, read_bytes=8 * MiB, read_time=1.0))]
    mpiio = [(DATA, 0, {"MPIIO_INDEP_READS": 8, "MPIIO_BYTES_READ": 8 * MiB,
                        "MPIIO_SIZE_READ_AGG_1M_4M": 8, "MPIIO_F_READ_TIME": 1.0})]
    p, m = Segments(), Segments()
    for k in range(8):
        p.add(DATA, 0, "read", k * MiB, MiB, k * 0.125, (k + 1) * 0.125)
        m.add(DATA, 0, "read", k * MiB, MiB, k * 0.125, (k + 1) * 0.125)
    v = view_of(write_log(tmp_path / "l.darshan", posix=posix, mpiio=mpiio,
                          dxt_posix=p, dxt_mpiio=m))
    assert v.job_bytes() == (8 * MiB, 0)
    by_layer = v.layer_bytes()
    assert by_layer.loc["MPI-IO", "bytes_read"] == by_layer.loc["POSIX", "bytes_read"] == 8 * MiB
    assert v.intervals.bandwidth() == pytest.approx(8 * MiB / 1.0)


def test_counters_give_intervals_without_a_trace(tmp_path):
    posix = [(DATA, 0, posix_row(reads=2, read_bytes=4 * MiB, read_time=1.0,
                                 POSIX_F_READ_START_TIMESTAMP=2.0,
                                 POSIX_F_READ_END_TIMESTAMP=3.0))]
    iv = view_of(write_log(tmp_path / "c.darshan", posix=posix)).intervals
    assert iv.source == "counters"
    assert iv.busy()[["start", "end"]].to_numpy().tolist() == [[2.0, 3.0]]
    assert iv.bandwidth() == pytest.approx(4 * MiB)


PFL = "/lus/run/pfl.dat"
ONLY_MPI = "/lus/run/mpi.dat"
LAYOUT_PFL = [dict(stripe_size=MiB, stripe_count=1, ext_start=0, ext_end=MiB, osts=[7]),
              dict(stripe_size=MiB, stripe_count=2, ext_start=MiB, ext_end=-1, osts=[3, 4])]
LAYOUT_MPI = [dict(stripe_size=MiB, stripe_count=1, ext_start=0, ext_end=-1, osts=[9])]


@pytest.fixture
def ost_log(tmp_path):
    p = (Segments().add(PFL, 0, "write", 0, MiB, 0.0, 1.0)              # comp 0: OST 7
         .add(PFL, 0, "write", MiB, 2 * MiB, 1.0, 3.0)                  # comp 1: OST 3 and 4
         .add(PFL, 1, "read", MiB // 2, MiB, 4.0, 5.0))                 # OST 7 and OST 3
    m = (Segments().add(PFL, 0, "write", 0, 3 * MiB, 0.0, 3.0)          # POSIX has it: ignored
         .add(ONLY_MPI, 0, "write", -1, 4096, 0.0, 0.5)                 # offset unknown
         .add(ONLY_MPI, 0, "write", 0, 2 * MiB, 1.0, 2.0))              # OST 9
    return write_log(tmp_path / "o.darshan", lustre=[(PFL, LAYOUT_PFL), (ONLY_MPI, LAYOUT_MPI)],
                     dxt_posix=p, dxt_mpiio=m)


def test_ost_bytes_and_time_split_over_pfl_stripes(ost_log):
    ost = view_of(ost_log).ost.set_index("ost")
    assert ost.attrs["source"] == "trace"
    assert ost.loc[7, "bytes_written"] == MiB and ost.loc[7, "bytes_read"] == MiB // 2
    assert ost.loc[3, "bytes_written"] == MiB and ost.loc[3, "bytes_read"] == MiB // 2
    assert ost.loc[4, "bytes_written"] == MiB and ost.loc[4, "bytes_read"] == 0
    assert ost.loc[7, "write_time"] == pytest.approx(1.0)
    assert ost.loc[3, "write_time"] == pytest.approx(1.0)
    assert ost.loc[7, "read_time"] == pytest.approx(0.5)
    assert ost.loc[9, "bytes_written"] == 2 * MiB          # MPI-IO only file
    assert ost.attrs["unplaced_bytes"] == 4096             # the MPI-IO offset -1
    assert set(ost.index) == {3, 4, 7, 9}


def test_multi_stripe_operation_covers_each_stripe(tmp_path):
    """One 10 MiB write over a 4-stripe layout of 1 MiB stripes starting at
    stripe 1: stripes 1, 2 get 3 MiB, stripes 3, 0 get 2 MiB."""
    wide = "/lus/run/wide.dat"
    layout = [dict(stripe_size=MiB, stripe_count=4, ext_start=0, ext_end=-1,
                   osts=[10, 11, 12, 13])]
    seg = Segments().add(wide, 0, "write", MiB, 10 * MiB, 0.0, 10.0)
    ost = view_of(write_log(tmp_path / "w.darshan", lustre=[(wide, layout)],
                            dxt_posix=seg)).ost.set_index("ost")
    assert ost["bytes_written"].to_dict() == {11: 3 * MiB, 12: 3 * MiB, 13: 2 * MiB,
                                              10: 2 * MiB}
    assert ost.loc[11, "write_time"] == pytest.approx(3.0)


def test_io_time_is_the_parsers_slowest_rank(trace_log):
    v = view_of(trace_log)
    t = v.io_time("POSIX")
    assert [t.per_process.at(r) for r in (0, 1)] == pytest.approx([1.4, 0.1])
    assert t.slowest_rank == 0 and t.job == pytest.approx(1.4)
    assert v.perf("POSIX").agg_time_by_slowest == pytest.approx(t.job)


def test_report_dxt_heat_map_spreads_each_operation(trace_log):
    """The report's DXT heat map puts each operation's bytes in every bin its
    start-to-end span overlaps (a 0.9 s read is not all in its first bin)."""
    from iolens.report import activity
    from iolens.report.source import ReportData
    with iolens.open(trace_log) as log:
        width, read, write, ranks = activity.dxt_heatmap(ReportData(log))["POSIX"]
    row = read[list(ranks).index(0)]
    covered = int(np.ceil(0.9 / width))
    assert row[:covered] == pytest.approx(
        [MiB * (min((k + 1) * width, 0.9) - k * width) / 0.9 for k in range(covered)])
    assert read.sum() == pytest.approx(2 * MiB) and write.sum() == pytest.approx(2 * MiB)
