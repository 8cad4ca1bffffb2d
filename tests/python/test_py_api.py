"""The iolens Python API on synthetic logs written with iolens.Writer (no corpus needed)."""
import numpy as np
import pandas as pd
import pytest

import iolens


# ------------------------------------------------------------------ metadata
def test_module_table_comes_from_core():
    mods = iolens.modules()
    posix = mods["POSIX"]
    assert posix.kind == "counters" and posix.id == iolens.module_info("posix").id
    assert "POSIX_OPENS" in posix.counters and "POSIX_F_READ_TIME" in posix.fcounters
    assert iolens.counter_names("POSIX") == posix.counters + posix.fcounters
    assert len(set(posix.counters)) == len(posix.counters)
    assert set(posix.combine.values()) <= {"none", "sum", "max", "min_nonzero", "first", "or",
                                           "maxtime", "common", "rank", "rankbytes", "ranktime",
                                           "variance"}
    assert posix.combine["POSIX_BYTES_READ"] == "sum"
    assert all(posix.descriptions[c] for c in posix.counters)
    assert mods["LUSTRE"].counters[0].startswith("LUSTRE_COMP_")
    ids = [m.id for m in mods.values()]
    assert ids == sorted(ids)


def test_module_roles_and_report_lists_come_from_the_table():
    from iolens._meta import modules_with
    from iolens.report import interfaces
    mods = iolens.modules()
    assert mods["MPI-IO"].role == "io" and mods["MPI-IO"].symbol == "MPIIO"
    assert mods["MPI-IO"].prefix == "MPIIO_" and mods["MPI-IO"].has_counter("BYTES_READ")
    assert {m.role for m in mods.values()} == {"none", "io", "trace", "heatmap", "layout", "platform",
                                               "phase"}
    assert mods["REGION"].role == "phase" and mods["REGION"].id == 41
    assert modules_with("trace") == ("DXT_POSIX", "DXT_MPIIO")
    assert modules_with("layout") == ("LUSTRE",)
    assert [n for n, m in mods.items() if m.has_file_rec_id] == ["H5D", "PNETCDF_VAR"]
    # Every I/O module's counters carry its prefix; the report's lists are subsets
    # of the I/O modules with counter tables.
    for name, prefix in interfaces.PREFIX.items():
        assert all(c.startswith(prefix) for c in mods[name].counters + mods[name].fcounters)
    io = set(interfaces.IO_MODULES)
    assert {"POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR"} <= io
    # The data modules: today's I/O modules but the file-level ones; a module
    # added later is one exactly when its table has the data counters.
    data = set(interfaces.DATA_MODULES)
    assert {"POSIX", "MPI-IO", "STDIO", "H5D", "PNETCDF_VAR", "DFS", "DAOS"} <= data <= io
    assert not data & {"H5F", "PNETCDF_FILE"}
    for name in io - data:
        assert not (mods[name].has_counter("BYTES_READ") and mods[name].has_counter("FASTEST_RANK"))
    assert "STDIO" not in interfaces.ACCESS_SIZE_MODULES and "POSIX" in interfaces.ACCESS_SIZE_MODULES
    assert set(interfaces.FILE_SYSTEM_MODULES) <= set(interfaces.DATA_MODULES)


@pytest.mark.parametrize("alias", ["MPI-IO", "MPIIO", "mpiio", "mpi-io"])
def test_module_aliases(alias):
    assert iolens.module_info(alias).name == "MPI-IO"
    assert iolens.module_info(iolens.module_info(alias).id).name == "MPI-IO"


def test_unknown_module():
    with pytest.raises(iolens.UnknownModuleError):
        iolens.module_info("NOPE")
    assert issubclass(iolens.UnknownModuleError, iolens.LogError)


def test_record_id_is_stable_and_distinct():
    a, b = iolens.record_id("/tmp/a"), iolens.record_id(b"/tmp/a")
    assert a == b and 0 <= a < 2**64
    assert iolens.record_id("/tmp/b") != a


# ------------------------------------------------------------------ a synthetic log
N = 5


