"""PnetCDF under the MPI runtime (runtime spec 1.2, 2.5): w09_pnetcdf on 4 processes
against upstream's golden log, a program of our own that makes every kind of data
call on one process with exact counters, and the lazy resolution (PnetCDF is never
linked; the wrappers cover every data call the library has).  Debian's libpnetcdf
is built for Open MPI only, so these run with Open MPI only."""
import re
import subprocess

import pytest

from mpi_helpers import one_log
from test_mpi_golden import allow_file, build_workload, compare  # noqa: F401  (fixture)

iolens = pytest.importorskip("iolens")
LIBPNETCDF = "/usr/lib/x86_64-linux-gnu/libpnetcdf.so"
DATA_CALL = re.compile(r"^ncmpi_(put|get|iput|iget|bput)_var")


@pytest.fixture
def pnetcdf_mpi(mpi):
    if mpi.name != "openmpi":
        pytest.skip("Debian's libpnetcdf is built for Open MPI only")
    r = subprocess.run(["readelf", "-d", LIBPNETCDF], capture_output=True, text=True)
    if r.returncode != 0 or "libmpi.so" not in r.stdout:
        pytest.skip(f"no PnetCDF for Open MPI at {LIBPNETCDF} (libpnetcdf-dev)")
    return mpi


def exported(lib):
    r = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return {line.split()[-1] for line in r.stdout.splitlines() if " T " in line}


def test_w09_matches_golden(pnetcdf_mpi, shared, allow_file, tmp_path):  # noqa: F811
    pytest.importorskip("darshan")
    (tmp_path / "bin").mkdir()
    exe = build_workload(pnetcdf_mpi, shared, "w09_pnetcdf", tmp_path / "bin")
    work, logdir = tmp_path / "w09", tmp_path / "logs"
    work.mkdir()
    pnetcdf_mpi.run([exe, work], logdir)
    log = one_log(logdir)
    r = compare(shared, log, shared / "golden" / "runtime" / "w09_pnetcdf.darshan", allow_file)
    assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
    with iolens.open(log) as lg:
        assert {"PNETCDF_FILE", "PNETCDF_VAR", "MPI-IO", "POSIX"} <= set(lg.modules)
        check_report(lg, work)


def check_report(lg, work):
    """The job report's PnetCDF parts for w09: the interface in the cost and operation
    figures' data, and one row per variable with its shape and traffic."""
    from iolens.report import stats, tables
    from iolens.report.source import ReportData
    data = ReportData(lg)
    assert "PnetCDF" in stats.op_counts(data) and "PnetCDF" in stats.cost(data).index
    rows = {r[1]: r for r in tables.datasets(data).rows}
    temp = rows[f"{work}/fields.nc:temperature"]
    assert temp[0] == "PnetCDF" and temp[3] == "2-D, 12800 elements" and temp[4] == "4 B"
    assert temp[6:8] == ["50.00 KiB", "50.00 KiB"]
    layers = lg.layers(f"{work}/fields.nc")
    assert list(dict.fromkeys(layers["layer"])) == ["PNETCDF_VAR", "PNETCDF_FILE", "MPI-IO",
                                                    "POSIX"]


@pytest.fixture
def kinds(pnetcdf_mpi, progs_dir, tmp_path):
    """nc_kinds.c on one process: its stdout and its log's PnetCDF records."""
    exe = pnetcdf_mpi.compile(progs_dir / "nc_kinds.c", tmp_path / "nc_kinds", extra=["-lpnetcdf"])
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = pnetcdf_mpi.run([exe, work], logdir, nprocs=1, env={"LD_BIND_NOW": "1"})
    with iolens.open(one_log(logdir)) as lg:
        f, v = lg.records("PNETCDF_FILE"), lg.records("PNETCDF_VAR")
    return r.stdout, f, v.set_index("name"), str(work / "kinds.nc")


