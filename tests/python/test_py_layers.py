"""Log.layers: the records of one file across the I/O layers (H5D/PNETCDF_VAR,
H5F/PNETCDF_FILE, MPI-IO, POSIX), joined by file name, on logs our writer makes.
(The MPI test tests/mpi/test_mpi_hdf5.py checks the same join on a real run.)"""
import numpy as np
import pytest

iolens = pytest.importorskip("iolens")
from iolens.write import Writer  # noqa: E402
from iolens._meta import module_info, record_id  # noqa: E402


def counters(module, **values):
    info = module_info(module)
    c = np.zeros((1, len(info.counters)), np.int64)
    f = np.zeros((1, len(info.fcounters)), np.float64)
    for k, v in values.items():
        if k in info.counters:
            c[0, info.counters.index(k)] = v
        else:
            f[0, info.fcounters.index(k)] = v
    return c, f


def make_log(path, h5d_file_id=True):
    f, d, v = "/data/run/out.h5", "/data/run/out.h5:/grp/temp", "/data/run/out.nc:u"
    other = "/data/run/other.dat"
    ids = {n: record_id(n) for n in (f, d, v, "/data/run/out.nc", other)}
    with Writer(path) as w:
        w.set_job(nprocs=2, exe="app", mounts=[("/", "ext4")])
        w.add_names(list(ids.values()), list(ids))
        w.put_records("POSIX", [ids[f], ids[other]], [-1, 0],
                      *[np.vstack(x) for x in zip(counters("POSIX", POSIX_BYTES_WRITTEN=4200),
                                                   counters("POSIX", POSIX_BYTES_READ=7))])
        w.put_records("MPI-IO", [ids[f]], [-1], *counters("MPI-IO", MPIIO_BYTES_WRITTEN=4100,
                                                               MPIIO_F_WRITE_TIME=0.5))
        w.put_records("H5F", [ids[f]], [-1], *counters("H5F", H5F_OPENS=2))
        w.put_records("H5D", [ids[d]], [-1], *counters("H5D", H5D_BYTES_WRITTEN=4096),
                      file_rec_id=[ids[f] if h5d_file_id else 0])
        w.put_records("PNETCDF_VAR", [ids[v]], [1], *counters("PNETCDF_VAR",
                                                             PNETCDF_VAR_BYTES_READ=80),
                      file_rec_id=[ids["/data/run/out.nc"]])
    return f


@pytest.mark.parametrize("file_id", [True, False], ids=["file_rec_id", "name-only"])
def test_layers_of_one_file(tmp_path, file_id):
    log = tmp_path / "l.darshan"
    f = make_log(log, file_id)
    with iolens.open(log) as lg:
        one = lg.layers(f)
        every = lg.layers()
    assert list(one["layer"]) == ["H5D", "H5F", "MPI-IO", "POSIX"]      # top to bottom
    h5d = one.iloc[0]
    assert (h5d["object"], h5d["bytes_written"]) == ("/grp/temp", 4096)
    assert list(one["bytes_written"]) == [4096, 0, 4100, 4200]
    assert one.iloc[2]["write_time"] == 0.5
    assert set(every["file"]) == {f, "/data/run/out.nc", "/data/run/other.dat"}
    var = every[every["layer"] == "PNETCDF_VAR"].iloc[0]
    assert (var["file"], var["object"], var["bytes_read"], var["rank"]) == \
        ("/data/run/out.nc", "u", 80, 1)


def test_no_layers(tmp_path):
    log = tmp_path / "e.darshan"
    with Writer(log) as w:
        w.set_job(nprocs=1, exe="app")
    with iolens.open(log) as lg:
        assert list(lg.layers().columns)[:3] == ["file", "layer", "object"]
        assert len(lg.layers()) == 0
