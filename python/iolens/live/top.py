"""`iolens top`: the jobs on this node and a chosen job's I/O, refreshed live.

Reads the running processes' safety copies (docs/live.md); a user sees the
copies they can read (their own: the copies are 0600), root sees all.
"""
from __future__ import annotations

import json
import sys
import time

from .view import LiveView, job_of, snapshot_once

SORTS = ("bytes_per_s", "ops_per_s", "meta_ops_per_s", "running_seconds", "jobid")


def parse_args(argv):
    from .._verb import make_parser
    p = make_parser("top", description="Live I/O of the jobs on this node, read from the "
                    "safety copies of their running processes (docs/live.md).")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                   help="refresh interval (default 1 s)")
    p.add_argument("--once", action="store_true",
                   help="print one snapshot (rates over one interval) and exit")
    p.add_argument("--json", action="store_true", help="with --once: JSON for scripts")
    p.add_argument("--job", type=int, help="the job to show (default: the busiest)")
    p.add_argument("--dir", action="append", default=[], metavar="DIR",
                   help="where the copies are (default DARSHAN_MMAP_LOGPATH, else /dev/shm "
                        "and /tmp; iolens-run-* directories inside are searched too); repeatable")
    args = p.parse_args(argv)
    if args.interval < 0:
        p.error("--interval must not be negative")
    if args.json and not args.once:
        p.error("--json needs --once")
    return args


def _human(n: float, unit: str = "B") -> str:
    for prefix in ("", "Ki", "Mi", "Gi", "Ti"):
        if abs(n) < 1024 or prefix == "Ti":
            return f"{n:.0f} {unit}" if not prefix else f"{n:.1f} {prefix}{unit}"
        n /= 1024
    return f"{n:.1f}"


def _ago(s) -> str:
    return "-" if s is None else f"{s:.1f} s"


def render(jobs, chosen, sort="bytes_per_s", filt="", limit=None) -> list:
    """The screen as lines: the job table, then the chosen job's detail.
    limit: at most that many lines, the others not made (a terminal shows a
    screenful; a node may run hundreds of jobs)."""
    lines = [f"{'JOB':>10} {'USER':<10} {'PROCS':>5} {'DEAD':>4} {'RUNNING':>9} "
             f"{'BYTES/S':>11} {'OPS/S':>9} {'META/S':>8}  EXE   (sort: {sort}"
             f"{', filter: ' + filt if filt else ''})"]
    for j in jobs[:limit]:
        mark = ">" if chosen and j["jobid"] == chosen["jobid"] else " "
        lines.append(f"{mark}{j['jobid']:>9} {j['user'][:10]:<10} {j['processes']:>5} "
                     f"{j['dead']:>4} {j['running_seconds']:>8.0f}s "
                     f"{_human(j['bytes_per_s']) + '/s':>11} {j['ops_per_s']:>9.0f} "
                     f"{j['meta_ops_per_s']:>8.0f}  {j['exe'][:60]}")
    if not chosen:
        lines.append("(no job: no copy readable here)")
        return lines
    if limit is not None and len(lines) >= limit:
        return lines[:limit]
    j = chosen
    lines += ["", f"job {j['jobid']}  {j['exe'][:100]}",
              f"{'LAYER':<6} {'READ/S':>11} {'WRITE/S':>11} {'OPS/S':>9} {'META/S':>8} "
              f"{'READ':>10} {'WRITTEN':>10}"]
    for layer, r in sorted(j["rates"].items()):
        t = j["totals"][layer]
        lines.append(f"{layer:<6} {_human(r['bytes_read']) + '/s':>11} "
                     f"{_human(r['bytes_written']) + '/s':>11} {r['reads'] + r['writes']:>9.0f} "
                     f"{r['meta_ops']:>8.0f} {_human(t['bytes_read']):>10} "
                     f"{_human(t['bytes_written']):>10}")
    if j["partial"]:
        lines.append(f"PARTIAL: {', '.join(j['partial'])} (records or names ran out)")
    s = j["slowest_process"]
    if s:
        lines.append(f"slowest process: rank {s['rank']} pid {s['pid']}, "
                     f"{s['io_seconds']:.2f} s in I/O")
    lines.append("busiest files:")
    for f in j["busiest_files"]:
        lines.append(f"  {_human(f['bytes_per_s']) + '/s':>11} {_human(f['bytes']):>10} "
                     f"{f['layer']:<6} {f['file']}")
    lines.append(f"{'RANK':>5} {'PID':>8} {'STATE':<8} {'LAST I/O':>9} {'BYTES':>10} PARTIAL")
    for p in j["processes_detail"]:
        moved = sum(t["bytes_read"] + t["bytes_written"] for t in p["totals"].values())
        lines.append(f"{p['rank']:>5} {p['pid']:>8} {p['state']:<8} {_ago(p['last_io_ago']):>9} "
                     f"{_human(moved):>10} {','.join(p['partial'])}")
        if p["recover"]:
            lines.append(f"      recover: {p['recover']}")
    return lines


def _sorted(jobs, sort, filt):
    if filt:
        jobs = [j for j in jobs if filt in f"{j['jobid']} {j['user']} {j['exe']}"]
    rev = sort != "jobid"
    return sorted(jobs, key=lambda j: j[sort], reverse=rev)


def _interactive(args) -> int:
    import curses

    def loop(scr):
        curses.curs_set(0)
        scr.timeout(int(args.interval * 1000))
        view = LiveView(args.dir)
        sort, filt, chosen_id = SORTS[0], "", args.job
        try:
            while True:
                view.poll()
                jobs = _sorted(view.jobs(), sort, filt)
                chosen = job_of(jobs, chosen_id) or (jobs[0] if jobs else None)
                if chosen:               # the details of the chosen job only
                    ids = {chosen["jobid"]}
                    chosen = job_of(view.jobs(detail=ids, only=ids), chosen["jobid"])
                    # its files' bytes only, from the next round
                    view.moved_jobs = ids
                scr.erase()
                h, w = scr.getmaxyx()
                lines = render(jobs, chosen, sort, filt, limit=max(h - 1, 0))
                lines.append("keys: up/down choose job, s sort, / filter, q quit")
                for y, line in enumerate(lines[:h - 1]):
                    scr.addnstr(y, 0, line, w - 1)
                scr.refresh()
                key = scr.getch()
                ids = [j["jobid"] for j in jobs]
                here = ids.index(chosen["jobid"]) if chosen else 0
                if key in (ord("q"), 27):
                    return 0
                if key == ord("s"):
                    sort = SORTS[(SORTS.index(sort) + 1) % len(SORTS)]
                elif key in (curses.KEY_DOWN, ord("j")) and ids:
                    chosen_id = ids[min(here + 1, len(ids) - 1)]
                elif key in (curses.KEY_UP, ord("k")) and ids:
                    chosen_id = ids[max(here - 1, 0)]
                elif key == ord("/"):
                    curses.echo()
                    scr.addstr(h - 1, 0, "filter: ")
                    filt = scr.getstr(h - 1, 8, 60).decode(errors="replace").strip()
                    curses.noecho()
        finally:
            view.close()

    return curses.wrapper(loop)


def run(args) -> int:
    if args.once or not sys.stdout.isatty():
        snap = snapshot_once(args.dir, args.interval)
        if args.json:
            json.dump(snap, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            jobs = snap["jobs"]
            print("\n".join(render(jobs, job_of(jobs, args.job))))
        return 0
    return _interactive(args)


def main(argv=None) -> int:
    from .._verb import run_verb
    return run_verb("iolens top", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
