#!/usr/bin/env python3
"""The share of code lines that `duplicates` finds repeated (docs/architecture.md,
"Duplication").  Usage: scripts/duplication-share.py [--repo DIR] [DUPLICATES_OUTPUT]

Without a report file it runs `duplicates --most 200 --seconds 120` over DIR
(default: this repository; the tool must be on PATH).  Repeated lines: for every listed pair, the
lines of its shorter side (one copy of the run is the original), plus 6 lines,
the tool's smallest run, for each of the `+N more runs` it does not list (a lower
bound for those).  Code lines: the non-blank lines that are not only a comment,
in the files `duplicates` reads (git's files with a source or build ending).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIN_RUN = 6
# What `duplicates` reads here: source and build files, not prose or data.
HASH_COMMENT = {".py", ".sh", ".cmake", ".txt", ""}
SLASH_COMMENT = {".c", ".h", ".js", ".css", ".in"}
ROW = re.compile(r"^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)")
MORE = re.compile(r"\(\+(\d+) more runs?\)")


def repeated_lines(report: str) -> tuple[int, int, int]:
    """(pairs, lines of the listed runs, runs only counted)."""
    pairs = lines = more = 0
    for row in report.splitlines():
        m = ROW.match(row)
        if not m:
            continue
        pairs += 1
        lines += min(int(m[3]) - int(m[2]), int(m[6]) - int(m[5])) + 1
        k = MORE.search(row)
        more += int(k[1]) if k else 0
    return pairs, lines, more


def code_lines(path: Path) -> int:
    """Non-blank lines that are not only a comment (a line in a C block comment
    counts as comment; a line with code and a comment counts as code)."""
    ext = path.suffix if path.name != "CMakeLists.txt" else ".cmake"
    n, in_block = 0, False
    for line in path.read_text(errors="replace").splitlines():
        s = line.strip()
        if not s:
            continue
        if ext in SLASH_COMMENT or ext in {".f90", ".html"}:
            if in_block:
                if "*/" in s:
                    in_block = False
                    s = s.split("*/", 1)[1].strip()
                if not s:
                    continue
            if s.startswith("/*"):
                in_block = "*/" not in s
                s = s.split("*/", 1)[1].strip() if "*/" in s else ""
            if not s or s.startswith("//") or (ext == ".f90" and s.startswith("!")):
                continue
        elif ext in HASH_COMMENT and s.startswith("#") and not s.startswith("#!"):
            continue
        n += 1
    return n


def source_files(root: Path) -> list[Path]:
    names = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           cwd=root, capture_output=True, text=True, check=True).stdout.split()
    keep = (".py", ".c", ".h", ".sh", ".cmake", ".f90", ".js", ".css", ".html")
    return [root / n for n in names if (root / n).is_file() and (
            n.endswith(keep) or n.endswith("CMakeLists.txt") or n == ".ci/run")]


def main(argv: list[str]) -> int:
    args = argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    root = ROOT
    if args[:1] == ["--repo"] and len(args) > 1:
        root, args = Path(args[1]).resolve(), args[2:]
    if args:
        try:
            report = Path(args[0]).read_text()
        except OSError as e:
            print(f"duplication-share: cannot read {args[0]}: {e.strerror}", file=sys.stderr)
            return 2
    else:
        report = subprocess.run(["duplicates", "--most", "200", "--seconds", "120"], cwd=root,
                                capture_output=True, text=True, timeout=300).stdout
    head = report.splitlines()[0] if report else "(no output)"
    pairs, listed, more = repeated_lines(report)
    total = sum(code_lines(p) for p in source_files(root))
    repeated = listed + MIN_RUN * more
    print(f"duplicates: {head}")
    print(f"{pairs} pairs listed: {listed} lines in the listed runs, "
          f"{more} more runs counted as {MIN_RUN} lines each")
    print(f"{repeated} repeated lines of {total} code lines = {100 * repeated / total:.2f} %")
    if "more pairs)" in report:
        print("note: --most cut the list; the share above leaves out the pairs not listed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
