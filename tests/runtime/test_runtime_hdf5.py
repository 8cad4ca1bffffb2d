"""The H5F and H5D modules (runtime spec 2.4, docs/hdf5.md) in the non-MPI runtime:
serial HDF5 from C and Fortran, h5py and netCDF4 (whose wheels load their own HDF5
with RTLD_LOCAL), and what a program that does not use HDF5 pays: nothing loaded,
and LD_BIND_NOW=1 still starts.  HDF5 is never preloaded: the runtime finds the
library the program uses by itself.  Counters are read with our reader and checked
against PyDarshan for the C program."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rt_helpers import logs_in, run_under

iolens = pytest.importorskip("iolens")

HERE = Path(__file__).resolve().parent
PROGS = HERE / "progs"


def build(tool, args, out):
    if not shutil.which(tool):
        pytest.skip(f"{tool} not found (Debian: libhdf5-dev)")
    # in the output's directory: the compiler drivers leave objects in the cwd
    r = subprocess.run([tool, "-shlib", *map(str, args), "-o", str(out)], capture_output=True,
                       text=True, timeout=300, cwd=out.parent)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def h5_serial(tmp_path_factory):
    return build("h5cc", [PROGS / "h5_serial.c"], tmp_path_factory.mktemp("h5c") / "h5_serial")


def records(log, module):
    """{name: {counter: value}} of one module (our reader)."""
    with iolens.open(log) as lg:
        df = lg.records(module)
    return {r["name"]: r for r in df.to_dict("records")}


def one_log(logdir, prefix=None):
    logs = [p for p in logs_in(logdir) if prefix is None or p.name.split("_")[1] == prefix]
    assert len(logs) == 1, logs
    return logs[0]


def test_serial_c_counters(runtime, h5_serial, tmp_path):
    run_under(runtime, [h5_serial, tmp_path, "hdf5"], tmp_path / "logs")
    log = one_log(tmp_path / "logs")
    path = str(tmp_path / "s.h5")
    f = records(log, "H5F")[path]
    assert (f["H5F_OPENS"], f["H5F_FLUSHES"], f["H5F_USE_MPIIO"]) == (1, 1, 0)
    assert 0 < f["H5F_F_OPEN_START_TIMESTAMP"] <= f["H5F_F_CLOSE_END_TIMESTAMP"]
    d = records(log, "H5D")[path + ":/grid"]
    want = {"H5D_OPENS": 2, "H5D_USE_DEPRECATED": 0, "H5D_WRITES": 5, "H5D_READS": 1,
            "H5D_BYTES_WRITTEN": 4 * 8 * 16 + 4 * (2 * 16 * 4), "H5D_BYTES_READ": 12,
            "H5D_FLUSHES": 1, "H5D_POINT_SELECTS": 1, "H5D_REGULAR_HYPERSLAB_SELECTS": 4,
            "H5D_IRREGULAR_HYPERSLAB_SELECTS": 0, "H5D_RW_SWITCHES": 1,
            "H5D_DATASPACE_NDIMS": 2, "H5D_DATASPACE_NPOINTS": 128, "H5D_DATATYPE_SIZE": 4,
            "H5D_CHUNK_SIZE_D1": 0, "H5D_USE_MPIIO_COLLECTIVE": 0,
            "H5D_SIZE_WRITE_AGG_100_1K": 5, "H5D_SIZE_READ_AGG_0_100": 1,
            # the row blocks: 128 bytes, 2 rows x 16 columns, right-aligned (spec 2.4)
            "H5D_ACCESS1_ACCESS": 128, "H5D_ACCESS1_COUNT": 4, "H5D_ACCESS1_LENGTH_D5": 2,
            "H5D_ACCESS1_LENGTH_D4": 16, "H5D_ACCESS1_STRIDE_D5": 1, "H5D_ACCESS1_STRIDE_D4": 1,
            "H5D_ACCESS1_LENGTH_D1": 0,
            "H5D_ACCESS2_ACCESS": 512, "H5D_ACCESS2_COUNT": 1, "H5D_ACCESS2_LENGTH_D5": 0,
            "H5D_ACCESS3_ACCESS": 12, "H5D_ACCESS3_COUNT": 1}
    assert {k: d[k] for k in want} == want
    assert d["file_rec_id"] == next(iter(records(log, "H5F").values()))["id"]
    assert d["H5D_F_WRITE_TIME"] > 0 and d["H5D_F_CLOSE_END_TIMESTAMP"] > 0
    # the same counters through PyDarshan, the reference reader
    darshan = pytest.importorskip("darshan")
    rep = darshan.DarshanReport(str(log), read_all=True)
    theirs = rep.records["H5D"].to_df()["counters"].iloc[0].to_dict()
    assert {k: int(theirs[k]) for k in want} == want


def test_fortran(runtime, tmp_path):
    exe = build("h5fc", [PROGS / "h5_fortran.f90"], tmp_path / "h5_fortran")
    run_under(runtime, [exe, tmp_path], tmp_path / "logs")
    log = one_log(tmp_path / "logs")
    assert records(log, "H5F")[str(tmp_path / "f.h5")]["H5F_OPENS"] == 1
    d = records(log, "H5D")[str(tmp_path / "f.h5") + ":/temp"]
    assert (d["H5D_OPENS"], d["H5D_WRITES"], d["H5D_BYTES_WRITTEN"]) == (1, 1, 8 * 4 * 8)
    assert (d["H5D_DATASPACE_NPOINTS"], d["H5D_DATATYPE_SIZE"]) == (32, 8)


H5PY_SCRIPT = """
import h5py, numpy as np, sys
d = sys.argv[1]
with h5py.File(d + "/a.h5", "w") as f:
    ds = f.create_dataset("grid", shape=(64, 32), dtype="f8", chunks=(16, 8))
    for i in range(4):
        ds[i * 16:(i + 1) * 16, :] = np.full((16, 32), i, "f8")
    f.create_dataset("small", data=np.arange(10, dtype="i4"))
