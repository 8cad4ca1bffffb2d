"""The terminal report: root causes grouped by severity, each with its estimated
cost now and at scale, its evidence and the findings it explains; --verbose adds
snippets and time bases, --explain every rule checked and why."""
from __future__ import annotations

from .._text import printable
from .model import SEVERITIES

COLOURS = {"critical": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m",
           "ok": "\033[32m"}
RESET, DIM = "\033[0m", "\033[2m"


def render(diag, colour: bool = False, verbose: bool = False, explain: bool = False) -> str:
    """One root cause per entry, under the worst severity among its findings: the
    root finding, its cost now and at scale, then the findings it explains."""
    def paint(text, code):
        return f"{code}{text}{RESET}" if colour else text

    job = diag.job
    out = [f"{diag.path}: {job.get('nprocs', '?')} processes, "
           f"{float(job.get('run_time') or 0):.0f} s, {_count(len(diag.findings), 'finding')} in "
           f"{_count(len(diag.groups), 'root cause')}"]
    most = diag.most_lost(1)
    if most:
        proc, lost, io = most[0]
        who = "processes without records of their own" if proc == "others" else f"rank {proc}"
        out.append(f"time lost, summed over the root causes: at most {lost:.2f} s on one "
                   f"process ({who}, of its {io:.2f} s of I/O)")
    for sev in SEVERITIES:
        groups = [g for g in diag.groups if g.severity == sev]
        if not groups:
            continue
        out.append("")
        out.append(paint(f"{sev.upper()} ({len(groups)})", COLOURS[sev]))
        for g in groups:
            out += _finding(g.root, g.time_lost, paint, verbose, "  ")
            if g.members:
                out.append(f"      explains ({len(g.members)}), counted in the time above:")
            for f in g.members:
                out += _finding(f, None, paint, verbose, "        ")
    if not diag.findings:
        out.append("no findings")
    for note in diag.notes:
        out.append(paint(f"note: {note}", DIM))
    if explain:
        out += explain_lines(diag)
    else:
        out.append(paint("(--explain lists every rule checked, with the measured values "
                         "against the thresholds in force)", DIM))
    return printable("\n".join(out) + "\n")   # names that are not UTF-8 as \xNN


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _finding(f, time_lost, paint, verbose, pad) -> list:
    code = COLOURS[f.severity]
    shown = f.hit.time_lost if time_lost is None else time_lost
    cost = f" ~{shown:.2f} s/process" if shown > 0 else ""
    tag = f"[{f.rule.id}]" + ("" if time_lost is not None else f" ({f.severity})")
    out = [f"{pad}{paint(tag, code)} {f.hit.message}{paint(cost, DIM)}"]
    out += [f"{pad}    {line}" for line in f.hit.evidence]
    if f.projection and f.hit.time_lost > 0:
        out.append(f"{pad}    at scale: {f.projection.text}")
    if time_lost is not None:
        out.append(f"{pad}    -> {f.rule.recommendation}")
    if verbose:
        if f.hit.time_basis:
            out.append(paint(f"{pad}    (time: {f.hit.time_basis})", DIM))
        for line in (f.snippet or "").splitlines():
            out.append(f"{pad}      {line}")
    return out


def explain_lines(diag) -> list:
    """Every rule checked: fired, silent or failed, its condition with the
    thresholds in force, and each test it made with the measured value."""
    out = ["", f"RULES CHECKED ({len(diag.checks)})"]
    for check in diag.checks:
        out.append(f"  [{check['rule']}] {check['status']}")
        out.append(f"      condition: {check['condition']}")
        out += [f"      {t}" for t in check["tests"]]
    return out


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
