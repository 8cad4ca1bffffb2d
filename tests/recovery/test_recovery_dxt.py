"""DXT traces of a killed process (docs/dxt.md, docs/recovery.md): with tracing and
the safety copy on, each DXT store lives in a file beside the copy
(<copy>.dxt-posix, <copy>.dxt-mpiio) and `iolens recover` decodes it into the
recovered log's DXT_POSIX (v1) / DXT_MPIIO (v2) regions.

The workload is progs/dxt_ops.c: a list of write/pwrite/read calls on three
files, generated here from a seed, that raises SIGKILL after exactly k of them
(or is killed from outside while it counts the calls that returned).  The
expected trace is derived from the list with the runtime's offset model (an
open or lseek sets a file's tracked offset, every read or write leaves it at
offset + bytes; write/read use it, pwrite its own offset) and, under a budget,
from the budget rule of docs/dxt.md.  Traces are read with PyDarshan (the
reference reader) and, where noted, also with our Python reader.

Seed: IOLENS_KILL_SEED (default 20261121); it is in every failure message."""
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from recovery_helpers import HERE, dirs, env_for, logs, safety_copies
from rt_helpers import TIME_QUANTUM

darshan = pytest.importorskip("darshan")

SEED = int(os.environ.get("IOLENS_KILL_SEED", "20261121"))
TRACE_ON = {"DXT_ENABLE_IO_TRACE": "1"}
NOPS = 450
FILES = "abc"
FILE_SIZE = 2 << 20          # every read of a pass stays inside (the test fills the files)

SEG_BYTES, FILE_CHARGE, FIRST_SEGMENTS = 32, 104, 64     # docs/dxt.md, "Memory"
HDR = struct.Struct("<8sIIqQQqQQ64s")                    # iolens_dxt_store_hdr
STORE_HDR = 4096


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def dxt_runtime(runtime, tool):
    if b"dxt-posix" not in Path(runtime).read_bytes():
        pytest.skip(f"{runtime} keeps no DXT store beside the safety copy: rebuild it")
    if b"not a DXT store" not in Path(tool).read_bytes():
        pytest.skip(f"{tool} does not recover DXT stores: rebuild it")
    return runtime


@pytest.fixture(scope="module")
def ops_exe(tmp_path_factory):
    out = tmp_path_factory.mktemp("dxtops") / "dxt_ops"
    subprocess.run(["cc", "-O1", "-Wall", "-o", str(out), str(HERE / "progs" / "dxt_ops.c")],
                   check=True)
    return out


# ------------------------------------------------------------------ the workload
def make_script(seed, n=NOPS):
    """n operations ("a", "w"|"p"|"r", length, pwrite offset or None): a mix of the
    three kinds on the three files (file a gets the most, so that its write lane
    fills its first grants of 64 segments)."""
    rnd = random.Random(seed)
    ops = []
    for _ in range(n):
        f = rnd.choices(FILES, weights=[5, 3, 2])[0]
        k = rnd.choices("wpr", weights=[4, 3, 3])[0]
        ops.append((f, k, rnd.randint(1, 1500), rnd.randrange(0, 1 << 20) if k == "p" else None))
    return ops


def argv_of(ops):
    return [f"{f}{k}{n}" + (f"@{o}" if o is not None else "") for f, k, n, o in ops]


def model(ops, k, data, loop=False):
    """{path: {"write": [(offset, length)], "read": [...]}} of the first k operations
    (with loop, of the list run over and over, every offset back to 0 before each pass)."""
    out, pos = {}, {}
    for i in range(k):
        if i % len(ops) == 0:
            pos = dict.fromkeys(FILES, 0)
        f, kind, n, off = ops[i % len(ops)]
        at = off if kind == "p" else pos[f]
        out.setdefault(str(data / f), {"write": [], "read": []})[
            "read" if kind == "r" else "write"].append((at, n))
        pos[f] = at + n
    return out


def program_order(ops, k, data):
    """[(path, direction, index in its lane)] of the first k operations."""
    seen, out = Counter(), []
    for f, kind, _, _ in ops[:k]:
        d = "read" if kind == "r" else "write"
        out.append((str(data / f), d, seen[f, d]))
        seen[f, d] += 1
    return out


