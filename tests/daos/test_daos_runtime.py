"""The DFS and DAOS runtime modules (docs/daos.md) through the DAOS emulation
(tests/daos_emu): progs/daos_calls.c makes every call group a known number of times
and checks each call's result, so a run under the runtime that exits 0 also shows
that results and errno reached the program unchanged.  The log's counters are
checked against what the program did; then the same logs are read by PyDarshan
3.5.0 and darshan-parser 3.5.0; a SIGKILLed run is recovered; an MPI run reduces a
shared DFS record; and, when upstream 3.5.0 built with its DAOS modules is
installed, the same programs run under it and every integer counter that does not
depend on timing must agree."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "runtime"))
sys.path.insert(0, str(REPO / "tests" / "mpi"))
from rt_helpers import find_runtime, find_tool, logs_in, run_under  # noqa: E402

iolens = pytest.importorskip("iolens")

UPSTREAM_DAOS = Path("/opt/upstream-3.5.0-daos/lib/libdarshan.so")
UPSTREAM_PARSER = Path("/opt/upstream-3.5.0/bin/darshan-parser")
TIMING = ("_FASTEST_RANK", "_FASTEST_RANK_BYTES", "_SLOWEST_RANK", "_SLOWEST_RANK_BYTES",
          "_MAX_READ_TIME_SIZE", "_MAX_WRITE_TIME_SIZE")


def emulation():
    """The emulation libraries' directory in the runtime's build tree, or skip."""
    rt = find_runtime()
    if rt is None:
        pytest.skip("libiolens.so not built (set IOLENS_RUNTIME or build into build/)")
    lib = rt.parent.parent.parent / "tests" / "daos_emu"
    if not (lib / "libdfs.so").exists():
        pytest.skip(f"the DAOS emulation is not built beside {rt} (target iolens_emu_dfs)")
    return rt, lib


def compile_calls(out, cc="cc", defines=()):
    rt, lib = emulation()
    if not shutil.which(cc):
        pytest.skip(f"{cc} not found")
    r = subprocess.run([cc, "-O1", "-g", *defines, f"-I{REPO / 'tests' / 'daos_emu' / 'include'}",
                        str(HERE / "progs" / "daos_calls.c"), "-o", str(out), f"-L{lib}", "-ldfs",
                        "-ldaos", "-lgurt", "-luuid", "-lpthread", f"-Wl,-rpath,{lib}"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    return compile_calls(tmp_path_factory.mktemp("daos_calls") / "daos_calls")


def emu_root(tmp_path, name="emu"):
    root = tmp_path / name
    (root / "pool0").mkdir(parents=True)
    return root


def run_mode(runtime, calls, tmp_path, mode, extra_env=None, check=True):
    """(log directory, emulation root) of one run of `mode` under `runtime`."""
    root, logs = emu_root(tmp_path, f"emu-{mode}"), tmp_path / f"logs-{mode}"
    run_under(runtime, [calls, root, mode], logs, extra_env, check=check)
    return logs, root


def records(log, module):
    """{key: row} of a module's records (our reader): DFS by name, DAOS by object id."""
    with iolens.open(log) as lg:
        df = lg.records(module)
    rows = df.to_dict("records")
    if module == "DAOS":
        return {(int(r["oid_hi"]), int(r["oid_lo"])): r for r in rows}
    return {r["name"]: r for r in rows}


def one_log(logdir):
    logs = logs_in(logdir)
    assert len(logs) == 1, logs
    return logs[0]


def uuid_of(path):
    return path.read_text().strip()


def assert_times_ordered(r, mod, kinds):
    """Each kind's first start <= its last end, all within the run, opens first."""
    f = lambda k: r[f"{mod}_F_{k}_TIMESTAMP"]  # noqa: E731
    for k in kinds:
        assert 0 < f(f"{k}_START") <= f(f"{k}_END"), (k, r)
    for k in kinds[1:]:
        assert f("OPEN_START") <= f(f"{k}_START"), (k, r)


