#!/usr/bin/env python3
"""Runtime overhead benchmark (by hand, not part of the tests).

Builds opbench.c, then for each operation reports
  - the median extra wall time per call over RUNS runs of N calls, with and without
    the preloaded runtime (noisy on a shared machine: the median helps, not fully);
  - the extra instructions per call measured by callgrind on CG_N calls (exact and
    repeatable; this is the number compared with upstream);
  - the peak resident memory of a 1500-file run (w04-like) with and without the runtime.

With --dxt, also the cost of DXT tracing (DXT_ENABLE_IO_TRACE=1) on top of the
counters, in a second table:
  - extra instructions per call (callgrind, CG_N calls) of the runtime with counters
    only and with tracing, their difference, and the difference when the trace
    budget is spent (every segment dropped: MAX_RECORDS 1 DXT_POSIX);
  - median wall and thread-CPU ns per call with tracing off and on (the same RUNS
    runs of N calls, interleaved with the plain and counters-only runs);
  - log bytes per traced operation: DXT_N calls of one traced operation alone, with
    tracing on and off; (size on - size off) / traced segments.
  The traced runs get a config file (DARSHAN_CONFIG_PATH) with MAX_RECORDS sized so
  that every segment of the run fits (the default 2 MiB budget holds ~65,000).

usage: bench.py [--runtime LIB] [--runs 5] [--n 1000000] [--cg-n 20000]
                [--dxt] [--dxt-n 100000]
(--runs 0 skips the wall-time runs: instructions and memory only.)
Prints Markdown tables for docs/performance.md.
"""
import argparse
import math
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
IOLENS = Path(os.environ.get("IOLENS_TOOL", REPO / "build/src/tools/iolens"))
OPS = ["pwrite_1B", "pread_1B", "write_4KiB", "read_4KiB", "lseek", "stat", "open+close",
       "fwrite_1B", "fread_1B"]
FUNCS = {"pwrite_1B": "bench_pwrite1", "pread_1B": "bench_pread1", "write_4KiB": "bench_write4k",
         "read_4KiB": "bench_read4k", "lseek": "bench_lseek", "stat": "bench_stat",
         "open+close": "bench_openclose", "fwrite_1B": "bench_fwrite1", "fread_1B": "bench_fread1"}
UPSTREAM = {"pwrite_1B": 1150, "pread_1B": 1150, "lseek": 330, "fwrite_1B": 550, "open+close": 2800}
# Operations DXT_POSIX traces (one segment per call); the others are shown for completeness.
TRACED = ["pwrite_1B", "pread_1B", "write_4KiB", "read_4KiB"]
SETUP_WRITES = 256          # opbench's 4 KiB writes before the timed loops (traced too)
DXT_SEG = 32                # bytes per segment, raw
DXT_FILE_CHARGE = 104       # budget charged per traced file (src/runtime/modules/dxt.c)
UPSTREAM_DXT_NS = 70        # upstream tracing's extra ns per pwrite on this machine (the issue)


def dxt_budget_kib(lanes):
    """MAX_RECORDS value (KiB) under which every segment fits: per file and
    direction 64 segments, then doubling (dxt.c's accounting), plus the file charge."""
    total = DXT_FILE_CHARGE
    for count in lanes:
        room = 64
        while room < count:
            room *= 2
        total += room * DXT_SEG if count else 0
    return math.ceil(total / 1024) + 1


def run_budget_kib(n, ops=None):
    """Budget for opbench's one file: write lane = set-up + pwrite + write calls."""
    ops = ops or OPS
    w = SETUP_WRITES + n * sum(op in ops for op in ("pwrite_1B", "write_4KiB"))
    r = n * sum(op in ops for op in ("pread_1B", "read_4KiB"))
    return dxt_budget_kib([w, r])


# Settings added to every traced run (dxt_threads.py sets DXT_THREAD_IDS here).
TRACE_ENV = {}