def budget_cut(trace, order, budget):
    """The expected trace under a DXT budget of `budget` bytes (docs/dxt.md): a file
    costs 104 bytes when first traced (none if less is left); each direction of a
    file is granted 64 segments, then as many as it has, capped to what is left,
    32 bytes each; what gets no grant is dropped.  Returns (trace, partial)."""
    remaining, traced, room, kept, partial = budget, {}, Counter(), Counter(), False
    for path, d, _ in order:
        if path not in traced:
            traced[path] = remaining >= FILE_CHARGE
            remaining -= FILE_CHARGE if traced[path] else 0
        if not traced[path]:
            partial = True
            continue
        if kept[path, d] == room[path, d]:
            want = min(room[path, d] or FIRST_SEGMENTS, remaining // SEG_BYTES)
            remaining -= want * SEG_BYTES
            room[path, d] += want
            if want == 0:
                partial = True
                continue
        kept[path, d] += 1
    cut = {}
    for path, lanes in trace.items():
        c = {d: segs[:kept[path, d]] for d, segs in lanes.items()}
        if c["write"] or c["read"]:
            cut[path] = c
    return cut, partial


def fill(data):
    data.mkdir(exist_ok=True)
    for f in FILES:
        with open(data / f, "wb") as fp:
            fp.truncate(FILE_SIZE)


def run_ops(exe, runtime, tmp_path, ops, stop, extra=None, loop=False, progress="-",
            popen=False, trace=True):
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    fill(data)
    env = env_for(runtime, logdir, mmapdir, dict(TRACE_ON if trace else {}, **(extra or {})))
    argv = [str(exe), str(data), str(stop), "1" if loop else "0", str(progress)] + argv_of(ops)
    if popen:
        return subprocess.Popen(argv, env=env), logdir, mmapdir, data
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    return r, logdir, mmapdir, data


def stores(d):
    return sorted(Path(d).glob("*.dxt-*"))


def store_of(copy, suffix="posix"):
    return Path(f"{copy}.dxt-{suffix}")


def recover(tool, copies, logdir, *flags):
    r = subprocess.run([str(tool), "recover", "--logdir", str(logdir), *flags]
                       + [str(c) for c in copies], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"seed {SEED}: recover failed ({r.returncode}): {r.stderr}"
    return r


def one_log(logdir):
    found = logs(logdir)
    assert len(found) == 1, found
    return found[0]


# ------------------------------------------------------------------ reading logs
def read_log(log, dxt="DXT_POSIX"):
    """With PyDarshan: ({name: {"write": [(off, len, start, end)], "read": [...]}},
    {name: DXT record without segments}, {name: POSIX counters}, report)."""
    rep = darshan.DarshanReport(str(log), read_all=True)
    names = rep.name_records
    trace, recs = {}, {}
    if dxt in rep.records:
        for rec in rep.records[dxt].to_df():
            rid = int(rec["id"]) % (1 << 64)
            name = names.get(rid, f"<no name: {rid}>")     # a damaged store may give any id
            assert name not in trace, f"two {dxt} records for {name}"
            lanes = {}
            for d in ("write", "read"):
                s = rec[f"{d}_segments"]
                s = s.to_dict("records") if hasattr(s, "to_dict") else list(s)
                lanes[d] = [(int(x["offset"]), int(x["length"]), float(x["start_time"]),
                             float(x["end_time"])) for x in s]
            assert (len(lanes["write"]), len(lanes["read"])) == \
                (rec["write_count"], rec["read_count"])
            trace[name] = lanes
            recs[name] = {k: v for k, v in rec.items() if not k.endswith("_segments")}
    counters = {}
    mod = "MPI-IO" if dxt == "DXT_MPIIO" else "POSIX"
    if mod in rep.records:
        dfs = rep.records[mod].to_df()
        rows, frows = dfs["counters"].to_dict("records"), dfs["fcounters"].to_dict("records")
        for i, row in enumerate(rows):
            row.update(frows[i])
            counters[names[int(dfs["counters"]["id"].tolist()[i]) % (1 << 64)]] = row
    return trace, recs, counters, rep


def ol(trace):
    """The trace without times: {name: {direction: [(offset, length)]}}."""
    return {n: {d: [s[:2] for s in segs] for d, segs in lanes.items()}
            for n, lanes in trace.items()}


def check_times(trace, order, where):
    """Each segment starts no later than it ends, at or after the process started; in
    program order each operation starts at or after the previous one ended."""
    prev_end = 0.0
    for path, d, i in order:
        _, _, start, end = trace[path][d][i]
        assert 0 <= start <= end, f"{where}: {path} {d} #{i}: start {start}, end {end}"
        assert start >= prev_end, f"{where}: {path} {d} #{i} starts at {start} before {prev_end}"
        prev_end = end


def check_against_counters(trace, counters, where):
    """Per traced file: as many segments and bytes as its counters say, and the
    counters' first/last timestamps are those of the trace."""
    for name, lanes in trace.items():
        c = counters[name]
        for d, up, past in (("write", "WRITE", "WRITTEN"), ("read", "READ", "READ")):
            segs = lanes[d]
            assert len(segs) == c[f"POSIX_{up}S"], f"{where}: {name} {d}s"
            assert sum(s[1] for s in segs) == c[f"POSIX_BYTES_{past}"], f"{where}: {name}"
            if segs:
                assert c[f"POSIX_F_{up}_START_TIMESTAMP"] == pytest.approx(segs[0][2], abs=TIME_QUANTUM / 2)
                assert c[f"POSIX_F_{up}_END_TIMESTAMP"] == pytest.approx(segs[-1][3], abs=TIME_QUANTUM / 2)


# ------------------------------------------------------------------ kill at k
SCRIPT = make_script(SEED)
ORDER = program_order(SCRIPT, NOPS, Path("/"))


def nth_write_of_a(n):
    """Operations done when file a's write lane holds exactly n segments."""
    return next((i + 1 for i, (p, d, j) in enumerate(ORDER)
                 if p == "/a" and d == "write" and j == n - 1), NOPS)


POINTS = sorted(set(random.Random(SEED).sample(range(2, NOPS), 6)
                    + [0, 1, nth_write_of_a(64), nth_write_of_a(65), nth_write_of_a(129), NOPS]))


@pytest.mark.parametrize("k", POINTS, ids=[f"after-{k}-ops" for k in POINTS])
def test_sigkill_at_seeded_point(dxt_runtime, tool, ops_exe, tmp_path, k):
    """raise(SIGKILL) after exactly k operations (including at file a's 64th,
    65th and 129th write: a grant full, then a new chunk): the copy and its
    .dxt-posix are left (no .dxt-mpiio without MPI); recover removes both and gives
    a log whose DXT_POSIX trace per file is exactly the k operations (offsets and
    lengths, writes then reads), with counts, bytes and timestamps equal to the
    recovered POSIX counters, and ordered times."""
    where = f"seed {SEED}, killed after {k} ops"
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, tmp_path, SCRIPT, k)
    assert r.returncode == -signal.SIGKILL, f"{where}: {r.returncode} {r.stderr}"
    copies = safety_copies(mmapdir)
    assert len(copies) == 1 and stores(mmapdir) == [store_of(copies[0])], \
        f"{where}: {os.listdir(mmapdir)}"
    recover(tool, copies, logdir)
    assert os.listdir(mmapdir) == [], f"{where}: recover left {os.listdir(mmapdir)}"
    log = one_log(logdir)
    trace, recs, counters, rep = read_log(log)
    assert rep.metadata["job"]["metadata"].get("recovered") == "1"
    want = model(SCRIPT, k, data)
    assert ol(trace) == want, where
    if k == 0:
        assert "DXT_POSIX" not in rep.modules
        return
    assert rep.modules["DXT_POSIX"]["ver"] == 1 and not rep.modules["DXT_POSIX"]["partial_flag"]
    assert list(trace) == list(dict.fromkeys(p for p, _, _ in program_order(SCRIPT, k, data)))
    assert {rec["rank"] for rec in recs.values()} == {0}
    assert {rec["hostname"] for rec in recs.values()} == {os.uname().nodename[:64]}
    check_times(trace, program_order(SCRIPT, k, data), where)
    check_against_counters(trace, counters, where)
    # the counters of the files with no read or write yet exist, and no trace
    assert set(counters) - set(trace) == {str(data / f) for f in FILES} - set(want)


def test_clean_exit(dxt_runtime, tool, ops_exe, tmp_path):
    """A clean exit writes the whole trace into the normal log (the same model as
    above, read the same by PyDarshan and our reader) and leaves neither the
    copy nor a store file behind."""
    iolens = pytest.importorskip("iolens")
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, tmp_path, SCRIPT, -1)
    assert r.returncode == 0, r.stderr
    assert os.listdir(mmapdir) == [], "a clean exit left files in the safety-copy directory"
    log = one_log(logdir)
    assert "_recovered" not in log.name
    trace, _, counters, rep = read_log(log)
    assert ol(trace) == model(SCRIPT, NOPS, data)
    check_times(trace, program_order(SCRIPT, NOPS, data), "clean exit")
    check_against_counters(trace, counters, "clean exit")
    with iolens.open(log) as lg:
        seg = lg.dxt("POSIX")
    ours = {}
    for row in zip(seg["name"].astype(object), seg["op"].astype(object), seg["offset"].tolist(),
                   seg["length"].tolist(), seg["start"].tolist(), seg["end"].tolist()):
        ours.setdefault(row[0], {"write": [], "read": []})[row[1]].append(tuple(row[2:]))
    assert ours == trace