def test_no_daos_dependency(tmp_path):
    """The runtime needs no DAOS library: no DAOS symbol is undefined in it, and a
    program without DAOS starts under LD_BIND_NOW=1 and has no DFS/DAOS region."""
    rt = find_runtime()
    if rt is None or not shutil.which("nm"):
        pytest.skip("libiolens.so not built, or no nm")
    undef = subprocess.run(["nm", "-D", "--undefined-only", str(rt)], capture_output=True,
                           text=True).stdout.split()
    assert not [s for s in undef if s.startswith(("dfs_", "daos_", "d_"))]
    run_under(rt, ["sh", "-c", f"echo x > {tmp_path / 'f'}"], tmp_path / "logs",
              {"LD_BIND_NOW": "1"})
    with iolens.open(one_log(tmp_path / "logs")) as lg:
        assert "DFS" not in lg.modules and "DAOS" not in lg.modules


def test_dfs_counters(calls, tmp_path):
    rt, _ = emulation()
    logs, root = run_mode(rt, calls, tmp_path, "dfs")
    recs = records(one_log(logs), "DFS")
    # the root ("/": lookups only) is left out as upstream leaves it
    assert set(recs) == {"/data", "/gone"}
    d = recs["/data"]
    want = {"DFS_OPENS": 1, "DFS_LOOKUPS": 2, "DFS_DUPS": 1, "DFS_GLOBAL_OPENS": 0,
            "DFS_READS": 2, "DFS_READXS": 1, "DFS_WRITES": 3, "DFS_WRITEXS": 1,
            "DFS_NB_READS": 0, "DFS_NB_WRITES": 0, "DFS_GET_SIZES": 2, "DFS_PUNCHES": 1,
            "DFS_REMOVES": 0, "DFS_STATS": 2 + 1,   # ostat + osetattr, then none more; not dfs_stat
            "DFS_BYTES_READ": 2 * 500 + 20, "DFS_BYTES_WRITTEN": 3 * 1000 + 20,
            "DFS_RW_SWITCHES": 3, "DFS_SIZE_READ_0_100": 1, "DFS_SIZE_READ_100_1K": 2,
            "DFS_SIZE_WRITE_0_100": 1, "DFS_SIZE_WRITE_100_1K": 3,
            "DFS_ACCESS1_ACCESS": 1000, "DFS_ACCESS1_COUNT": 3, "DFS_ACCESS2_ACCESS": 500,
            "DFS_ACCESS2_COUNT": 2, "DFS_ACCESS3_ACCESS": 20, "DFS_ACCESS3_COUNT": 2,
            "DFS_CHUNK_SIZE": 1 << 20}
    assert {k: d[k] for k in want} == want
    g = recs["/gone"]
    assert (g["DFS_OPENS"], g["DFS_WRITES"], g["DFS_BYTES_WRITTEN"], g["DFS_REMOVES"]) == (1, 1, 100, 1)
    assert_times_ordered(d, "DFS", ["OPEN", "WRITE", "READ", "CLOSE"])
    assert d["DFS_F_WRITE_START_TIMESTAMP"] < d["DFS_F_READ_START_TIMESTAMP"]   # writes came first
    assert d["DFS_F_META_TIME"] > 0 and d["DFS_F_WRITE_TIME"] > 0 and d["DFS_F_READ_TIME"] > 0
    # the mount table entry: the pool and container the program mounted
    assert d["pool"] == uuid_of(root / "pool0" / ".uuid")
    assert d["container"] == uuid_of(root / "pool0" / "cont0" / ".uuid")
    # the bytes are in the heat map registered as heatmap:DFS
    with iolens.open(one_log(logs)) as lg:
        hm = lg.heatmap("DFS")
    assert hm["write_bytes"].sum() == 3 * 1000 + 20 + 100
    assert hm["read_bytes"].sum() == 2 * 500 + 20