def _write_log(path, compression="zlib"):
    posix = iolens.module_info("POSIX")
    names = [f"/data/file{i}" for i in range(N)]
    ids = np.array([iolens.record_id(n) for n in names], dtype=np.uint64)
    ints = np.arange(N * len(posix.counters), dtype=np.int64).reshape(N, -1)
    flts = np.linspace(0, 1, N * len(posix.fcounters)).reshape(N, -1)
    ranks = np.array([-1, 0, 1, 2, 3])
    wc, rc = np.array([2, 0, 1, 0, 0]), np.array([1, 1, 0, 0, 3])
    nseg = int((wc + rc).sum())
    seg = dict(offset=np.arange(nseg) * 100, length=np.full(nseg, 100),
               start=np.arange(nseg) * 0.5, end=np.arange(nseg) * 0.5 + 0.25)
    hm_id = iolens.record_id("heatmap:POSIX")
    with iolens.Writer(path, compression) as w:
        w.set_job(uid=42, start_time_sec=1000, start_time_nsec=5, end_time_sec=1010,
                  end_time_nsec=0, nprocs=4, jobid=7, metadata="lib_ver=x\nh=a=b;c=d\n",
                  exe="/bin/app -v", mounts=[("/data", "lustre"), ("/", "ext4")])
        # the last POSIX record is left without a name on purpose
        w.add_names(list(ids[:-1]) + [hm_id], names[:-1] + ["heatmap:POSIX"])
        w.put_records("POSIX", ids, ranks, ints, flts)
        w.put_dxt("DXT_POSIX", ids, ranks, [f"node{i % 2}" for i in range(N)], wc, rc, **seg)
        w.put_heatmap([hm_id, hm_id], [0, 1], [0.5, 0.5], [3, 3],
                      write_bins=[1, 2, 3, 4, 5, 6], read_bins=[0, 0, 9, 0, 0, 10])
    return dict(ids=ids, names=names, ints=ints, flts=flts, ranks=ranks, wc=wc, rc=rc, seg=seg)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = tmp_path_factory.mktemp("syn") / "syn.darshan"
    return path, _write_log(path)


def test_job_and_header(synthetic):
    path, _ = synthetic
    with iolens.open(path) as log:
        assert log.version == "3.41" and log.compression == "zlib" and not log.big_endian
        assert log.job["uid"] == 42 and log.job["nprocs"] == 4 and log.job["jobid"] == 7
        assert log.job["run_time"] == pytest.approx(10 - 5e-9)
        assert log.job["metadata"] == {"lib_ver": "x", "h": "a=b;c=d"}
        assert log.exe == "/bin/app -v"
        assert log.mounts == [("/data", "lustre"), ("/", "ext4")]
        assert set(log.modules) == {"POSIX", "DXT_POSIX", "HEATMAP"}
        assert log.modules["POSIX"]["version"] == iolens.module_info("POSIX").version
        assert log.partial == {}


def test_records_frame(synthetic):
    path, src = synthetic
    posix = iolens.module_info("POSIX")
    with iolens.open(path) as log:
        df = log.records("POSIX")
    assert list(df.columns[:3]) == ["id", "rank", "name"]
    assert list(df.columns[3:]) == list(posix.counters + posix.fcounters)
    assert df["id"].dtype == np.uint64 and df["name"].dtype == object
    np.testing.assert_array_equal(df["id"].to_numpy(), src["ids"])
    np.testing.assert_array_equal(df["rank"].to_numpy(), src["ranks"])
    np.testing.assert_array_equal(df[list(posix.counters)].to_numpy(), src["ints"])
    np.testing.assert_array_equal(df[list(posix.fcounters)].to_numpy(), src["flts"])
    assert df["name"].tolist() == src["names"][:-1] + [None]
    # frames outlive the log they came from (the arrays own the decoded memory)
    assert int(df[posix.counters[3]].sum()) == int(src["ints"][:, 3].sum())


def test_absent_module_gives_empty_frame(synthetic):
    path, _ = synthetic
    with iolens.open(path) as log:
        df = log.records("H5D")
        assert len(df) == 0 and "file_rec_id" in df.columns
        assert list(df.columns[-1:]) == [iolens.module_info("H5D").fcounters[-1]]
        assert len(log.dxt("MPIIO")) == 0 and len(log.lustre()) == 0


