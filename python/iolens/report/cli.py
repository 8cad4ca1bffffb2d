"""`iolens report LOG [-o report.html] [--pdf report.pdf] [--file PATH]`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .page import render
from .pdf import write_pdf
from .progress import Progress
from .source import ReportData


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="iolens report",
        description="Write a self-contained HTML (and optionally PDF) summary of one log.")
    parser.add_argument("--version", action="version", version=f"iolens report {_version()}",
                        help="print the version and exit")
    parser.add_argument("log", help="log file (.darshan)")
    parser.add_argument("-o", "--output", help="HTML file to write "
                        "(default: <log name>.report.html in the current directory, "
                        "unless only --pdf is given)")
    parser.add_argument("--pdf", help="also (or only) write the report as a PDF file")
    parser.add_argument("--file", metavar="PATH",
                        help="restrict the report to the records of one file")
    return parser.parse_args(argv)


def _version() -> str:
    # The distribution's version, the same string the C verbs print (both come
    # from the one project version); read without importing the data layer.
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("iolens")
    except PackageNotFoundError:
        return "unknown"


def default_output(log: str) -> Path:
    name = Path(log).name
    stem = name[: -len(".darshan")] if name.endswith(".darshan") else name
    return Path.cwd() / f"{stem}.report.html"


def open_log(path: str):
    import iolens  # the data layer; imported late so --help works without it
    return iolens.open(path)


def run(args) -> int:
    # Progress goes to stderr, and only when it is a terminal (progress.py).
    progress = Progress(total=1 + bool(args.pdf))
    progress.note(f"opening {args.log}")
    with open_log(args.log) as log:
        data = ReportData(log, file=args.file)
        if args.file is not None and not _file_known(data):
            progress.clear()
            print(f"iolens report: no records for file {args.file!r} in {args.log}",
                  file=sys.stderr)
            return 1
        text = render(data, progress)
        progress.step("writing the page")
        if args.output or not args.pdf:
            out = Path(args.output) if args.output else default_output(args.log)
            out.write_text(text, encoding="utf-8")
        if args.pdf:
            progress.step("printing the PDF")
            engine = write_pdf(data, text, Path(args.pdf))
    progress.done("iolens report: done")
    if args.output or not args.pdf:
        print(f"report written to {out.resolve()}")
    if args.pdf:
        print(f"PDF report written to {Path(args.pdf).resolve()} (via {engine})")
    return 0


def _file_known(data) -> bool:
    names = getattr(data.log, "names", None) or {}
    values = names.values() if isinstance(names, dict) else names
    return data.file in set(values)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from ..errors import LogError
    try:
        return run(args)
    except LogError as err:          # its message names the path once
        print(f"iolens report: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        where = err.filename if err.filename is not None else args.log
        print(f"iolens report: {where}: {err.strerror or err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
