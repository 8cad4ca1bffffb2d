"""`iolens export (--perfetto | --format perfetto|json) LOG -o OUT`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._verb import run_verb


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="iolens export",
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
    with iolens.open(args.log) as log:
        idx = index_for(log, args.cache)
        if idx.nseg == 0:
            print(f"iolens export: {args.log} has no DXT trace to export "
                  "(record one with `iolens run --trace`)", file=sys.stderr)
            return 1
        m = model.build(log, idx)
        note = model.damage_note(idx)
        if note:
            print(f"iolens export: {args.log}: {note}", file=sys.stderr)
    if args.format == "perfetto":
        with open(args.output, "wb") as out:
            perfetto.write(m, out)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            chrome_json.write(m, out)
    print(f"{args.format} trace written to {Path(args.output).resolve()} "
          f"({idx.nseg} operations on {len(m.tracks)} tracks)")
    return 0


def main(argv=None) -> int:
    return run_verb("iolens export", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
