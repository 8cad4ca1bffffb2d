"""`iolens report LOG [-o report.html] [--pdf report.pdf] [--file PATH]`."""
from __future__ import annotations

import sys
from pathlib import Path

from .._output import output_path, refuse_inputs, write_text
from .._verb import VerbError, make_parser, run_verb

from .page import render
from .pdf import write_pdf
from .progress import Progress
from .source import ReportData


def parse_args(argv):
    parser = make_parser(
        "report",
        description="Write a self-contained HTML (and optionally PDF) summary of one log.")
    parser.add_argument("log", help="log file (.darshan)")
    parser.add_argument("-o", "--output", help="HTML file to write "
                        "(default: <log name>.report.html in the current directory, "
                        "unless only --pdf is given)")
    parser.add_argument("--pdf", help="also (or only) write the report as a PDF file")
    parser.add_argument("--file", metavar="PATH",
                        help="restrict the report to the records of one file")
    return parser.parse_args(argv)


def default_output(log: str) -> Path:
    name = Path(log).name
    stem = name[: -len(".darshan")] if name.endswith(".darshan") else name
    return Path.cwd() / f"{stem}.report.html"


def open_log(path: str):
    import iolens  # the data layer; imported late so --help works without it
    return iolens.open(path)


def run(args) -> int:
    html = (Path(args.output) if args.output else default_output(args.log)) \
        if args.output or not args.pdf else None
    refuse_inputs([html, args.pdf], [args.log])      # before any work
    # Progress goes to stderr, and only when it is a terminal (progress.py).
    progress = Progress(total=1 + bool(args.pdf))
    progress.note(f"opening {args.log}")
    with open_log(args.log) as log:
        data = ReportData(log, file=args.file)
        if args.file is not None and not _file_known(data):
            progress.clear()
            raise VerbError(args.log, f"no records for file {args.file!r}")
        text = render(data, progress)
        progress.step("writing the page")
        if html:
            write_text(html, text, [args.log])
        if args.pdf:
            progress.step("printing the PDF")
            with output_path(args.pdf, [args.log]) as tmp:
                engine = write_pdf(data, text, tmp)
    progress.done("iolens report: done")
    if html:
        print(f"report written to {html.resolve()}")
    if args.pdf:
        print(f"PDF report written to {Path(args.pdf).resolve()} (via {engine})")
    return 0


def _file_known(data) -> bool:
    names = getattr(data.log, "names", None) or {}
    values = names.values() if isinstance(names, dict) else names
    return data.file in set(values)


def main(argv=None) -> int:
    return run_verb("iolens report", parse_args, run, argv, subject=lambda a: a.log)


if __name__ == "__main__":
    sys.exit(main())
