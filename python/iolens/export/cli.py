"""`iolens export (--perfetto | --format perfetto|json) LOG -o OUT`."""
from __future__ import annotations

import sys
from pathlib import Path

from .._output import open_output, refuse_inputs
from .._verb import VerbError, make_parser, run_verb


def parse_args(argv):
    p = make_parser(
        "export",
        description="Export a log's DXT traces for Perfetto (native protobuf trace) or "
                    "as Chrome trace-event JSON (chrome://tracing, Perfetto UI).")
    p.add_argument("log", help="log file (.darshan)")
    p.add_argument("-o", "--output", required=True, help="file to write")
    p.add_argument("--perfetto", action="store_true", help="same as --format perfetto")
    p.add_argument("--format", choices=("perfetto", "json"), help="output format "
                   "(default perfetto)")
    p.add_argument("--cache", type=Path, help="explorer index directory to reuse")
    args = p.parse_args(argv)
    if args.perfetto and args.format == "json":
        p.error("--perfetto and --format json contradict each other")
    args.format = args.format or "perfetto"
    return args


def run(args) -> int:
    import iolens
    from ..explore.index import index_for
    from . import chrome_json, model, perfetto
    refuse_inputs([args.output], [args.log])
    with iolens.open(args.log) as log:
        idx = index_for(log, args.cache)
        if idx.nseg == 0:
            raise VerbError(args.log, "no DXT trace to export (record one with "
                            "`iolens run --trace`)")
        m = model.build(log, idx)
        note = model.damage_note(idx)
        if note:
            print(f"iolens export: {args.log}: {note}", file=sys.stderr)
    binary = args.format == "perfetto"
    with open_output(args.output, [args.log], binary=binary) as out:
        (perfetto if binary else chrome_json).write(m, out)
    print(f"{args.format} trace written to {Path(args.output).resolve()} "
          f"({idx.nseg} operations on {len(m.tracks)} tracks)")
    return 0


def main(argv=None) -> int:
    return run_verb("iolens export", parse_args, run, argv, subject=lambda a: a.log)


if __name__ == "__main__":
    sys.exit(main())
