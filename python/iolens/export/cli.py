"""`iolens export (--perfetto | --format perfetto|json) LOG -o OUT
[--time START:END] [--ranks LIST] [--files PATTERN]`."""
from __future__ import annotations

import sys
from pathlib import Path

from .._output import open_output, refuse_inputs
from .._verb import VerbError, make_parser, run_verb
from .source import Selection


def parse_args(argv):
    p = make_parser(
        "export",
        description="Export a log's DXT traces for Perfetto (native protobuf trace) or "
                    "as Chrome trace-event JSON (chrome://tracing, Perfetto UI).  Streams: "
                    "memory does not grow with the trace.")
    p.add_argument("log", help="log file (.darshan)")
    p.add_argument("-o", "--output", required=True, help="file to write")
    p.add_argument("--perfetto", action="store_true", help="same as --format perfetto")
    p.add_argument("--format", choices=("perfetto", "json"), help="output format "
                   "(default perfetto)")
    p.add_argument("--time", metavar="START:END", type=_time_window,
                   help="only operations overlapping this window (seconds since job start; "
                        "either side may be empty: 10:, :2.5)")
    p.add_argument("--ranks", metavar="LIST", type=_rank_list,
                   help="only these ranks: comma-separated numbers and ranges (0,4,8-15)")
    p.add_argument("--files", metavar="PATTERN",
                   help="only files whose full name matches this shell pattern "
                        "('*/out/*.h5'; quote it)")
    p.add_argument("--cache", type=Path, help="accepted and ignored: the export reads the log "
                   "itself and needs no explorer index")
    args = p.parse_args(argv)
    if args.perfetto and args.format == "json":
        p.error("--perfetto and --format json contradict each other")
    args.format = args.format or "perfetto"
    t0, t1 = args.time or (0.0, float("inf"))
    args.selection = Selection(t0, t1, args.ranks, args.files)
    return args


def _time_window(text: str):
    import argparse
    import math
    start, sep, end = text.partition(":")
    try:
        if not sep:
            raise ValueError
        t0 = float(start) if start.strip() else 0.0
        t1 = float(end) if end.strip() else math.inf
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END in seconds") from None
    if math.isnan(t0) or math.isnan(t1) or t0 < 0 or t1 < t0:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= START <= END")
    return t0, t1


def _rank_list(text: str) -> frozenset:
    import argparse
    ranks = set()
    try:
        for part in text.split(","):
            lo, sep, hi = part.strip().partition("-")
            a, b = int(lo), int(hi) if sep else int(lo)
            if a < 0 or b < a or b - a > 10_000_000:
                raise ValueError
            ranks.update(range(a, b + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a rank list like 0,4,8-15") from None
    return frozenset(ranks)


def run(args) -> int:
    import iolens
    from . import chrome_json, model, perfetto
    refuse_inputs([args.output], [args.log])
    with iolens.open(args.log) as log:
        export = model.Export(log, args.selection)
        try:
            for note in _notes(args, log, export):
                print(f"iolens export: {args.log}: {note}", file=sys.stderr)
            if export.nseg == 0:
                if not export.source.modules:
                    raise VerbError(args.log, "no DXT trace to export (record one with "
                                    "`iolens run --trace`)")
                raise VerbError(args.log, "no traced operation to export"
                                + (" in the selection" if "selection" in export.metadata
                                   else ""))
            writer = perfetto if args.format == "perfetto" else chrome_json
            with open_output(args.output, [args.log], binary=True) as out:
                writer.write(export, out)
        finally:
            export.close()
    print(f"{args.format} trace written to {Path(args.output).resolve()} "
          f"({export.nseg} operations on {len(export.placement.tracks)} tracks)")
    return 0


def _notes(args, log, export):
    if export.metadata["partial"] != "no":
        yield (f"the log is partial ({export.metadata['partial'][5:]}): the trace may stop "
               "before the job did")
    if export.damage_note():
        yield export.damage_note()


def main(argv=None) -> int:
    return run_verb("iolens export", parse_args, run, argv, subject=lambda a: a.log)


if __name__ == "__main__":
    sys.exit(main())