def env_for(runtime, logdir, dxt_kib=None):
    """dxt_kib: None = no tracing; else DXT on with a DXT_POSIX budget of that many
    KiB (0 = the default 2 MiB), plus TRACE_ENV."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DARSHAN_") and not k.startswith("DXT_")}
    if runtime:
        env.update(LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=str(logdir))
        if dxt_kib is not None:
            env["DXT_ENABLE_IO_TRACE"] = "1"
            env.update(TRACE_ENV)
            if dxt_kib:
                conf = Path(logdir) / f"dxt-{dxt_kib}.conf"
                conf.write_text(f"MAX_RECORDS {dxt_kib} DXT_POSIX\n")
                env["DARSHAN_CONFIG_PATH"] = str(conf)
    return env


def timed_run(exe, work, n, runtime, dxt_kib=None, cpu=None, logdir=None, flt=None):
    """{op: wall ns per call}; thread-CPU ns per call go to cpu[op] and minor page
    faults per call to flt[op] if given."""
    out = subprocess.run([str(exe), str(work), str(n)], env=env_for(runtime, logdir or work, dxt_kib),
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split()
        res[f[0]] = float(f[1])
        if cpu is not None:
            cpu.setdefault(f[0], []).append(float(f[2]))
        if flt is not None:
            flt.setdefault(f[0], []).append(float(f[3]))
    return res


def callgrind(exe, work, n, runtime, dxt_kib=None, tag=None):
    out = work / f"cg.{tag or ('rt' if runtime else 'base')}"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe), str(work), str(n)],
                   env=env_for(runtime, work, dxt_kib), capture_output=True, check=True)
    # --threshold=100: every function (with tracing, the log compression at exit
    # would push the loop functions under the default 0.1 % cut)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                          capture_output=True, text=True).stdout
    res = {}
    for op, fn in FUNCS.items():
        m = re.search(r"^\s*([\d,]+) .*:" + fn + r" \[", text, re.M)
        res[op] = int(m.group(1).replace(",", "")) / n if m else float("nan")
    # the runtime's shutdown (log writing), total instructions
    m = re.search(r"^\s*([\d,]+) .*:iol_core_shutdown \[", text, re.M)
    res["_shutdown"] = int(m.group(1).replace(",", "")) if m else 0
    return res


def peak_rss(cmd, env):
    """Peak resident KiB of cmd, measured in a fresh interpreter (ru_maxrss of
    children is a running maximum, so each measurement needs its own parent)."""
    probe = ("import resource,subprocess,sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run(["python3", "-c", probe, *cmd], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def log_size(exe, work, n, op, runtime, dxt_kib):
    """Run n calls of op alone; return (log bytes, process wall s, DXT segments kept
    or None without tracing, partial flag, minor page faults)."""
    d = Path(tempfile.mkdtemp(prefix="log-", dir=work))
    t = time.perf_counter()
    p = subprocess.Popen([str(exe), str(d), str(n), "only", op], env=env_for(runtime, d, dxt_kib),
                         stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    t = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, (op, p.returncode)
    logs = list(d.glob("*.darshan"))
    assert len(logs) == 1, logs
    size = logs[0].stat().st_size
    segs, partial = None, False
    if dxt_kib is not None:
        txt = subprocess.run([str(IOLENS), "dxt", "--show-incomplete", str(logs[0])],
                             capture_output=True, text=True).stdout
        m = re.search(r"write_count: (\d+), read_count: (\d+)", txt)
        segs = int(m.group(1)) + int(m.group(2)) if m else 0
        partial = "incomplete" in txt
    for f in d.iterdir():
        f.unlink()
    d.rmdir()
    return size, t, segs, partial, ru.ru_minflt


def pwrite_pairs(args, exe, work):
    """args.dxt_pairs alternating runs of args.n pwrites alone, tracing off then on:
    lists of (wall, thread-CPU, faults) per call for off and on."""
    off, on = [], []
    kib = run_budget_kib(args.n, ["pwrite_1B"])
    for _ in range(args.dxt_pairs):
        for res, k in ((off, None), (on, kib)):
            d = Path(tempfile.mkdtemp(prefix="pair-", dir=work))
            out = subprocess.run([str(exe), str(d), str(args.n), "only", "pwrite_1B"],
                                 env=env_for(args.runtime, d, k), capture_output=True, text=True,
                                 check=True).stdout.split()
            res.append(tuple(float(v) for v in out[1:4]))
            for f in d.iterdir():
                f.unlink()
            d.rmdir()
    return off, on


def dxt_report(args, exe, work, base, rt, dxt, extra, cg_base, cg_rt):
    cpu_rt, cpu_dxt, flt_rt, flt_dxt = extra
    kib = run_budget_kib(args.cg_n)
    cg_dxt = callgrind(exe, work, args.cg_n, args.runtime, kib, "dxt")
    cg_drop = callgrind(exe, work, args.cg_n, args.runtime, 1, "dxt-drop")
    med = lambda v: statistics.median(v) if v else float("nan")
    # log size: each traced operation alone, tracing off / on (budget fits all)
    logs = {}
    for op in TRACED:
        k = run_budget_kib(args.dxt_n, [op])
        off = [log_size(exe, work, args.dxt_n, op, args.runtime, None) for _ in range(3)]
        on = [log_size(exe, work, args.dxt_n, op, args.runtime, k) for _ in range(3)]
        segs = on[0][2]
        assert segs == args.dxt_n + SETUP_WRITES and not any(o[3] for o in on), (op, on)
        logs[op] = (med([o[0] for o in off]), med([o[0] for o in on]), segs,
                    med([o[1] for o in off]), med([o[1] for o in on]),
                    med([o[4] for o in on]) - med([o[4] for o in off]))
    # the same pwrite run with the default 2 MiB budget: the trace is cut
    cut = [log_size(exe, work, args.dxt_n, "pwrite_1B", args.runtime, 0) for _ in range(3)]

    print(f"\n### DXT tracing ({args.cg_n} calls under callgrind, budget {kib} KiB; "
          f"wall: median of {args.runs} runs of {args.n} calls)\n")
    print("| operation | extra instr. counters only | with tracing | difference | "
          "difference, budget spent | wall ns off | wall ns on | difference | "
          "thread-CPU difference | page faults / call, difference | log bytes / traced op |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for op in OPS:
        i_rt, i_dxt, i_drop = cg_rt[op] - cg_base[op], cg_dxt[op] - cg_base[op], cg_drop[op] - cg_base[op]
        w_off, w_on = med(rt[op]), med(dxt[op])
        c_off, c_on = med(cpu_rt.get(op, [])), med(cpu_dxt.get(op, []))
        f_d = med(flt_dxt.get(op, [])) - med(flt_rt.get(op, []))
        lb = ""
        if op in logs:
            off, on, segs = logs[op][:3]
            lb = f"{(on - off) / segs:.1f}"
        print(f"| {op} | {i_rt:.0f} | {i_dxt:.0f} | {i_dxt - i_rt:+.0f} | {i_drop - i_rt:+.0f} | "
              f"{w_off:.0f} | {w_on:.0f} | {w_on - w_off:+.0f} | {c_on - c_off:+.0f} | {f_d:.4f} | {lb} |")

    print(f"\nlog size, {args.dxt_n} calls of one operation alone (+{SETUP_WRITES} traced set-up "
          f"writes), medians of 3 runs:\n")
    print("| operation | log bytes off | log bytes on | segments | bytes / segment (raw 32) | "
          "process wall extra per segment (loop + log writing) | extra page faults per segment, whole process |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for op, (off, on, segs, t_off, t_on, flt) in logs.items():
        print(f"| {op} | {off:.0f} | {on:.0f} | {segs} | {(on - off) / segs:.1f} | "
              f"{(t_on - t_off) * 1e9 / segs:+.0f} ns | {flt / segs:.4f} |")
    c_size, c_segs = med([c[0] for c in cut]), cut[0][2]
    off = logs["pwrite_1B"][0]
    print(f"| pwrite_1B, default 2 MiB budget (trace cut, partial={cut[0][3]}) | {off:.0f} | "
          f"{c_size:.0f} | {c_segs} kept of {args.dxt_n + SETUP_WRITES} | "
          f"{(c_size - off) / c_segs:.1f} | | |")

    # first touch of a page: what the trace pays every 4 KiB of segments
    # (thread-CPU time: the fault is the thread's own kernel time; wall adds preemption)
    fault = [float(subprocess.run([str(exe), str(work), "20000", "faults"], capture_output=True,
                                  text=True, check=True).stdout.split()[2]) for _ in range(5)]
    fault_ns = med(fault)
    if flt_dxt:     # faults inside the timed pwrite loop (1 per 128 segments)
        flt_pw = med(flt_dxt["pwrite_1B"]) - med(flt_rt["pwrite_1B"])
    else:           # --runs 0: measured in the paired runs below, if any
        flt_pw = None

    # instructions per ns of plain user-space code (glibc's buffered fwrite/fread),
    # to turn instruction counts into ns when the wall medians are noise
    rates = [cg_base[op] / med(base[op]) for op in ("fwrite_1B", "fread_1B") if base[op]]
    d_pw = cg_dxt["pwrite_1B"] - cg_rt["pwrite_1B"]
    print()
    print(f"page fault (first touch of an anonymous page): {fault_ns:.0f} ns thread-CPU (median of 5 x 20000)"
          + (f"; tracing adds {flt_pw:.4f} per pwrite = {flt_pw * fault_ns:.1f} ns per pwrite"
             if flt_pw is not None else ""))
    if rates and flt_pw is not None:
        ipns = statistics.mean(rates)
        print(f"instructions per ns (plain fwrite/fread, callgrind count / wall median): {ipns:.2f}; "
              f"tracing's {d_pw:.0f} extra instructions per pwrite ~ {d_pw / ipns:.1f} ns; "
              f"with the page faults ~ {d_pw / ipns + flt_pw * fault_ns:.1f} ns per pwrite")
    segs = SETUP_WRITES + len(TRACED) * args.cg_n
    sd = cg_dxt["_shutdown"] - cg_rt["_shutdown"]
    print(f"shutdown (log writing, mostly zlib) with tracing: +{sd} instructions for {segs} segments "
          f"= {sd / segs:.0f} per traced op, outside the loop")
    w_pw = med(dxt["pwrite_1B"]) - med(rt["pwrite_1B"])
    if args.dxt_pairs:
        off, on = pwrite_pairs(args, exe, work)
        dw = [b[0] - a[0] for a, b in zip(off, on)]
        dc = [b[1] - a[1] for a, b in zip(off, on)]
        print(f"pwrite alone, {args.dxt_pairs} alternating off/on runs of {args.n} calls: "
              f"wall median {med([o[0] for o in off]):.0f} / {med([o[0] for o in on]):.0f} ns, "
              f"thread-CPU median {med([o[1] for o in off]):.0f} / {med([o[1] for o in on]):.0f} ns; "
              f"median of the paired differences: wall {med(dw):+.1f} ns, thread-CPU {med(dc):+.1f} ns "
              f"(quartiles {statistics.quantiles(dc, n=4)[0]:+.0f} .. {statistics.quantiles(dc, n=4)[2]:+.0f}); "
              f"page faults per call on {med([o[2] for o in on]):.5f}")
        flt_pairs = med([o[2] for o in on]) - med([o[2] for o in off])
        print(f"page faults tracing adds per pwrite (paired runs): {flt_pairs:.5f} = "
              f"{flt_pairs * fault_ns:.1f} ns at {fault_ns:.0f} ns per fault")
    print(f"pwrite tracing extra: {d_pw:.0f} instructions"
          + (f", wall median {w_pw:+.0f} ns" if args.runs else "")
          + f" (target <= {UPSTREAM_DXT_NS // 2} ns, upstream ~{UPSTREAM_DXT_NS} ns)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get("IOLENS_RUNTIME", REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--cg-n", type=int, default=20_000)
    ap.add_argument("--dxt", action="store_true", help="also measure DXT tracing (second table)")
    ap.add_argument("--dxt-n", type=int, default=100_000, help="calls per log-size run (--dxt)")
    ap.add_argument("--dxt-pairs", type=int, default=15,
                    help="alternating off/on runs of N pwrites alone (--dxt; 0 = none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="iolens-bench-") as tmp:
        work = Path(tmp)
        exe = work / "opbench"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(HERE / "opbench.c")], check=True)
        base, rt, dxt = {op: [] for op in OPS}, {op: [] for op in OPS}, {op: [] for op in OPS}
        cpu_rt, cpu_dxt, flt_rt, flt_dxt = {}, {}, {}, {}
        runs = [(base, None, None, None, None), (rt, args.runtime, None, cpu_rt, flt_rt)]
        if args.dxt:
            runs.append((dxt, args.runtime, run_budget_kib(args.n), cpu_dxt, flt_dxt))
        for _ in range(args.runs):
            for res, lib, kib, cpu, flt in runs:
                logdir = Path(tempfile.mkdtemp(prefix="logs-", dir=work))
                for op, ns in timed_run(exe, work, args.n, lib, kib, cpu, logdir, flt).items():
                    res[op].append(ns)
                for f in logdir.iterdir():
                    f.unlink()
                logdir.rmdir()
        cg_base = callgrind(exe, work, args.cg_n, None)
        cg_rt = callgrind(exe, work, args.cg_n, args.runtime)
        print("| operation | base ns | extra ns (median) | extra instructions | upstream extra | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for op in OPS:
            # --runs 0: instructions only (about a minute)
            b = statistics.median(base[op]) if base[op] else float("nan")
            r = statistics.median(rt[op]) if rt[op] else float("nan")
            extra_i = cg_rt[op] - cg_base[op]
            up = UPSTREAM.get(op)
            ratio = f"{extra_i / up:.2f}" if up else ""
            print(f"| {op} | {b:.0f} | {r - b:.0f} | {extra_i:.0f} | {up or ''} | {ratio} |")
        # memory: 1500 files (more than the default 1024 POSIX records) with default limits
        many = work / "many"
        many.mkdir()
        cmd = [str(exe), str(many), "1500", "files"]
        m_base, m_rt = peak_rss(cmd, env_for(None, work)), peak_rss(cmd, env_for(args.runtime, work))
        print(f"\npeak RSS, 1500 files: {m_base} KiB without, {m_rt} KiB with the runtime "
              f"(+{m_rt - m_base} KiB)")
        if args.dxt:
            dxt_report(args, exe, work, base, rt, dxt, (cpu_rt, cpu_dxt, flt_rt, flt_dxt), cg_base, cg_rt)


if __name__ == "__main__":
    main()
