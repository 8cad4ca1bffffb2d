"""The terminal report: grouped by severity, one line per finding with its
estimated cost, then its evidence; --verbose adds recommendations' snippets."""
from __future__ import annotations

from .._text import printable
from .model import SEVERITIES

COLOURS = {"critical": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m",
           "ok": "\033[32m"}
RESET, DIM = "\033[0m", "\033[2m"


def render(diag, colour: bool = False, verbose: bool = False) -> str:
    def paint(text, code):
        return f"{code}{text}{RESET}" if colour else text

    job = diag.job
    out = [f"{diag.path}: {job.get('nprocs', '?')} processes, "
           f"{float(job.get('run_time') or 0):.0f} s, {len(diag.findings)} findings"]
    for sev in SEVERITIES:
        group = [f for f in diag.findings if f.severity == sev]
        if not group:
            continue
        out.append("")
        out.append(paint(f"{sev.upper()} ({len(group)})", COLOURS[sev]))
        for f in group:
            cost = f" ~{f.hit.time_lost:.2f} s/process" if f.hit.time_lost > 0 else ""
            out.append(f"  {paint('[' + f.rule.id + ']', COLOURS[sev])} {f.hit.message}"
                       f"{paint(cost, DIM)}")
            out += [f"      {line}" for line in f.hit.evidence]
            out.append(f"      -> {f.rule.recommendation}")
            if verbose:
                if f.hit.time_basis:
                    out.append(paint(f"      (time: {f.hit.time_basis})", DIM))
                for line in (f.snippet or "").splitlines():
                    out.append(f"        {line}")
    if not diag.findings:
        out.append("no findings")
    for note in diag.notes:
        out.append(paint(f"note: {note}", DIM))
    return printable("\n".join(out) + "\n")   # names that are not UTF-8 as \xNN


def render_summary(summary: dict, colour: bool = False) -> str:
    out = [f"{summary['runs']} logs diagnosed"]
    for title, key in (("in every run", "in_all"), ("in some runs", "in_some")):
        rows = summary[key]
        out.append(f"\nfindings {title} ({len(rows)}):")
        for row in rows:
            tag = f"[{row['rule']}]"
            sev = COLOURS[row["severity"]] + tag + RESET if colour else tag
            out.append(f"  {sev} {row['title']}: {row['count']}/{summary['runs']} runs, "
                       f"~{row['time_lost_seconds']:.2f} s/process in total")
            if key == "in_some":
                out.append(f"      in: {', '.join(row['logs'])}")
    for err in summary["errors"]:
        out.append(f"error: {err}")
    return printable("\n".join(out) + "\n")   # names that are not UTF-8 as \xNN