def test_daos_counters(calls, tmp_path):
    rt, _ = emulation()
    logs, root = run_mode(rt, calls, tmp_path, "daos")
    recs = records(one_log(logs), "DAOS")
    assert len(recs) == 3
    by_lo = {lo: r for (hi, lo), r in recs.items()}
    obj, arr, kv = by_lo[1], by_lo[2], by_lo[3]
    want_obj = {"DAOS_OBJ_OPENS": 1, "DAOS_OBJ_UPDATES": 2, "DAOS_OBJ_FETCHES": 1,
                "DAOS_OBJ_DKEY_LISTS": 1, "DAOS_OBJ_AKEY_PUNCHES": 1, "DAOS_OBJ_DKEY_PUNCHES": 1,
                "DAOS_OBJ_PUNCHES": 0, "DAOS_BYTES_WRITTEN": 128, "DAOS_BYTES_READ": 64,
                "DAOS_RW_SWITCHES": 1, "DAOS_NB_OPS": 0, "DAOS_OBJ_OTYPE": 0}
    assert {k: obj[k] for k in want_obj} == want_obj
    want_arr = {"DAOS_ARRAY_OPENS": 2, "DAOS_ARRAY_WRITES": 2, "DAOS_ARRAY_READS": 1,
                "DAOS_ARRAY_GET_SIZES": 1, "DAOS_ARRAY_SET_SIZES": 1, "DAOS_ARRAY_STATS": 1,
                "DAOS_ARRAY_PUNCHES": 1, "DAOS_ARRAY_DESTROYS": 0,
                "DAOS_BYTES_WRITTEN": 2 * 16 * 8, "DAOS_BYTES_READ": 16 * 8,
                "DAOS_ARRAY_CELL_SIZE": 8, "DAOS_ARRAY_CHUNK_SIZE": 1 << 20,
                "DAOS_OBJ_OTYPE": 11}   # DAOS_OT_ARRAY
    assert {k: arr[k] for k in want_arr} == want_arr
    want_kv = {"DAOS_KV_OPENS": 1, "DAOS_KV_PUTS": 3, "DAOS_KV_GETS": 2, "DAOS_KV_LISTS": 1,
               "DAOS_KV_REMOVES": 1, "DAOS_BYTES_WRITTEN": 96, "DAOS_BYTES_READ": 64,
               "DAOS_ACCESS1_ACCESS": 32, "DAOS_ACCESS1_COUNT": 5, "DAOS_OBJ_OTYPE": 8}
    assert {k: kv[k] for k in want_kv} == want_kv
    for r in (obj, arr, kv):
        assert_times_ordered(r, "DAOS", ["OPEN", "WRITE", "READ", "CLOSE"])
        assert r["pool"] == uuid_of(root / "pool0" / ".uuid")
        assert r["container"] == uuid_of(root / "pool0" / "cont0" / ".uuid")
        assert r["name"] == ""          # DAOS records have no name (as upstream)
    # the bytes are in the heat map registered as heatmap:DAOS: object, array and KV
    with iolens.open(one_log(logs)) as lg:
        hm = lg.heatmap("DAOS")
    assert hm["write_bytes"].sum() == 128 + 2 * 16 * 8 + 96
    assert hm["read_bytes"].sum() == 64 + 16 * 8 + 64


def test_call_refused_at_launch_is_not_recorded(calls, tmp_path):
    """A call given an event that DAOS refuses at launch (it returns an error and
    never completes the event) is not recorded, not even when the event completes
    for the next call the program gives it: DAOS keeps the refused call's completion
    callback on the event, and before it was voided that callback counted the
    refused update as a second one."""
    rt, _ = emulation()
    root, logs = emu_root(tmp_path), tmp_path / "logs"
    r = run_under(rt, [calls, root, "refused"], logs, {"IOLENS_DAOS_EMU_REFUSE_LAUNCH": "1"})
    obj = {lo: r for (hi, lo), r in records(one_log(logs), "DAOS").items()}[7]
    assert (obj["DAOS_OBJ_UPDATES"], obj["DAOS_NB_OPS"], obj["DAOS_BYTES_WRITTEN"]) == (1, 1, 64)
    assert "could not be tracked" not in r.stderr, r.stderr