def test_recovered_job_end_covers_the_trace(dxt_runtime, tool, ops_exe, tmp_path):
    """The recovered job's run time (end - start) is not shorter than the end of
    the last traced operation, as in a log written at a clean exit: the trace
    must not show I/O after the job ended."""
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, tmp_path, SCRIPT, NOPS)
    assert r.returncode == -signal.SIGKILL
    recover(tool, safety_copies(mmapdir), logdir)
    trace, _, counters, rep = read_log(one_log(logdir))
    last = max(s[3] for lanes in trace.values() for segs in lanes.values() for s in segs)
    # PyDarshan computes run_time from epoch seconds as doubles (~0.2 us steps)
    assert rep.metadata["job"]["run_time"] >= last - 1e-6, \
        f"recovered run time {rep.metadata['job']['run_time']:.6f} s, " \
        f"last traced operation ends at {last:.6f} s"


# ------------------------------------------------------------------ kill from outside
_rnd = random.Random(SEED + 7)
DELAYS = [round(_rnd.uniform(0.02, 0.4), 3) for _ in range(3)]


@pytest.mark.parametrize("delay", DELAYS, ids=[f"after-{d}s" for d in DELAYS])
def test_external_sigkill_at_random_time(dxt_runtime, tool, ops_exe, tmp_path, delay):
    """SIGKILL from outside at a seeded random moment while the list runs over and
    over.  The program counts the operations that returned; the recovered trace is
    exactly those, or those plus the one in flight (traced, not yet counted); the
    counters are the same or one operation ahead of the trace (the runtime counts
    before it traces)."""
    prog = tmp_path / "progress"
    prog.write_bytes(b"\0" * 8)
    ops = SCRIPT[:150]
    p, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, tmp_path, ops, -1, loop=True,
                                       progress=prog, popen=True)
    deadline = time.monotonic() + 30
    while int.from_bytes(prog.read_bytes(), "little") == 0 and p.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.002)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    assert p.wait() == -signal.SIGKILL
    done = int.from_bytes(prog.read_bytes(), "little")
    where = f"seed {SEED}, killed {delay}s in, {done} ops returned"
    assert done > 0
    recover(tool, safety_copies(mmapdir), logdir)
    trace, _, counters, rep = read_log(one_log(logdir))
    assert not rep.modules["DXT_POSIX"]["partial_flag"], f"{where}: the budget was spent"
    candidates = [model(ops, done, data, loop=True), model(ops, done + 1, data, loop=True)]
    assert ol(trace) in candidates, where
    n = sum(len(v) for lanes in trace.values() for v in lanes.values())
    counted = {name: (c["POSIX_WRITES"], c["POSIX_READS"]) for name, c in counters.items()
               if c["POSIX_WRITES"] or c["POSIX_READS"]}
    assert counted in [{p: (len(x["write"]), len(x["read"])) for p, x in m.items()}
                       for m in candidates], where
    assert sum(map(sum, counted.values())) in (n, n + 1), where
    for lanes in trace.values():
        for segs in lanes.values():
            assert all(0 <= s[2] <= s[3] for s in segs), where


