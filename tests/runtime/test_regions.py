"""Regions (issue 33, docs/regions.md): the annotation API of include/iolens/annotate.h
and the REGION module.  The program under test is progs/region_probe.c (its modes
say what each region does); every check compares a region's I/O with the POSIX
counters of the files it touched, read back with our own reader."""
import os
import subprocess
from pathlib import Path

import pytest

from rt_helpers import REPO, logs_in, run_under

iolens = pytest.importorskip("iolens")


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("regions") / "region_probe"
    r = subprocess.run(["cc", "-O1", "-g", "-pthread", f"-I{REPO / 'include'}", "-o", str(exe),
                        str(REPO / "tests" / "runtime" / "progs" / "region_probe.c")],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"no C compiler for the region probe: {r.stderr[-300:]}")
    return exe


def run_mode(runtime, probe, tmp_path, mode, env=None):
    """Run one mode under the runtime; the logs (one per process)."""
    data, logdir = tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    run_under(runtime, [probe, data, mode], logdir, extra_env=env)
    return logs_in(logdir)


def regions_of(log):
    """{region name: its REGION record as a dict}."""
    with iolens.open(log) as lg:
        return {r["name"]: r for r in lg.records("REGION").to_dict("records")}


def posix_totals(log):
    with iolens.open(log) as lg:
        df = lg.records("POSIX")
    return {k: int(df[f"POSIX_{k}"].sum()) for k in ("BYTES_READ", "BYTES_WRITTEN")} | {
        "DATA_OPS": int((df.POSIX_READS + df.POSIX_WRITES).sum())}


def region_totals(regs):
    return {k: sum(int(r[f"REGION_POSIX_{k}"]) for r in regs.values())
            for k in ("BYTES_READ", "BYTES_WRITTEN", "DATA_OPS")}