def test_async_calls_recorded_at_completion(calls, tmp_path):
    """Calls given an event count when they complete, in the NB counters too."""
    rt, _ = emulation()
    logs, _ = run_mode(rt, calls, tmp_path, "async")
    d = records(one_log(logs), "DFS")["/adata"]
    assert (d["DFS_WRITES"], d["DFS_NB_WRITES"], d["DFS_BYTES_WRITTEN"]) == (2, 2, 400)
    assert (d["DFS_READS"], d["DFS_NB_READS"], d["DFS_BYTES_READ"]) == (1, 1, 100)
    assert_times_ordered(d, "DFS", ["OPEN", "WRITE", "READ"])
    by_lo = {lo: r for (hi, lo), r in records(one_log(logs), "DAOS").items()}
    kv, arr = by_lo[4], by_lo[5]
    assert (kv["DAOS_KV_OPENS"], kv["DAOS_KV_PUTS"], kv["DAOS_KV_GETS"], kv["DAOS_NB_OPS"],
            kv["DAOS_BYTES_WRITTEN"], kv["DAOS_BYTES_READ"]) == (1, 2, 1, 4, 64, 32)
    assert kv["DAOS_F_CLOSE_END_TIMESTAMP"] >= kv["DAOS_F_READ_END_TIMESTAMP"] > 0  # async close
    assert (arr["DAOS_ARRAY_WRITES"], arr["DAOS_ARRAY_READS"], arr["DAOS_ARRAY_GET_SIZES"],
            arr["DAOS_NB_OPS"], arr["DAOS_BYTES_WRITTEN"]) == (1, 1, 1, 3, 128)