# ------------------------------------------------------------------ a spent budget
def test_budget_cut_before_the_kill(dxt_runtime, tool, ops_exe, tmp_path):
    """`MAX_RECORDS 4 DXT_POSIX` (4 KiB): the trace is cut long before the kill at
    k; the recovered log has the DXT_POSIX partial bit (not POSIX's) and exactly
    the first segments the budget admits, the same as a clean run of the same k
    operations gives; the counters still count every operation."""
    k = 300
    cfg = tmp_path / "iolens.conf"
    cfg.write_text("MAX_RECORDS 4 DXT_POSIX\n")
    extra = {"DARSHAN_CONFIG_PATH": str(cfg)}
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    killed.mkdir()
    clean.mkdir()
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, killed, SCRIPT, k, extra)
    assert r.returncode == -signal.SIGKILL, r.stderr
    recover(tool, safety_copies(mmapdir), logdir)
    got, _, counters, rep = read_log(one_log(logdir))
    r2, logdir2, _, data2 = run_ops(ops_exe, dxt_runtime, clean, SCRIPT[:k], -1, extra)
    assert r2.returncode == 0, r2.stderr
    ref, _, _, rep2 = read_log(one_log(logdir2))

    order = program_order(SCRIPT, k, data)
    want, partial = budget_cut(model(SCRIPT, k, data), order, 4096)
    assert partial and 0 < sum(len(v) for x in want.values() for v in x.values()) < k
    assert ol(got) == want
    renamed = {n.replace(str(data2), str(data)): x for n, x in ol(ref).items()}
    assert renamed == want, "the clean run does not keep what the budget admits"
    assert list(renamed) == list(ol(got)) == list(want)
    for r_ in (rep, rep2):
        assert r_.modules["DXT_POSIX"]["partial_flag"] and not r_.modules["POSIX"]["partial_flag"]
    full = model(SCRIPT, k, data)
    for name, lanes in full.items():
        assert counters[name]["POSIX_WRITES"] == len(lanes["write"])
        assert counters[name]["POSIX_READS"] == len(lanes["read"])
        assert counters[name]["POSIX_BYTES_WRITTEN"] == sum(s[1] for s in lanes["write"])
        assert counters[name]["POSIX_BYTES_READ"] == sum(s[1] for s in lanes["read"])
    for lanes in got.values():
        for segs in lanes.values():
            assert all(0 <= s[2] <= s[3] for s in segs)


