"""Parallel HDF5 under the MPI runtime (runtime spec 2.4): w08_hdf5 on 4 processes
against upstream's golden log (which needed HDF5 preloaded beside upstream's
runtime; ours finds HDF5 by itself), and the layers of one collective write agree
on bytes.  Debian's parallel HDF5 (libhdf5-openmpi-dev) is built for Open MPI, so
these run with Open MPI only."""
import subprocess

import pytest

from mpi_helpers import one_log
from test_mpi_golden import allow_file, compare  # noqa: F401  (fixture)

iolens = pytest.importorskip("iolens")
HDF5_DIR = "/usr/lib/x86_64-linux-gnu/hdf5/openmpi"


@pytest.fixture
def w08(mpi, shared, tmp_path):
    if mpi.name != "openmpi":
        pytest.skip("Debian's parallel HDF5 is built for Open MPI only")
    out = tmp_path / "bin"
    out.mkdir()
    r = subprocess.run(["make", "-s", "-C", str(shared / "workloads"), f"OUT={out}",
                        f"MPICC={mpi.info['cc']}", f"HDF5_DIR={HDF5_DIR}", str(out / "w08_hdf5")],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip(f"cannot build w08_hdf5 (libhdf5-openmpi-dev): {r.stderr[-300:]}")
    return out / "w08_hdf5"


def run_w08(mpi, exe, tmp_path):
    work, logdir = tmp_path / "w08_hdf5", tmp_path / "logs"
    work.mkdir()
    mpi.run([exe, work], logdir)
    return work, one_log(logdir)


def test_w08_matches_golden(mpi, shared, w08, allow_file, tmp_path):  # noqa: F811
    pytest.importorskip("darshan")
    _, log = run_w08(mpi, w08, tmp_path)
    r = compare(shared, log, shared / "golden" / "runtime" / "w08_hdf5.darshan", allow_file)
    assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
    with iolens.open(log) as lg:
        assert {"H5F", "H5D", "MPI-IO", "POSIX"} <= set(lg.modules)


def test_layers_agree_on_bytes(mpi, w08, tmp_path):
    """The datasets' rows go down as H5D writes, through MPI-IO, into POSIX writes of
    data.h5.  MPI-IO and POSIX agree exactly; they carry the dataset bytes plus what
    HDF5 adds: the fill of the contiguous dataset at creation (parallel HDF5
    allocates it early) and its metadata, a few KiB."""
    work, log = run_w08(mpi, w08, tmp_path)
    path = str(work / "data.h5")
    with iolens.open(log) as lg:
        h5d = lg.records("H5D")
        mpiio = lg.records("MPI-IO")
        posix = lg.records("POSIX")
        h5f = lg.records("H5F")
    dataset = 64 * 128 * 8                         # one 64 x 128 dataset of doubles
    assert h5d["H5D_BYTES_WRITTEN"].sum() == 2 * dataset
    assert set(h5d["name"]) == {path + ":/contiguous", path + ":/chunked"}
    assert h5d["H5D_USE_MPIIO_COLLECTIVE"].max() == 1
    assert (h5d["file_rec_id"] == h5f["id"].iloc[0]).all()
    m = mpiio[mpiio["name"] == path]["MPIIO_BYTES_WRITTEN"].sum()
    p = posix[posix["name"] == path]["POSIX_BYTES_WRITTEN"].sum()
    assert m == p
    with iolens.open(log) as lg:                  # the same join, as the reader offers it
        layers = lg.layers(path)
    by_layer = layers.groupby("layer")["bytes_written"].sum()
    assert list(dict.fromkeys(layers["layer"])) == ["H5D", "H5F", "MPI-IO", "POSIX"]
    assert (by_layer["H5D"], by_layer["MPI-IO"], by_layer["POSIX"]) == (2 * dataset, m, p)
    metadata = m - 2 * dataset - dataset
    assert 0 < metadata < 16 * 1024, (m, metadata)


def test_report_shows_hdf5(mpi, w08, tmp_path):
    """The job report's HDF5 parts: cost and operation counts per interface, and the
    dataset table with shape, chunking and traffic of each dataset."""
    from iolens.report import stats, tables
    from iolens.report.cli import main
    from iolens.report.source import ReportData
    work, log = run_w08(mpi, w08, tmp_path)
    with iolens.open(log) as lg:
        data = ReportData(lg)
        assert "HDF5" in stats.op_counts(data) and "HDF5" in stats.cost(data).index
        rows = {r[1]: r for r in tables.datasets(data).rows}
    chunked, contig = rows[f"{work}/data.h5:/chunked"], rows[f"{work}/data.h5:/contiguous"]
    assert chunked[3:6] == ["2-D, 8192 elements", "8 B", "16 x 64"]
    assert contig[5:] == ["-", "256.00 KiB", "64.00 KiB", "yes"]
    out = tmp_path / "r.html"
    assert main([str(log), "-o", str(out)]) == 0
    html = out.read_text()
    assert 'id="datasets-table"' in html and "data.h5:/chunked" in html