def test_python_views_of_our_logs(calls, tmp_path):
    """log.layers(), the report's interface table and fleet job-stats/file-stats
    (the same numbers as PyDarshan's job_stats/file_stats) on our DFS/DAOS logs."""
    rt, _ = emulation()
    dfs_log = one_log(run_mode(rt, calls, tmp_path, "dfs")[0])
    daos_log = one_log(run_mode(rt, calls, tmp_path, "daos")[0])
    with iolens.open(dfs_log) as lg:
        lay = lg.layers()
    dfs = lay[lay["layer"] == "DFS"].set_index("file")
    assert dfs.loc["/data", "bytes_written"] == 3020 and dfs.loc["/gone", "bytes_written"] == 100
    with iolens.open(daos_log) as lg:
        recs = lg.records("DAOS")
        lay = lg.layers()
    daos = lay[lay["layer"] == "DAOS"]
    want = {f"{hi}.{lo}" for hi, lo in zip(recs["oid_hi"], recs["oid_lo"])}
    assert set(daos["file"]) == want and len(want) == 3     # one row per object
    assert daos["bytes_written"].sum() == 128 + 256 + 96
    iolens_cmd = shutil.which("iolens")
    if iolens_cmd is None:
        pytest.skip("the iolens command is not installed in this environment")
    pytest.importorskip("darshan", reason="PyDarshan (the fleet figures' oracle) is not installed")

    def same_as_pydarshan(verb, module, log):
        ours = subprocess.run([iolens_cmd, "fleet", verb, "-m", module, "--csv", str(log)],
                              capture_output=True, text=True, timeout=300)
        assert ours.returncode == 0, ours.stderr
        theirs = subprocess.run([sys.executable, "-m", "darshan", verb.replace("-", "_"),
                                 "--module", module, "--csv", str(log)],
                                capture_output=True, text=True, timeout=300)
        assert theirs.returncode == 0, theirs.stderr
        assert ours.stdout == theirs.stdout

    for module, log in (("DFS", dfs_log), ("DAOS", daos_log)):
        same_as_pydarshan("job-stats", module, log)
    # PyDarshan 3.5.0's file_stats takes POSIX, MPI-IO, STDIO and DFS (no DAOS)
    same_as_pydarshan("file-stats", "DFS", dfs_log)
    html = tmp_path / "report.html"
    r = subprocess.run([iolens_cmd, "report", str(daos_log), "-o", str(html)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    text = html.read_text()
    assert "DAOS" in text and "480 B" in text      # the interface row: bytes written


def test_daos_without_dfs(tmp_path):
    """A program that loads libdaos but not libdfs gets its DAOS records (the
    functions the DFS module calls are not needed by the DAOS module)."""
    rt, lib = emulation()
    prog = tmp_path / "daos_only"
    r = subprocess.run(["cc", "-O1", f"-I{REPO / 'tests' / 'daos_emu' / 'include'}",
                        str(HERE / "progs" / "daos_only.c"), "-o", str(prog), f"-L{lib}",
                        "-ldaos", "-lgurt", "-luuid", f"-Wl,-rpath,{lib}"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "libdfs" not in subprocess.run(["ldd", str(prog)], capture_output=True, text=True).stdout
    run_under(rt, [prog, emu_root(tmp_path)], tmp_path / "logs")
    (kv,) = records(one_log(tmp_path / "logs"), "DAOS").values()
    assert (kv["DAOS_KV_PUTS"], kv["DAOS_KV_GETS"], kv["DAOS_BYTES_WRITTEN"]) == (2, 1, 32)


def test_threads(calls, tmp_path):
    rt, _ = emulation()
    logs, _ = run_mode(rt, calls, tmp_path, "threads")
    recs = records(one_log(logs), "DFS")
    assert set(recs) == {f"/t{i}" for i in range(4)}
    for r in recs.values():
        assert (r["DFS_OPENS"], r["DFS_WRITES"], r["DFS_BYTES_WRITTEN"],
                r["DFS_SIZE_WRITE_1K_10K"]) == (1, 8, 8 * 4096, 8)


def test_fork(calls, tmp_path):
    """The parent's log has /parent; the child's own record /child is in the child's
    log (a forked child keeps recording, runtime spec: fork)."""
    rt, _ = emulation()
    logs, _ = run_mode(rt, calls, tmp_path, "fork")
    found = {}
    for log in logs_in(logs):
        for name, r in records(log, "DFS").items():
            found.setdefault(name, []).append(r["DFS_BYTES_WRITTEN"])
    assert found.get("/child") == [100]
    assert 100 in found.get("/parent", [])


def test_disabled_module_passes_calls_through(calls, tmp_path):
    rt, _ = emulation()
    logs, _ = run_mode(rt, calls, tmp_path, "dfs", {"DARSHAN_MOD_DISABLE": "DFS,DAOS"})
    assert records(one_log(logs), "DFS") == {}


def test_readers_of_upstream(calls, tmp_path):
    """PyDarshan 3.5.0 and darshan-parser 3.5.0 read our DFS and DAOS records."""
    rt, _ = emulation()
    darshan = pytest.importorskip("darshan")
    for mode, module, n in (("dfs", "DFS", 2), ("daos", "DAOS", 3)):
        log = one_log(run_mode(rt, calls, tmp_path, mode)[0])
        ours = records(log, module)
        with darshan.DarshanReport(str(log), read_all=True) as rep:
            df = rep.records[module].to_df()["counters"]
        assert len(df) == n
        assert sorted(df[f"{module}_BYTES_WRITTEN"]) == sorted(r[f"{module}_BYTES_WRITTEN"]
                                                                for r in ours.values())
        if not UPSTREAM_PARSER.exists():
            continue
        out = subprocess.run([str(UPSTREAM_PARSER), str(log)], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        lines = [ln.split("\t") for ln in out.stdout.splitlines() if ln.startswith(module + "\t")]
        written = sorted(int(ln[4]) for ln in lines if ln[3] == f"{module}_BYTES_WRITTEN")
        assert written == sorted(r[f"{module}_BYTES_WRITTEN"] for r in ours.values())
    if not UPSTREAM_PARSER.exists():
        pytest.skip(f"darshan-parser 3.5.0 not installed at {UPSTREAM_PARSER}")


def test_recover_after_sigkill(calls, tmp_path):
    rt, _ = emulation()
    tool = find_tool()
    if tool is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    mmap = tmp_path / "mmap"
    mmap.mkdir()
    logs, _ = run_mode(rt, calls, tmp_path, "kill", {"DARSHAN_MMAP_LOGPATH": str(mmap)},
                       check=False)
    assert logs_in(logs) == []
    copies = [p for p in mmap.iterdir() if p.name.endswith(".darshan")]
    assert len(copies) == 1
    out = tmp_path / "recovered"
    out.mkdir()
    r = subprocess.run([str(tool), "recover", "--logdir", str(out), str(copies[0])],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    recs = records(one_log(out), "DFS")
    d = recs["/data"]
    assert (d["DFS_WRITES"], d["DFS_BYTES_WRITTEN"], d["DFS_READS"]) == (3, 3020, 2)
    assert recs["/gone"]["DFS_REMOVES"] == 1


def test_mpi_shared_record(tmp_path):
    from mpi_helpers import MPIS, Mpi, find_mpi_runtime
    rt_mpi = find_mpi_runtime("openmpi")
    if rt_mpi is None or not shutil.which(MPIS["openmpi"]["cc"]):
        pytest.skip("no Open MPI runtime build (libiolens-mpi.so) or mpicc.openmpi")
    emulation()
    prog = compile_calls(tmp_path / "daos_calls_mpi", MPIS["openmpi"]["cc"], ["-DDAOS_CALLS_MPI"])
    root = emu_root(tmp_path)
    Mpi("openmpi", rt_mpi).run([prog, root, "mpi"], tmp_path / "logs", nprocs=2)
    log = one_log(tmp_path / "logs")
    with iolens.open(log) as lg:
        df = lg.records("DFS")
    rows = {(int(r["rank"]), r["name"]): r for r in df.to_dict("records")}
    assert set(rows) == {(-1, "/shared"), (0, "/r0"), (1, "/r1")}
    s = rows[(-1, "/shared")]
    assert (s["DFS_OPENS"], s["DFS_WRITES"], s["DFS_BYTES_WRITTEN"]) == (2, 8, 8000)
    assert s["DFS_FASTEST_RANK_BYTES"] == s["DFS_SLOWEST_RANK_BYTES"] == 4000
    assert s["pool"] == uuid_of(root / "pool0" / ".uuid")   # the uuids survive the reduction


def keyed(log, module):
    """{(rank, name or object id, n): row}: the n-th record of that rank and name in
    file order (a name can come back as a new object after a removal)."""
    with iolens.open(log) as lg:
        rows = lg.records(module).to_dict("records")
    out, seen = {}, {}
    for r in rows:
        what = (int(r["oid_hi"]), int(r["oid_lo"])) if module == "DAOS" else r["name"]
        n = seen[(r["rank"], what)] = seen.get((r["rank"], what), -1) + 1
        out[(int(r["rank"]), what, n)] = r
    return out


def differences(ours, theirs, module):
    """Integer counters (timing ones aside) that differ between matched records."""
    out = []
    assert set(ours) == set(theirs), (module, set(ours) ^ set(theirs))
    for key, a in ours.items():
        b = theirs[key]
        for c in a:
            if (c.startswith(module + "_") and "_F_" not in c and not c.endswith(TIMING)
                    and a[c] != b[c]):
                out.append((module, key, c, a[c], b[c]))
    return out


@pytest.mark.parametrize("mode", ["dfs", "daos", "async", "threads"])
def test_fidelity_with_upstream(calls, tmp_path, mode):
    """The same program under upstream 3.5.0's DFS/DAOS modules (built against the
    emulation by scripts/build-upstream-daos.sh): no integer counter differs."""
    if not UPSTREAM_DAOS.exists():
        pytest.skip(f"upstream 3.5.0 with its DAOS modules is not installed at {UPSTREAM_DAOS}")
    rt, _ = emulation()
    ours = one_log(run_mode(rt, calls, tmp_path / "ours", mode)[0])
    theirs = one_log(run_mode(UPSTREAM_DAOS, calls, tmp_path / "upstream", mode)[0])
    diffs = []
    for module in ("DFS", "DAOS"):
        diffs += differences(keyed(ours, module), keyed(theirs, module), module)
    assert diffs == []


IOR = Path(os.environ.get("IOLENS_IOR_DAOS", "/opt/ior-daos-emu/bin/ior"))


IOR_RUNS = {
    # IOR: a shared file written then read back and checked
    "ior": ["-a", "DFS", "--dfs.pool", "pool0", "--dfs.cont", "cont0", "-w", "-r", "-W", "-R",
            "-k", "-t", "64k", "-b", "1m", "-o", "/shared"],
    # mdtest: directories and files made, stat'ed, read and removed
    "mdtest": ["-a", "DFS", "--dfs.pool", "pool0", "--dfs.cont", "cont0", "-n", "20",
               "-d", "/mdtest", "-w", "100", "-e", "100"],
}


def run_ior(runtime, root, logs, tool="ior"):
    """IOR's (or mdtest's) DFS back end on 2 ranks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update({"IOLENS_DAOS_EMU_ROOT": str(root), "DARSHAN_LOGPATH": str(logs),
                "LD_PRELOAD": str(runtime), "OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    logs.mkdir(parents=True)
    cmd = ["mpiexec.openmpi", "--oversubscribe", "-n", "2"]
    for k in ("IOLENS_DAOS_EMU_ROOT", "DARSHAN_LOGPATH", "LD_PRELOAD"):
        cmd += ["-x", k]
    r = subprocess.run(cmd + [str(IOR.parent / tool)] + IOR_RUNS[tool],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return one_log(logs)


@pytest.mark.parametrize("tool", ["ior", "mdtest"])
def test_ior_fidelity_with_upstream(tmp_path, tool):
    """IOR and mdtest (-a DFS, real DFS clients built against the emulation) under
    our MPI runtime and under upstream 3.5.0: the same DFS/DAOS integer counters."""
    from mpi_helpers import find_mpi_runtime
    emulation()
    if not (IOR.parent / tool).exists():
        pytest.skip(f"no {tool} with the DFS back end beside {IOR} (bench/daos/build-ior.sh)")
    if not UPSTREAM_DAOS.exists():
        pytest.skip(f"upstream 3.5.0 with its DAOS modules is not installed at {UPSTREAM_DAOS}")
    rt_mpi = find_mpi_runtime("openmpi")
    if rt_mpi is None or not shutil.which("mpiexec.openmpi"):
        pytest.skip("no Open MPI runtime build (libiolens-mpi.so) or mpiexec.openmpi")
    ours = run_ior(rt_mpi, emu_root(tmp_path, "ours"), tmp_path / "logs-ours", tool)
    theirs = run_ior(UPSTREAM_DAOS, emu_root(tmp_path, "upstream"), tmp_path / "logs-upstream", tool)
    got = records(ours, "DFS")
    if tool == "ior":
        assert got["/shared"]["rank"] == -1 and got["/shared"]["DFS_BYTES_WRITTEN"] == 2 << 20
    else:
        assert sum(r["DFS_REMOVES"] for r in got.values()) > 0
    diffs = []
    for module in ("DFS", "DAOS"):
        diffs += differences(keyed(ours, module), keyed(theirs, module), module)
    assert diffs == []
