"""`iolens diagnose LOG [LOG...] [--json | --sarif] [--fail-on SEVERITY] [--verbose]`."""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import out_json, out_sarif, out_text
from .engine import diagnose, load_thresholds
from .model import SEVERITIES, severity_rank
from .summary import summarise

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="iolens diagnose",
        description="Find I/O problems in Darshan/iolens logs, with evidence and fixes. "
                    "Several logs: a summary of the findings common to all runs and those "
                    "seen in some.")
    p.add_argument("logs", nargs="+", metavar="LOG")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="JSON (schema: iolens/diagnose/schema.json)")
    fmt.add_argument("--sarif", action="store_true", help="SARIF 2.1.0 for CI systems")
    p.add_argument("--fail-on", choices=SEVERITIES, metavar="SEVERITY",
                   help="exit with status 1 if a finding at this severity or worse exists "
                        f"({', '.join(SEVERITIES)})")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="show code/configuration snippets and how each time was estimated")
    p.add_argument("--thresholds", metavar="FILE",
                   help="TOML file overriding thresholds.toml values")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("-o", "--output", help="write to FILE instead of standard output")
    return p.parse_args(argv)


def _colour(args, stream) -> bool:
    if args.color == "always":
        return True
    return args.color == "auto" and stream.isatty() and "NO_COLOR" not in os.environ


def run(args) -> int:
    from ..errors import LogError
    thresholds = load_thresholds(args.thresholds)
    diags, errors = [], []
    for path in args.logs:
        try:
            diags.append(diagnose(path, thresholds))
        except (OSError, LogError) as err:
            errors.append(f"{path}: {err}")
            print(f"iolens diagnose: {path}: {err}", file=sys.stderr)
    stream = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        stream.write(_render(args, diags, errors, _colour(args, stream)))
    finally:
        if args.output:
            stream.close()
    if errors:
        return EXIT_ERROR
    if args.fail_on and any(severity_rank(f.severity) <= severity_rank(args.fail_on)
                            for d in diags for f in d.findings):
        return EXIT_FINDINGS
    return EXIT_OK


def _render(args, diags, errors, colour) -> str:
    if args.sarif:
        return out_sarif.dumps(diags)
    if args.json:
        if len(args.logs) == 1 and diags:
            return out_json.dumps(diags[0])
        return json.dumps({"schema_version": out_json.SCHEMA_VERSION,
                           "runs": [out_json.to_dict(d) for d in diags],
                           "summary": summarise(diags, errors)}, indent=2) + "\n"
    text = "".join(out_text.render(d, colour, args.verbose) + "\n" for d in diags)
    if len(args.logs) > 1:
        text += out_text.render_summary(summarise(diags, errors), colour)
    return text


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except (OSError, ValueError) as err:
        print(f"iolens diagnose: {err}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