def test_file_counters(kinds):
    out, f, _, path = kinds
    assert list(f["name"]) == [path]
    rec = f.iloc[0]
    exact = {"CREATES": 1, "OPENS": 1, "REDEFS": 1, "SYNCS": 1,
             # wait_all of three requests; ncmpi_wait of one; the wait of a request id
             # never posted fails (counted, and timed like the others)
             "COLL_WAITS": 1, "INDEP_WAITS": 1, "WAIT_FAILURES": 1}
    assert {k: rec["PNETCDF_FILE_" + k] for k in exact} == exact
    assert int(re.search(r"waitfail (-?\d+)", out).group(1)) < 0
    # bytes: what ncmpi_inq_put_size/get_size said just before each close, summed
    sizes = [tuple(map(int, m)) for m in re.findall(r"sizes (\d+) (\d+)", out)]
    assert len(sizes) == 2
    assert rec["PNETCDF_FILE_BYTES_WRITTEN"] == sum(p for p, _ in sizes) > 0
    assert rec["PNETCDF_FILE_BYTES_READ"] == sum(g for _, g in sizes) > 0
    t = {k: rec["PNETCDF_FILE_F_" + k] for k in (
        "OPEN_START_TIMESTAMP", "OPEN_END_TIMESTAMP", "WAIT_START_TIMESTAMP",
        "WAIT_END_TIMESTAMP", "CLOSE_START_TIMESTAMP", "CLOSE_END_TIMESTAMP")}
    assert 0 < t["OPEN_START_TIMESTAMP"] < t["WAIT_START_TIMESTAMP"] < t["CLOSE_START_TIMESTAMP"]
    assert t["WAIT_END_TIMESTAMP"] < t["CLOSE_END_TIMESTAMP"] and t["OPEN_END_TIMESTAMP"] > 0
    assert rec["PNETCDF_FILE_F_WAIT_TIME"] > 0 and rec["PNETCDF_FILE_F_META_TIME"] > 0


def slots(row):
    """The shown access tuples: (bytes, LEN_D1..D5, STRIDE_D1..D5) -> count."""
    out = []
    for k in range(1, 5):
        p = f"PNETCDF_VAR_ACCESS{k}_"
        tup = (row[p + "ACCESS"],) + tuple(row[f"{p}LENGTH_D{d}"] for d in range(1, 6)) + \
            tuple(row[f"{p}STRIDE_D{d}"] for d in range(1, 6))
        out.append((tup, row[f"PNETCDF_VAR_ACCESS{k}_COUNT"]))
    return out


def test_every_kind_exact(kinds):
    _, f, v, path = kinds
    assert set(v.index) == {path + ":rec", path + ":fixed", path + ":scal"}
    assert (v["file_rec_id"] == f["id"].iloc[0]).all()
    fixed = v.loc[path + ":fixed"]
    c = {k[len("PNETCDF_VAR_"):]: fixed[k] for k in fixed.index if k.startswith("PNETCDF_VAR_")
         and not k.startswith("PNETCDF_VAR_F_")}
    # "fixed": int [x=4][y=6] in a file whose record dimension ends with 3 records
    kinds_done = {"PUT_VAR", "PUT_VAR1", "PUT_VARS", "PUT_VARM", "PUT_VARN", "PUT_VARD",
                  "GET_VAR", "GET_VAR1", "GET_VARA", "GET_VARS", "GET_VARM", "GET_VARN",
                  "GET_VARD", "IPUT_VARA", "BPUT_VAR1", "IGET_VARS", "IGET_VAR1"}
    kind_counters = {k for k in c if re.fullmatch(r"(I?PUT|I?GET|BPUT)_VAR[1ASMND]?", k)}
    assert len(kind_counters) == 32               # 7 put, 7 get, 6 iput, 6 iget, 6 bput
    assert {k for k in kind_counters if c[k]} == kinds_done
    assert all(c[k] == 1 for k in kinds_done)
    expect = {"OPENS": 2,                          # def_var, then inq_varid after reopening
              "INDEP_WRITES": 1, "COLL_WRITES": 5, "INDEP_READS": 2, "COLL_READS": 5,
              "NB_WRITES": 2, "NB_READS": 2, "RW_SWITCHES": 3,
              "NDIMS": 2, "NPOINTS": 24, "DATATYPE_SIZE": 4, "IS_RECORD_VAR": 0,
              # writes: var 24 points x 3 records (the file's record dimension counts
              # even for a fixed-size variable) x 4 = 288; var1 4; vars 2x3 = 24;
              # varm 2x2 = 16; varn 2+1 elements = 12; vard: the file type's 24
              # bytes as they are; iput_vara 1x5 = 20; bput_var1 4
              "BYTES_WRITTEN": 288 + 4 + 24 + 16 + 12 + 24 + 20 + 4,
              # reads: vara 1x6 = 24; var1 4; vars 2x2 = 16; varm 4; varn with NULL
              # counts = 2 elements = 8; vard 24; var 288; iget_vars 1x3 = 12; iget_var1 4
              "BYTES_READ": 24 + 4 + 16 + 4 + 8 + 24 + 288 + 12 + 4,
              "SIZE_WRITE_AGG_0_100": 7, "SIZE_WRITE_AGG_100_1K": 1,
              "SIZE_READ_AGG_0_100": 8, "SIZE_READ_AGG_100_1K": 1}
    assert {k: c[k] for k in expect} == expect
    z5 = (0,) * 5
    assert slots(fixed) == [
        ((4,) + z5 + z5, 4),                                   # var1 x2, bput_var1, iget_var1
        ((288,) + z5 + z5, 2),                                 # var: size only
        ((24,) + z5 + z5, 2),                                  # vard: size only
        ((16, 2, 2, 0, 0, 0, 1, 1, 0, 0, 0), 2)]               # varm/vars, NULL stride -> 1
    assert fixed["PNETCDF_VAR_F_CLOSE_START_TIMESTAMP"] == 0   # never set for variables
    assert fixed["PNETCDF_VAR_F_CLOSE_END_TIMESTAMP"] == 0
    assert 0 < fixed["PNETCDF_VAR_F_WRITE_START_TIMESTAMP"] < fixed["PNETCDF_VAR_F_READ_START_TIMESTAMP"]

    rec = v.loc[path + ":rec"]                                 # double [rec][y=6]
    assert (rec["PNETCDF_VAR_IS_RECORD_VAR"], rec["PNETCDF_VAR_NPOINTS"],
            rec["PNETCDF_VAR_NDIMS"], rec["PNETCDF_VAR_DATATYPE_SIZE"]) == (1, 6, 2, 8)
    # put_vara of 3 records; get_var = NPOINTS x 3 records x 8
    assert (rec["PNETCDF_VAR_BYTES_WRITTEN"], rec["PNETCDF_VAR_BYTES_READ"]) == (144, 144)
    assert {t for t, n in slots(rec) if n} == {(144, 3, 6) + (0,) * 8, (144,) + z5 + z5}

    scal = v.loc[path + ":scal"]                               # a short scalar
    assert (scal["PNETCDF_VAR_NDIMS"], scal["PNETCDF_VAR_NPOINTS"],
            scal["PNETCDF_VAR_BYTES_WRITTEN"], scal["PNETCDF_VAR_PUT_VARA"]) == (0, 1, 2, 1)