def test_runs_without_the_runtime(probe, tmp_path):
    """The weak references: the annotated program links and runs with no iolens."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([str(probe), str(tmp_path), "nest"], env=env, capture_output=True)
    assert r.returncode == 0, r.stderr


def test_nesting(runtime, probe, tmp_path):
    """Only the innermost region counts an operation; an end naming another region is
    counted on the region left open and ignored; a region that did no I/O still has its
    record; the regions' I/O equals the file's, since all of it ran inside some region."""
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    regs = regions_of(log)
    outer, inner = regs["outer"], regs["inner"]
    assert outer["REGION_COUNT"] == 2 and inner["REGION_COUNT"] == 1
    assert inner["REGION_POSIX_BYTES_WRITTEN"] == 20 and inner["REGION_POSIX_BYTES_READ"] == 10
    assert inner["REGION_POSIX_DATA_OPS"] == 3 and inner["REGION_POSIX_META_OPS"] == 0
    assert outer["REGION_POSIX_BYTES_WRITTEN"] == 1100 and outer["REGION_POSIX_DATA_OPS"] == 2
    assert outer["REGION_POSIX_META_OPS"] == 2                     # open, close
    assert inner["REGION_UNMATCHED_ENDS"] == 1 and "nope" not in regs
    assert 0 < inner["REGION_F_TOTAL_TIME"] <= outer["REGION_F_TOTAL_TIME"]
    assert outer["REGION_F_MAX_TIME"] <= outer["REGION_F_TOTAL_TIME"]
    assert outer["REGION_F_START_TIMESTAMP"] <= inner["REGION_F_START_TIMESTAMP"]
    assert region_totals(regs) == posix_totals(log)


def test_threads(runtime, probe, tmp_path):
    """Each thread's I/O counts in its own innermost region, not in the main thread's."""
    [log] = run_mode(runtime, probe, tmp_path, "threads")
    regs = regions_of(log)
    for t in range(4):
        r = regs[f"thread{t}"]
        assert r["REGION_COUNT"] == 1
        assert r["REGION_POSIX_DATA_OPS"] == (t + 1) * 3
        assert r["REGION_POSIX_BYTES_WRITTEN"] == (t + 1) * 3 * 64
    assert regs["main"]["REGION_POSIX_BYTES_WRITTEN"] == 1
    assert region_totals(regs) == posix_totals(log)


def test_fork_child_inherits_the_stack(runtime, probe, tmp_path):
    """The child continues inside the forking thread's regions (its log counts them
    from its own start) and opens its own inside them."""
    logs = run_mode(runtime, probe, tmp_path, "fork")
    assert len(logs) == 2
    by_proc = {}
    for log in logs:
        regs = regions_of(log)
        by_proc["child" if "child" in regs else "parent"] = (log, regs)
    plog, parent = by_proc["parent"]
    clog, child = by_proc["child"]
    assert parent["parent"]["REGION_POSIX_BYTES_WRITTEN"] == 5
    assert parent["parent"]["REGION_COUNT"] == 1
    assert child["parent"]["REGION_POSIX_BYTES_WRITTEN"] == 7
    assert child["parent"]["REGION_COUNT"] == 1
    assert child["child"]["REGION_POSIX_BYTES_WRITTEN"] == 9
    for log, regs in (by_proc["parent"], by_proc["child"]):
        assert region_totals(regs) == posix_totals(log)


def test_signal_handler_io_counts_in_the_interrupted_region(runtime, probe, tmp_path):
    [log] = run_mode(runtime, probe, tmp_path, "signal")
    regs = regions_of(log)
    assert regs["work"]["REGION_POSIX_BYTES_WRITTEN"] == 3
    assert regs["work"]["REGION_COUNT"] == 1


def test_open_at_exit_and_base_region(runtime, probe, tmp_path):
    """A region still open at exit is counted apart (OPEN_AT_END), with its time up to
    the shutdown; IOLENS_REGION names the region of everything else."""
    [log] = run_mode(runtime, probe, tmp_path, "open", env={"IOLENS_REGION": "job step 1"})
    regs = regions_of(log)
    left = regs["left open"]
    assert left["REGION_COUNT"] == 0 and left["REGION_OPEN_AT_END"] == 1
    assert left["REGION_POSIX_BYTES_WRITTEN"] == 4 and left["REGION_F_TOTAL_TIME"] > 0
    base = regs["job step 1"]
    assert base["REGION_OPEN_AT_END"] == 1 and base["REGION_POSIX_BYTES_WRITTEN"] == 0


def test_base_region_takes_unannotated_io(runtime, probe, tmp_path):
    [log] = run_mode(runtime, probe, tmp_path, "none", env={"IOLENS_REGION": "step"})
    regs = regions_of(log)
    assert set(regs) == {"step"}
    assert regs["step"]["REGION_POSIX_BYTES_WRITTEN"] == 8
    assert region_totals(regs) == posix_totals(log)


def test_no_region_no_records(runtime, probe, tmp_path):
    [log] = run_mode(runtime, probe, tmp_path, "none")
    with iolens.open(log) as lg:
        assert "REGION" not in lg.modules
        assert lg.regions().empty


def test_regions_frame(runtime, probe, tmp_path):
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    with iolens.open(log) as lg:
        df = lg.regions()
    assert set(df.layer) == {"POSIX", "STDIO", "MPI-IO", "HDF5", "PNETCDF"}
    inner = df[(df.region == "inner") & (df.layer == "POSIX")].iloc[0]
    assert inner.bytes_written == 20 and inner.data_ops == 3 and inner["count"] == 1


def test_fortran_bindings(runtime, tmp_path):
    """include/iolens/iolens_regions.f90: the same regions from Fortran, with the
    runtime and without it (the module finds the functions with dlsym)."""
    import shutil
    if not shutil.which("gfortran"):
        pytest.skip("gfortran not installed")
    exe = tmp_path / "probe_f"
    r = subprocess.run(["gfortran", f"-J{tmp_path}", "-o", str(exe),
                        str(REPO / "include" / "iolens" / "iolens_regions.f90"),
                        str(REPO / "tests" / "runtime" / "progs" / "region_probe.f90")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    assert subprocess.run([str(exe), str(tmp_path)], env=env).returncode == 0
    data = tmp_path / "data"
    data.mkdir()
    run_under(runtime, [exe, data], tmp_path / "logs")
    [log] = logs_in(tmp_path / "logs")
    regs = regions_of(log)
    assert set(regs) == {"fortran step"}      # trailing blanks dropped
    assert regs["fortran step"]["REGION_COUNT"] == 1
    assert regs["fortran step"]["REGION_POSIX_BYTES_WRITTEN"] == 100


def test_sigkill_recover(runtime, tool, probe, tmp_path):
    """The REGION records live in the safety copy like every other module's: after a
    SIGKILL, `iolens recover` gives the ended region's run and the I/O of both the
    ended and the still-open region (whose run itself was never ended)."""
    shm, logs, data = tmp_path / "shm", tmp_path / "logs", tmp_path / "data"
    for d in (shm, logs, data):
        d.mkdir()
    r = run_under(runtime, [probe, data, "kill"], logs, check=False,
                  extra_env={"DARSHAN_MMAP_LOGPATH": str(shm)})
    assert r.returncode == -9
    assert logs_in(logs) == []
    copies = list(shm.glob("*_mmap-log-*.darshan"))
    assert len(copies) == 1
    rec = subprocess.run([str(tool), "recover", "--logdir", str(logs), str(copies[0])],
                         capture_output=True, text=True)
    assert rec.returncode == 0, rec.stderr
    [log] = logs_in(logs)
    regs = regions_of(log)
    assert regs["before"]["REGION_COUNT"] == 1 and regs["before"]["REGION_POSIX_BYTES_WRITTEN"] == 6
    assert regs["dying"]["REGION_COUNT"] == 0 and regs["dying"]["REGION_POSIX_BYTES_WRITTEN"] == 2
    assert region_totals(regs) == posix_totals(log)


def darshan_parser():
    for p in (os.environ.get("IOLENS_DARSHAN_PARSER"), "/opt/upstream-3.5.0/bin/darshan-parser"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def test_upstream_parser_reads_the_rest(runtime, probe, tmp_path):
    """darshan-parser 3.5.0 reads a region log as one without REGION (which is not in
    the header's module map), printing our iolens_ext key among the metadata lines."""
    parser = darshan_parser()
    if parser is None:
        pytest.skip("upstream darshan-parser not found (/opt/upstream-3.5.0/bin, "
                    "IOLENS_DARSHAN_PARSER)")
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    r = subprocess.run([parser, str(log)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "module id 41" not in r.stderr and "iolens_ext" in r.stdout
    assert "POSIX_BYTES_WRITTEN\t1120" in r.stdout


def test_pydarshan_reads_the_rest(runtime, probe, tmp_path):
    """PyDarshan 3.5.0 opens a region log (REGION is not in the header's module map)
    and reads its POSIX records; it sees our iolens_ext key as a metadata line."""
    darshan = pytest.importorskip("darshan")
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    rep = darshan.DarshanReport(str(log), read_all=True)
    assert len(rep.records["POSIX"]) == 1
    assert "REGION" not in rep.modules
    assert rep.metadata["job"]["metadata"]["iolens_ext"].startswith("41:1:")


def header_slot(log, module):
    """(offset, length) of `module` in the raw 3.41 header's module map."""
    raw = Path(log).read_bytes()[48 + 16 * module:48 + 16 * module + 16]
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")


def test_region_module_outside_the_header_map(runtime, probe, tmp_path):
    """The header's map has no slot 41; our reader still lists REGION, and `iolens
    parse` prints its records and no iolens_ext metadata line."""
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    assert header_slot(log, 41) == (0, 0)
    with iolens.open(log) as lg:
        assert "REGION" in lg.modules and "iolens_ext" not in lg.metadata_text
    out = subprocess.run([os.environ.get("IOLENS_BIN", "iolens"), "parse", str(log)],
                         capture_output=True, text=True, check=True).stdout
    assert "\nREGION\t" in out and "iolens_ext" not in out


@pytest.mark.parametrize("verb", ["convert", "merge"])
def test_rewriting_keeps_the_regions(runtime, probe, tmp_path, verb):
    """convert and merge write through the library writer: REGION survives them,
    still outside the header's map."""
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    out = tmp_path / "out.darshan"
    args = [str(log), str(out)] if verb == "convert" else ["-o", str(out), str(log)]
    subprocess.run([os.environ.get("IOLENS_BIN", "iolens"), verb, *args], check=True,
                   capture_output=True)
    assert header_slot(out, 41) == (0, 0)
    assert regions_of(out) == regions_of(log)


def uncompressed_copy(runtime, probe, tmp_path):
    """A region log rewritten without compression, so that its metadata can be edited."""
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    out = tmp_path / "plain.darshan"
    subprocess.run([os.environ.get("IOLENS_BIN", "iolens"), "convert", "--none", str(log),
                    str(out)], check=True, capture_output=True)
    return out


@pytest.mark.parametrize("entry, message", [
    ("41:1:0:{len}:0", "overlaps"),                       # onto the name region
    ("41:1:99999999:{len}:0", "outside the file"),
    ("41:0:{off}:{len}:0", "out of range"),               # version 0
    ("41:1:{off}:{len}:7", "out of range"),               # partial not 0/1
    ("7:1:{off}:{len}:0", "out of range"),                # an upstream id
    ("41:1:{off}:{len}:0,41:1:{off}:{len}:0", "named twice"),
    ("41:1:{off}", "is not id:version"),
    ("41:1:{off}:99999999999999999999999:0", "is not id:version"),
    ("41:1:{off}:{len}:0,42:1:{off}:{len}:0", "overlaps"),     # DXT_REGION onto REGION
])
def test_hostile_extension_keys_are_refused(runtime, probe, tmp_path, entry, message):
    """The reader checks what the iolens_ext key claims: a clear error, never a crash."""
    log = uncompressed_copy(runtime, probe, tmp_path)
    raw = bytearray(log.read_bytes())
    at = raw.index(b"iolens_ext=") + len(b"iolens_ext=")
    end = raw.index(b"\n", at)
    off, length = raw[at:end].decode().split(":")[2:4]
    bad = entry.format(off=off, len=length).encode()
    raw[at:end] = bad
    hacked = tmp_path / "hacked.darshan"
    # the job region is uncompressed: its length is fixed, so pad or cut after the line
    md_end = raw.index(b"\0", at)
    delta = len(bad) - (end - at)
    if delta > 0:
        del raw[md_end:md_end + delta]
    else:
        raw[md_end:md_end] = bytes(-delta)
    hacked.write_bytes(bytes(raw))
    with pytest.raises(iolens.LogError, match=message):
        with iolens.open(hacked) as lg:
            lg.records("REGION")


def test_mpi_ranks_reduce_by_the_table(tmp_path):
    """A region every rank ran becomes one shared record (rank -1) whose counters
    combine as region.def says (sums, the maximum of the longest run); a region of
    one rank stays that rank's."""
    import shutil
    rt = os.environ.get("IOLENS_MPI_RUNTIME_OPENMPI") or str(REPO / "build" / "src" / "runtime"
                                                             / "libiolens-mpi.so")
    if not (shutil.which("mpicc") and shutil.which("mpirun") and Path(rt).exists()):
        pytest.skip("needs mpicc, mpirun and the Open MPI runtime (IOLENS_MPI_RUNTIME_OPENMPI)")
    exe, data, logs = tmp_path / "region_mpi", tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    logs.mkdir()
    r = subprocess.run(["mpicc", f"-I{REPO / 'include'}", "-o", str(exe),
                        str(REPO / "tests" / "runtime" / "progs" / "region_mpi.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               DARSHAN_LOGPATH=str(logs), LD_PRELOAD=rt, DXT_ENABLE_IO_TRACE="1")
    r = subprocess.run(["mpirun", "-np", "2", "-x", "LD_PRELOAD", "-x", "DARSHAN_LOGPATH",
                        "-x", "DXT_ENABLE_IO_TRACE", str(exe), str(data)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    [log] = logs_in(logs)
    assert header_slot(log, 41) == (0, 0)      # the MPI writer keeps REGION out of the map
    with iolens.open(log) as lg:
        recs = {(x["name"], x["rank"]): x for x in lg.records("REGION").to_dict("records")}
    step = recs[("step", -1)]
    assert step["REGION_COUNT"] == 2 and step["REGION_POSIX_BYTES_WRITTEN"] == 4 + 8
    assert step["REGION_F_MAX_TIME"] <= step["REGION_F_TOTAL_TIME"]
    assert recs[("only one", 1)]["REGION_COUNT"] == 1
    # each rank's traced write carries its region (DXT_REGION records of every rank)
    with iolens.open(log) as lg:
        dxt = lg.dxt()
    writes = dxt[dxt["name"].astype(str).str.contains("mpi_")]
    assert sorted(writes["rank"]) == [0, 1] and (writes["region"] == "step").all()


def test_bounded_records_set_the_partial_flag(runtime, probe, tmp_path):
    """MAX_RECORDS bounds the REGION records like any module's; names beyond find no
    record and the module's partial flag says so."""
    cfg = tmp_path / "iolens.conf"
    cfg.write_text("MAX_RECORDS 2 REGION\n")
    [log] = run_mode(runtime, probe, tmp_path, "threads", env={"DARSHAN_CONFIG_PATH": str(cfg)})
    with iolens.open(log) as lg:
        assert len(lg.records("REGION")) == 2
        assert lg.partial == {"REGION": True}


def test_parse_prints_region_records(runtime, tool, probe, tmp_path):
    """`iolens parse` prints the REGION records with the region's name where other
    modules print a path."""
    [log] = run_mode(runtime, probe, tmp_path, "nest")
    r = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rid = iolens.record_id("inner")
    assert "# REGION module data" in r.stdout
    assert f"REGION\t0\t{rid}\tREGION_COUNT\t1\tinner\t" in r.stdout
    assert f"REGION\t0\t{rid}\tREGION_POSIX_BYTES_WRITTEN\t20\tinner\t" in r.stdout


def test_threads_sharing_one_region_lose_nothing(runtime, probe, tmp_path):
    """Eight threads updating one region's record at once: every operation counted."""
    [log] = run_mode(runtime, probe, tmp_path, "contend")
    regs = regions_of(log)
    shared = regs["shared"]
    assert shared["REGION_COUNT"] == 8
    assert shared["REGION_POSIX_DATA_OPS"] == 16000 and shared["REGION_POSIX_BYTES_WRITTEN"] == 16000
    assert region_totals(regs) == posix_totals(log)
