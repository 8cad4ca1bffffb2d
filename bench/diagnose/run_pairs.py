#!/usr/bin/env python3
"""Estimates checked against fixes: run each pair of programs (a known bad I/O
pattern and its fix) under the iolens MPI runtime, diagnose the bad run, and
compare the time lost it estimates with the time the fix saved.

    .venv/bin/python bench/diagnose/run_pairs.py [--repeat 3] [--scale 1] [--np 4]
                                                 [--pairs small_writes,...] [--json FILE]

Each program (bench/diagnose/<pair>.c) times its own I/O phase between two
barriers and prints io_seconds.  Runs are interleaved (bad, fixed, next pair,
..., then the next repetition) so drifting machine load falls on both sides;
the table shows medians.  measured saving = bad - fixed; ratio = estimate /
saving (1 is exact; the goal is between 0.5 and 2).  The estimate is the
time_lost_seconds of the finding the pair is about (its rule); 0 when that
rule stays silent (the table says in how many runs it fired).
Results are recorded in docs/diagnosis.md ("Estimates checked against fixes")."""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# pair -> the rule whose estimate is checked
PAIRS = {
    "small_writes": "small-io",
    "rank0_output": "rank0-io",
    "mpiio_collective": "no-collective",
    "open_per_write": "open-close",
    "random_reads": "random-access",
    "unaligned": "misaligned-file",
}


def runtime() -> Path:
    env = os.environ.get("IOLENS_MPI_RUNTIME_OPENMPI")
    path = Path(env) if env else REPO / "build" / "src" / "runtime" / "libiolens-mpi.so"
    if not path.is_file():
        sys.exit(f"no MPI runtime at {path}: build it (cmake --build build) or set "
                 "IOLENS_MPI_RUNTIME_OPENMPI")
    return path


def compile_pair(name: str, out: Path, cc: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    exe = out / name
    subprocess.run([cc, "-O2", "-o", str(exe), str(HERE / f"{name}.c")], check=True)
    return exe


def run_once(exe: Path, mode: str, args, work: Path, rt: Path) -> tuple:
    """(io seconds printed by the program, path of its log)."""
    data, logs = work / f"data-{mode}", work / f"logs-{mode}"
    for d in (data, logs):
        d.mkdir(parents=True, exist_ok=True)
        for f in d.iterdir():
            f.unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(LD_PRELOAD=str(rt), DARSHAN_LOGPATH=str(logs), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [args.mpiexec, "-n", str(args.np), "--oversubscribe", "-x", "LD_PRELOAD",
           "-x", "DARSHAN_LOGPATH", str(exe), str(data), mode, str(args.scale)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if r.returncode:
        raise RuntimeError(f"{exe.name} {mode}: rc={r.returncode}\n{r.stdout}{r.stderr}")
    m = re.search(r"io_seconds=([0-9.]+)", r.stdout)
    found = sorted(logs.glob("*.darshan"))
    if not m or len(found) != 1:
        raise RuntimeError(f"{exe.name} {mode}: no timing or not one log\n{r.stdout}{r.stderr}")
    return float(m.group(1)), found[0]


def estimate(log: Path, rule: str) -> tuple:
    """(estimated seconds, whether the pair's rule fired, every rule that fired).
    A silent rule estimates 0 s: the diagnosis told the user nothing to fix."""
    from iolens.diagnose import diagnose
    diag = diagnose(str(log))
    fired = {f.rule.id: f.hit.time_lost for f in diag.findings}
    return fired.get(rule, 0.0), rule in fired, sorted(fired)


def measure(args) -> dict:
    rt = runtime()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="iolens-pairs-"))
    work.mkdir(parents=True, exist_ok=True)
    names = args.pairs.split(",") if args.pairs else list(PAIRS)
    exes = {n: compile_pair(n, work / "bin", args.cc) for n in names}
    rows = {n: {"bad": [], "fixed": [], "estimate": [], "hits": 0, "fired": set()}
            for n in names}
    for _ in range(args.repeat):
        for n in names:
            for mode in ("bad", "fixed"):
                seconds, log = run_once(exes[n], mode, args, work / n, rt)
                rows[n][mode].append(seconds)
                if mode == "bad":
                    est, hit, fired = estimate(log, PAIRS[n])
                    rows[n]["estimate"].append(est)
                    rows[n]["hits"] += int(hit)
                    rows[n]["fired"].update(fired)
    return {n: summarise(n, r) for n, r in rows.items()}


def summarise(name: str, r: dict) -> dict:
    bad, fixed, est = (statistics.median(r[k]) for k in ("bad", "fixed", "estimate"))
    saving = bad - fixed
    return {"pair": name, "rule": PAIRS[name], "bad": bad, "fixed": fixed, "saving": saving,
            "estimate": est, "ratio": est / saving if saving > 0 else None,
            "fired_runs": r["hits"], "fired": sorted(r["fired"]), "runs": len(r["bad"]),
            "each": {k: r[k] for k in ("bad", "fixed", "estimate")}}


def table(results: dict) -> str:
    lines = ["| pair | rule | bad (s) | fixed (s) | saving (s) | estimate (s) | ratio | "
             "findings on the bad run |", "|---|---|---|---|---|---|---|---|"]
    for r in results.values():
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "n/a (no saving)"
        rule = r["rule"] + ("" if r["fired_runs"] == r["runs"]
                            else f" (fired in {r['fired_runs']} of {r['runs']} runs)")
        lines.append(f"| {r['pair']} | {rule} | {r['bad']:.3f} | {r['fixed']:.3f} | "
                     f"{r['saving']:.3f} | {r['estimate']:.3f} | {ratio} | "
                     f"{', '.join(r['fired']) or '-'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="work multiplier (pytest: small)")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--pairs", default="", help="comma-separated subset of " + ",".join(PAIRS))
    ap.add_argument("--workdir", default="")
    ap.add_argument("--cc", default="mpicc.openmpi")
    ap.add_argument("--mpiexec", default="mpiexec.openmpi")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--json", default="", help="also write the results here")
    args = ap.parse_args()
    results = measure(args)
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