# ------------------------------------------------------------------ the store files
def test_keep_then_recover_again(dxt_runtime, tool, ops_exe, tmp_path):
    """--keep keeps the copy and its store file (and the trace is in the log);
    recovering again without it gives the same trace and removes both."""
    k = 123
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, tmp_path, SCRIPT, k)
    assert r.returncode == -signal.SIGKILL
    copies = safety_copies(mmapdir)
    before = sorted(os.listdir(mmapdir))
    recover(tool, copies, logdir, "--keep")
    assert sorted(os.listdir(mmapdir)) == before and len(before) == 2
    first, _, _, _ = read_log(one_log(logdir))
    assert ol(first) == model(SCRIPT, k, data)
    again = tmp_path / "again"
    again.mkdir()
    recover(tool, copies, again)
    assert os.listdir(mmapdir) == []
    second, _, _, _ = read_log(one_log(again))
    assert second == first


@pytest.mark.parametrize("extra,trace", [({"IOLENS_NO_SAFETY_COPY": "1"}, True), ({}, False)],
                         ids=["no-safety-copy", "tracing-off"])
def test_no_store_file(dxt_runtime, tool, ops_exe, tmp_path, extra, trace):
    """Without the safety copy, or without tracing, no store file is made: a killed
    run leaves only the copy (if any); a clean run has the trace in its log only
    when tracing is on."""
    k = 40
    copy = not extra
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    killed.mkdir()
    clean.mkdir()
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, killed, SCRIPT, k, extra, trace=trace)
    assert r.returncode == -signal.SIGKILL
    assert len(safety_copies(mmapdir)) == int(copy) and stores(mmapdir) == []
    assert len(os.listdir(mmapdir)) == int(copy)
    if copy:
        recover(tool, safety_copies(mmapdir), logdir)
        got, _, counters, rep = read_log(one_log(logdir))
        assert "DXT_POSIX" not in rep.modules and got == {}
        a = str(data / "a")
        assert counters[a]["POSIX_WRITES"] == len(model(SCRIPT, k, data)[a]["write"])
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, clean, SCRIPT, -1, extra, trace=trace)
    assert r.returncode == 0 and os.listdir(mmapdir) == []
    got, _, _, _ = read_log(one_log(logdir))
    assert ol(got) == (model(SCRIPT, NOPS, data) if trace else {})


