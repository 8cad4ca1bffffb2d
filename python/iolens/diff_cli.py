"""`iolens diff A B [--json] [--top N]`: what changed between two runs, ranked by
impact (iolens.diff).  Exit status: 0 compared, 1 a log cannot be read, 2 usage."""
from __future__ import annotations

import json
import sys

from ._text import printable
from ._verb import make_parser, run_verb, VerbError, describe
from .diff import as_json, diff_logs
from .diff_regions import diff_regions, region_lines
from .errors import LogError
from .log import Log


def parse_args(argv):
    ap = make_parser(
        "diff",
        description="Compare two runs: volume, operation counts, access sizes, access "
                    "pattern, collective use, file layout, imbalance and time per interface, "
                    "files that appeared or vanished; ranked by impact. Logs with regions: "
                    "each region's figures in both runs, with the deltas.")
    ap.add_argument("a", help="log of the first run")
    ap.add_argument("b", help="log of the second run")
    ap.add_argument("--json", action="store_true", help="print the changes as JSON")
    ap.add_argument("--top", type=int, default=0, help="show only the N highest-impact changes")
    return ap.parse_args(argv)


def run(args) -> int:
    for path in (args.a, args.b):      # name the log that cannot be read
        try:
            Log(path).close()
        except (LogError, OSError) as e:
            raise VerbError(None, describe(e, path)) from None
    changes = diff_logs(args.a, args.b)
    regions = diff_regions(args.a, args.b)      # None: neither run has regions
    if args.top > 0:
        changes = changes[:args.top]
    if args.json:
        json.dump(as_json(args.a, args.b, changes, regions), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    try:
        if not changes:
            print("no differences in how the two runs do I/O")
        for i, c in enumerate(changes, 1):
            print(printable(f"{i:3d}. [{c.aspect}, impact {c.score:.2f}] {c.text}"))
        for line in region_lines(regions) if regions else []:
            print(printable(line))
        sys.stdout.flush()
    except BrokenPipeError:          # `iolens diff A B | head`: the reader has enough
        sys.stderr.close()
    return 0


def main(argv=None) -> int:
    return run_verb("iolens diff", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