def test_dxt_frame(synthetic):
    path, src = synthetic
    with iolens.open(path) as log:
        df = log.dxt("POSIX")
        per_rec = log.dxt_records("DXT_POSIX")
    seg = src["seg"]
    assert len(df) == len(seg["offset"])
    np.testing.assert_array_equal(df["offset"].to_numpy(), seg["offset"])
    np.testing.assert_array_equal(df["end"].to_numpy(), seg["end"])
    expect_op, expect_id = [], []
    for i in range(N):
        expect_op += ["write"] * src["wc"][i] + ["read"] * src["rc"][i]
        expect_id += [src["ids"][i]] * (src["wc"][i] + src["rc"][i])
    assert df["op"].astype(str).tolist() == expect_op
    assert df["id"].tolist() == expect_id
    assert set(df["hostname"].astype(str)) <= {"node0", "node1"}
    assert per_rec["write_count"].tolist() == src["wc"].tolist()
    assert per_rec["read_count"].tolist() == src["rc"].tolist()


def test_heatmap_frame(synthetic):
    path, _ = synthetic
    with iolens.open(path) as log:
        hm = log.heatmap("POSIX")
        assert len(log.heatmap("STDIO")) == 0
    assert hm["rank"].tolist() == [0, 0, 0, 1, 1, 1]
    assert hm["bin"].tolist() == [0, 1, 2, 0, 1, 2]
    assert hm["start"].tolist() == [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]
    assert hm["write_bytes"].tolist() == [1, 2, 3, 4, 5, 6]
    assert hm["read_bytes"].tolist() == [0, 0, 9, 0, 0, 10]


def test_bzip2_copy_equals(synthetic, tmp_path):
    path, _ = synthetic
    copy = tmp_path / "b.darshan"
    iolens.write_copy(path, copy, compression="bzip2")
    with iolens.open(path) as a, iolens.open(copy) as b:
        assert b.compression == "bzip2"
        pd.testing.assert_frame_equal(a.records("POSIX"), b.records("POSIX"), check_exact=True)
        pd.testing.assert_frame_equal(a.dxt("POSIX"), b.dxt("POSIX"), check_exact=True)


# ------------------------------------------------------------------ errors
def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(iolens.LogIOError) as exc:
        iolens.open(tmp_path / "nope.darshan")
    assert isinstance(exc.value, OSError) and isinstance(exc.value, iolens.LogError)
    assert exc.value.status < 0 and exc.value.detail


def test_not_a_log(tmp_path):
    p = tmp_path / "junk.darshan"
    p.write_bytes(b"this is not a darshan log at all" * 100)
    with pytest.raises(iolens.LogError) as exc:
        iolens.open(p)
    assert isinstance(exc.value, (iolens.NotALogError, iolens.UnsupportedVersionError))


def test_truncated_log(synthetic, tmp_path):
    path, _ = synthetic
    data = path.read_bytes()
    p = tmp_path / "cut.darshan"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(iolens.CorruptLogError):
        with iolens.open(p) as log:
            log.records("POSIX")
            log.dxt("POSIX")
            log.heatmap()


def test_closed_log_refuses(synthetic):
    path, _ = synthetic
    log = iolens.open(path)
    log.close()
    with pytest.raises(ValueError):
        log.records("POSIX")


def test_writer_aborts_on_exception(tmp_path):
    p = tmp_path / "aborted.darshan"
    with pytest.raises(RuntimeError):
        with iolens.Writer(p) as w:
            w.set_job(nprocs=1)
            raise RuntimeError("boom")
    assert not p.exists()


def test_pydarshan_reads_writer_output(synthetic):
    darshan = pytest.importorskip("darshan", reason="PyDarshan (pip darshan==3.5.0) not installed")
    path, src = synthetic
    with darshan.DarshanReport(str(path), read_all=True) as r:  # closed explicitly (cffi deadlock)
        recs = r.records["POSIX"]._records
        # PyDarshan keeps only named records
        assert [int(x["id"]) for x in recs] == [int(i) for i in src["ids"][:-1]]
        np.testing.assert_array_equal(np.stack([x["counters"] for x in recs]), src["ints"][:-1])
        assert r.metadata["exe"] == "/bin/app -v"


def test_records_columns_subset(synthetic):
    path, src = synthetic
    posix = iolens.module_info("POSIX")
    wanted = [posix.counters[4], posix.fcounters[2]]
    with iolens.open(path) as log:
        df = log.records("POSIX", columns=wanted)
        with pytest.raises(KeyError):
            log.records("POSIX", columns=["NOT_A_COUNTER"])
    assert list(df.columns) == ["id", "rank", "name"] + wanted
    np.testing.assert_array_equal(df[wanted[0]].to_numpy(), src["ints"][:, 4])
    np.testing.assert_array_equal(df[wanted[1]].to_numpy(), src["flts"][:, 2])