# ------------------------------------------------------------------ damaged stores
DAMAGE_K = 400


@pytest.fixture(scope="module")
def pristine(dxt_runtime, tool, ops_exe, tmp_path_factory):
    """One killed run (after DAMAGE_K operations): its copy and store file, kept
    aside, and the trace and counters `recover --keep` gives from them."""
    base = tmp_path_factory.mktemp("pristine")
    r, logdir, mmapdir, data = run_ops(ops_exe, dxt_runtime, base, SCRIPT, DAMAGE_K)
    assert r.returncode == -signal.SIGKILL
    copy = safety_copies(mmapdir)[0]
    recover(tool, [copy], logdir, "--keep")
    trace, _, counters, _ = read_log(one_log(logdir))
    assert ol(trace) == model(SCRIPT, DAMAGE_K, data)
    store = store_of(copy).read_bytes()
    hdr = dict(zip(("magic", "modid", "cut", "rank", "len", "used", "remaining", "first", "last"),
                   HDR.unpack_from(store)))
    assert hdr["magic"] == b"IOLDXTS1" and hdr["modid"] == 10 and hdr["len"] == len(store)
    assert STORE_HDR < hdr["used"] < len(store)
    return {"copy": copy, "store": store, "used": hdr["used"], "trace": trace,
            "counters": counters}