with h5py.File(d + "/a.h5", "r") as f:
    x = f["grid"][::2, 4:12]
    y = f["small"][...]
assert x.shape == (32, 8) and y.sum() == 45
"""


def python_log(runtime, tmp_path, module, script):
    """Run `script` (given tmp_path as argv[1]) in Python under the runtime, when
    `module` is installed; the one log it leaves."""
    pytest.importorskip(module)
    path = tmp_path / "script.py"
    path.write_text(script)
    run_under(runtime, [sys.executable, path, tmp_path], tmp_path / "logs")
    return one_log(tmp_path / "logs", "python")


def test_h5py_chunked_hyperslabs(runtime, tmp_path):
    log = python_log(runtime, tmp_path, "h5py", H5PY_SCRIPT)
    path = str(tmp_path / "a.h5")
    assert records(log, "H5F")[path]["H5F_OPENS"] == 2
    h5d = records(log, "H5D")
    g = h5d[path + ":/grid"]
    want = {"H5D_OPENS": 2, "H5D_WRITES": 4, "H5D_READS": 1, "H5D_BYTES_WRITTEN": 64 * 32 * 8,
            "H5D_BYTES_READ": 32 * 8 * 8, "H5D_REGULAR_HYPERSLAB_SELECTS": 5,
            "H5D_CHUNK_SIZE_D1": 8, "H5D_CHUNK_SIZE_D2": 16, "H5D_DATASPACE_NDIMS": 2,
            "H5D_DATASPACE_NPOINTS": 2048, "H5D_DATATYPE_SIZE": 8,
            # writes: 16 rows x 32 columns; the read: every 2nd of 64 rows, 8 columns
            "H5D_ACCESS1_ACCESS": 4096, "H5D_ACCESS1_COUNT": 4, "H5D_ACCESS1_LENGTH_D5": 16,
            "H5D_ACCESS1_LENGTH_D4": 32, "H5D_ACCESS2_ACCESS": 2048, "H5D_ACCESS2_COUNT": 1,
            "H5D_ACCESS2_LENGTH_D5": 32, "H5D_ACCESS2_LENGTH_D4": 8, "H5D_ACCESS2_STRIDE_D5": 2,
            "H5D_ACCESS2_STRIDE_D4": 1}
    assert {k: g[k] for k in want} == want
    s = h5d[path + ":/small"]
    assert (s["H5D_WRITES"], s["H5D_BYTES_WRITTEN"], s["H5D_READS"], s["H5D_BYTES_READ"]) == \
        (1, 40, 1, 40)


NETCDF_SCRIPT = """
import netCDF4, numpy as np, sys
with netCDF4.Dataset(sys.argv[1] + "/n.nc", "w") as ds:
    ds.createDimension("t", None)
    ds.createDimension("x", 50)
    v = ds.createVariable("temp", "f4", ("t", "x"))
    v[0:4, :] = np.ones((4, 50), "f4")
"""


def test_netcdf4_through_hdf5(runtime, tmp_path):
    log = python_log(runtime, tmp_path, "netCDF4", NETCDF_SCRIPT)
    path = str(tmp_path / "n.nc")
    assert records(log, "H5F")[path]["H5F_OPENS"] == 1
    v = records(log, "H5D")[path + ":/temp"]
    assert (v["H5D_WRITES"], v["H5D_BYTES_WRITTEN"], v["H5D_DATASPACE_NDIMS"]) == (1, 800, 2)


def test_hdf5_linked_but_unused(runtime, h5_serial, tmp_path):
    """A program that links HDF5 and never calls it: no HDF5 module in its log."""
    run_under(runtime, [h5_serial, tmp_path, "posix"], tmp_path / "logs")
    log = one_log(tmp_path / "logs")
    with iolens.open(log) as lg:
        assert "H5F" not in lg.modules and "H5D" not in lg.modules
        assert str(tmp_path / "plain.dat") in set(lg.records("POSIX")["name"])


def test_no_hdf5_loaded_without_hdf5(runtime, tmp_path):
    """The runtime itself loads no HDF5 library into a program that has none."""
    r = run_under(runtime, ["cat", "/proc/self/maps"], tmp_path / "logs")
    assert "libiolens" in r.stdout
    assert "hdf5" not in r.stdout


def test_bind_now_without_hdf5(runtime, tmp_path):
    """LD_BIND_NOW=1 resolves every symbol at start: ours needs no HDF5 symbol."""
    r = run_under(runtime, ["sh", "-c", f"echo x > {tmp_path}/f && cat {tmp_path}/f"],
                  tmp_path / "logs", {"LD_BIND_NOW": "1"})
    assert r.stdout == "x\n" and "symbol lookup error" not in r.stderr
    assert logs_in(tmp_path / "logs")
    nm = subprocess.run(["nm", "-D", "--undefined-only", str(runtime)], capture_output=True,
                        text=True)
    if nm.returncode == 0:
        assert not [ln for ln in nm.stdout.splitlines() if " H5" in ln]