def test_pnetcdf_resolved_lazily(pnetcdf_mpi, progs_dir, tmp_path):
    """The runtime does not link PnetCDF, a program without it never loads it and
    writes no PnetCDF region, and the static archives carry no PnetCDF wrapper."""
    rt = pnetcdf_mpi.runtime
    needed = subprocess.run(["readelf", "-d", str(rt)], capture_output=True, text=True).stdout
    assert "pnetcdf" not in needed
    exe = pnetcdf_mpi.compile(progs_dir / "mpiprobe.c", tmp_path / "mpiprobe")
    logdir = tmp_path / "logs"
    pnetcdf_mpi.run([exe, "basic", tmp_path], logdir, nprocs=2, env={"LD_BIND_NOW": "1"})
    with iolens.open(one_log(logdir)) as lg:
        assert "MPI-IO" in lg.modules
        assert not {"PNETCDF_FILE", "PNETCDF_VAR"} & set(lg.modules)
    for archive in rt.parent.glob("libiolens-mpi*.a"):
        r = subprocess.run(["nm", "--defined-only", str(archive)], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0 and " T ncmpi_" not in r.stdout, archive


def test_every_data_call_is_wrapped(pnetcdf_mpi):
    """Spec 1.2's data calls: the wrappers and the library's functions are the same set."""
    ours = {s for s in exported(pnetcdf_mpi.runtime) if s.startswith("ncmpi_")}
    lib = exported(LIBPNETCDF)
    assert {s for s in lib if DATA_CALL.match(s)} == {s for s in ours if DATA_CALL.match(s)}
    assert len({s for s in ours if DATA_CALL.match(s)}) == 550
    file_level = {"ncmpi_create", "ncmpi_open", "ncmpi_close", "ncmpi_enddef", "ncmpi_redef",
                  "ncmpi_wait", "ncmpi_wait_all", "ncmpi_sync", "ncmpi_def_var", "ncmpi_inq_varid"}
    assert ours - {s for s in ours if DATA_CALL.match(s)} == file_level