def recover_damaged(tool, pristine, tmp_path, damage):
    """Recover a fresh copy of the pristine pair whose store bytes are damage(bytes)."""
    d = tmp_path / "damaged"
    d.mkdir(parents=True)
    copy = d / pristine["copy"].name
    shutil.copyfile(pristine["copy"], copy)
    store_of(copy).write_bytes(damage(pristine["store"]))
    logdir = tmp_path / "out"
    logdir.mkdir()
    r = subprocess.run([str(tool), "recover", "--force", "--logdir", str(logdir), str(copy)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"seed {SEED}: recover of a damaged store: {r.returncode} {r.stderr}"
    assert not copy.exists() and not store_of(copy).exists()
    log = one_log(logdir)
    trace, _, counters, rep = read_log(log)
    assert counters == pristine["counters"], "the counters were not recovered intact"
    p = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return trace, r.stderr, rep


def assert_prefix(trace, ref, where):
    """Every lane of every file is a prefix of the real one (absent = empty)."""
    for name, lanes in trace.items():
        assert name in ref, f"{where}: a trace for {name}"
        for d, segs in lanes.items():
            assert segs == ref[name][d][:len(segs)], f"{where}: {name} {d}s are not a prefix"


def test_truncated_store(tool, pristine, tmp_path):
    """A store cut at 0, 5, 8 bytes, inside or at the end of its header page, at 12
    seeded points inside its files and chunks, just short of what it had
    allocated, and at or past that: exit 0, counters intact, each lane of the
    trace a prefix of the real one; no trace from a bare header, the whole trace
    from the allocated bytes; a longer cut never gives less, and some cut inside
    gives part of the trace."""
    used = pristine["used"]
    mid = sorted(random.Random(SEED + 3).sample(range(STORE_HDR + 1, used - 1), 12))
    sizes = ([0, 5, 8, STORE_HDR - 1, STORE_HDR, STORE_HDR + 100] + mid
             + [used - 1, used, used + 4096])
    total = sum(len(s) for lanes in pristine["trace"].values() for s in lanes.values())
    counts = []
    for size in sizes:
        where = f"seed {SEED}: store cut at {size} bytes (allocated {used})"
        trace, err, _ = recover_damaged(tool, pristine, tmp_path / str(size), lambda b: b[:size])
        assert_prefix(trace, pristine["trace"], where)
        if size <= STORE_HDR:
            assert trace == {}, where
        if size >= used:
            assert trace == pristine["trace"], where
        counts.append(sum(len(s) for lanes in trace.values() for s in lanes.values()))
    assert counts == sorted(counts), f"seed {SEED}: segments per cut {list(zip(sizes, counts))}"
    assert any(0 < n < total for n in counts), f"seed {SEED}: no cut gave part of the trace"


def test_wrong_magic_and_empty_store(tool, pristine, tmp_path):
    """A store with another magic: the message on stderr, no trace, counters intact;
    an empty store file: no trace, counters intact."""
    trace, err, rep = recover_damaged(tool, pristine, tmp_path / "magic",
                                      lambda b: b"NOTADXTS" + b[8:])
    assert trace == {} and "DXT_POSIX" not in rep.modules
    assert "not a DXT store; its trace is not recovered" in err
    assert ".dxt-posix" in err
    trace, err, rep = recover_damaged(tool, pristine, tmp_path / "empty", lambda b: b"")
    assert trace == {} and "DXT_POSIX" not in rep.modules


def overwrite(seed, lo, hi, nbytes):
    def damage(b):
        rnd = random.Random(seed)
        b = bytearray(b)
        for _ in range(nbytes):
            b[rnd.randrange(lo, hi)] = rnd.randrange(256)
        return bytes(b)
    return damage


@pytest.mark.parametrize("j", range(12), ids=lambda j: f"seed+{j}")
def test_overwritten_store(tool, pristine, tmp_path, j):
    """1 to 32 seeded random bytes overwritten in the allocated part of the store
    (header, files, chunks): recover exits 0 and writes a valid log (PyDarshan
    and `iolens parse` read it) with the counters intact, and what decodes is
    bounded by the file (the store has no checksum, so "whatever decodes" may be
    wrong values: only the absence of damage to everything else is asserted).
    Bytes overwritten where nothing is stored (the header page after the header,
    the store past what was allocated) change nothing."""
    n = [1, 2, 4, 8, 16, 32][j % 6]
    where = f"seed {SEED + 100 + j}: {n} bytes overwritten"
    trace, err, rep = recover_damaged(tool, pristine, tmp_path,
                                      overwrite(SEED + 100 + j, 0, pristine["used"], n))
    nseg = sum(len(s) for lanes in trace.values() for s in lanes.values())
    assert nseg <= len(pristine["store"]) // 4, where

    def elsewhere(b):
        b = overwrite(SEED + 200 + j, HDR.size, STORE_HDR, 32)(b)
        return overwrite(SEED + 300 + j, pristine["used"], len(b), 64)(b)
    trace, err, _ = recover_damaged(tool, pristine, tmp_path / "elsewhere", elsewhere)
    assert trace == pristine["trace"] and err == "", where


# ------------------------------------------------------------------ MPI
MPI_N, MPI_M, VICTIM, NPROCS = 7, 20, 2, 4


@pytest.fixture(scope="module")
def mpi(tmp_path_factory):
    sys.path.insert(0, str(HERE.parent / "mpi"))
    from mpi_helpers import Mpi, find_mpi_runtime
    rt = find_mpi_runtime("openmpi")
    if rt is None or not shutil.which("mpicc.openmpi"):
        pytest.skip("libiolens-mpi.so for Open MPI not built (-DIOLENS_WITH_MPI=ON)")
    if b"dxt-mpiio" not in Path(rt).read_bytes():
        pytest.skip(f"{rt} keeps no DXT store beside the safety copy: rebuild it")
    m = Mpi("openmpi", rt)
    exe = m.compile(HERE / "progs" / "dxt_mpi.c", tmp_path_factory.mktemp("dxtmpi") / "dxt_mpi")
    return m, exe


def run_mpi(mpi, tmp_path, victim, extra=None):
    m, exe = mpi
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    env = dict(TRACE_ON, DARSHAN_MMAP_LOGPATH=str(mmapdir), **(extra or {}))
    r = m.run([exe, data, MPI_N, MPI_M, victim], logdir, nprocs=NPROCS, env=env, check=False,
              timeout=120)
    return r, logdir, mmapdir, data


def mpiio_expected(rank, steps, offsets):
    return [((rank * MPI_M + i) * 4096 if offsets else -1, 100 + 37 * i) for i in range(steps)]


def posix_expected(steps):
    out, pos = [], 0
    for i in range(steps):
        out.append((pos, 10 + i))
        pos += 10 + i
    return out


@pytest.mark.parametrize("offsets", [False, True], ids=["default-offsets", "byte-offsets"])
def test_mpi_rank_killed_after_n_writes(mpi, tool, tmp_path, offsets):
    """4 ranks, tracing on; rank 2 raises SIGKILL after 7 MPI_File_write_at calls
    (the others did 20 and wait).  No log; each rank leaves its copy, .dxt-posix
    and .dxt-mpiio.  Recovering rank 2's copy gives its DXT_MPIIO trace of
    exactly 7 segments (lengths exact; offsets -1 under Open MPI, the byte offsets
    with IOLENS_DXT_MPIIO_OFFSETS=1) equal to its MPI-IO counters, and its
    DXT_POSIX traces (its own file exactly; the shared file as its POSIX counters
    say), all with rank 2; the other ranks' copies give their 20 segments."""
    r, logdir, mmapdir, data = run_mpi(mpi, tmp_path, VICTIM,
                                       {"IOLENS_DXT_MPIIO_OFFSETS": "1"} if offsets else None)
    assert r.returncode != 0
    assert logs(logdir) == [], "no process reached MPI_Finalize"
    copies = safety_copies(mmapdir)
    assert len(copies) == NPROCS, os.listdir(mmapdir)
    for c in copies:
        assert store_of(c, "posix").exists() and store_of(c, "mpiio").exists(), c
    by_rank = {int(c.name.rsplit("-", 1)[1].split(".")[0]): c for c in copies}
    assert sorted(by_rank) == list(range(NPROCS))
    shared = str(data / "shared")
    for rank in [VICTIM] + [x for x in range(NPROCS) if x != VICTIM]:
        steps = MPI_N if rank == VICTIM else MPI_M
        where = f"rank {rank} ({'killed' if rank == VICTIM else 'taken down'})"
        out = tmp_path / f"rec{rank}"
        out.mkdir()
        recover(tool, [by_rank[rank]], out)
        assert not by_rank[rank].exists() and not store_of(by_rank[rank], "mpiio").exists()
        log = one_log(out)
        mtrace, mrecs, mcounters, rep = read_log(log, "DXT_MPIIO")
        assert rep.modules["DXT_MPIIO"]["ver"] == 2 and not rep.modules["DXT_MPIIO"]["partial_flag"]
        want = {shared: {"write": mpiio_expected(rank, steps, offsets), "read": []}}
        assert ol(mtrace) == want, where
        assert {x["rank"] for x in mrecs.values()} == {rank}, where
        assert mcounters[shared]["MPIIO_INDEP_WRITES"] == steps
        assert mcounters[shared]["MPIIO_BYTES_WRITTEN"] == sum(100 + 37 * i for i in range(steps))
        assert all(0 <= s[2] <= s[3] for s in mtrace[shared]["write"]), where
        ptrace, precs, pcounters, _ = read_log(log)
        own = str(data / f"posix-{rank}")
        assert ol(ptrace)[own] == {"write": posix_expected(steps), "read": []}, where
        # (rank 0 also writes Open MPI's shared-pointer file, outside DIR)
        assert {n for n in ptrace if n.startswith(str(data))} == {own, shared}, where
        assert sum(s[1] for s in ptrace[shared]["write"]) == \
            mcounters[shared]["MPIIO_BYTES_WRITTEN"], where
        assert {x["rank"] for x in precs.values()} == {rank}, where
        check_against_counters(ptrace, pcounters, where)
        for segs in (ptrace[own]["write"], mtrace[shared]["write"]):
            assert all(a[3] <= b[2] for a, b in zip(segs, segs[1:])), where
    assert os.listdir(mmapdir) == []


def test_mpi_clean_exit_and_no_store_in_the_records(mpi, tool, tmp_path):
    """A traced MPI job that ends normally: one log with every rank's 20 MPI-IO
    segments, nothing left in the safety-copy directory, and the runtime's own
    store files (made beside the copy) are not application I/O: no POSIX record
    names a file of the safety-copy directory."""
    r, logdir, mmapdir, data = run_mpi(mpi, tmp_path, -1)
    assert r.returncode == 0, r.stderr
    assert os.listdir(mmapdir) == [], "a clean exit left files in the safety-copy directory"
    log = one_log(logdir)
    rep = darshan.DarshanReport(str(log), read_all=True)
    segs = {int(x["rank"]): x["write_count"] for x in rep.records["DXT_MPIIO"].to_df()}
    assert segs == dict.fromkeys(range(NPROCS), MPI_M)
    names = [rep.name_records[int(i) % (1 << 64)]
             for i in rep.records["POSIX"].to_df()["counters"]["id"].tolist()]
    assert [n for n in names if n.startswith(str(mmapdir))] == []
