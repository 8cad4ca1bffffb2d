"""`iolens diagnose LOG [LOG...] [--json | --sarif] [--fail-on SEVERITY] [--verbose]
[--explain] [--thresholds FILE]`."""
from __future__ import annotations

import json
import os
import sys

from .._output import open_output, refuse_inputs
from .._verb import UsageError, describe, make_parser, run_verb, say
from . import out_json, out_sarif, out_text
from .engine import diagnose, load_thresholds
from .model import SEVERITIES, severity_rank
from .summary import summarise

# A finding at --fail-on and an unreadable log both fail the run (status 1), as
# the other verbs fail on a log they cannot read; 2 is a usage error.
EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 1


def parse_args(argv):
    p = make_parser(
        "diagnose",
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
    p.add_argument("--explain", action="store_true",
                   help="list every rule checked, with the measured values against the "
                        "thresholds in force: why each fired or stayed silent")
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
    refuse_inputs([args.output], [*args.logs, *([args.thresholds] if args.thresholds else [])])
    try:
        thresholds = load_thresholds(args.thresholds)
    except (OSError, ValueError) as err:     # a bad option value: a usage error
        raise UsageError(describe(err, args.thresholds)) from None
    diags, errors = [], []
    for path in args.logs:
        try:
            diags.append(diagnose(path, thresholds))
        except (OSError, LogError, MemoryError) as err:
            errors.append(describe(err, path))
            say("iolens diagnose", errors[-1])
    if args.output and diags:       # none read: OUT stays as it was
        with open_output(args.output, args.logs) as stream:
            stream.write(_render(args, diags, errors, _colour(args, stream), thresholds))
    elif not args.output:
        sys.stdout.write(_render(args, diags, errors, _colour(args, sys.stdout), thresholds))
    if errors:
        return EXIT_ERROR
    if args.fail_on and any(severity_rank(f.severity) <= severity_rank(args.fail_on)
                            for d in diags for f in d.findings):
        return EXIT_FINDINGS
    return EXIT_OK


def _render(args, diags, errors, colour, thresholds) -> str:
    if args.sarif:
        return out_sarif.dumps(diags, thresholds)
    if args.json:
        if len(args.logs) == 1 and diags:
            return out_json.dumps(diags[0], args.explain)
        return json.dumps({"schema_version": out_json.SCHEMA_VERSION,
                           "runs": [out_json.to_dict(d, args.explain) for d in diags],
                           "summary": summarise(diags, errors)}, indent=2) + "\n"
    text = "".join(out_text.render(d, colour, args.verbose, args.explain) + "\n" for d in diags)
    if len(args.logs) > 1:
        text += out_text.render_summary(summarise(diags, errors), colour)
    return text


def main(argv=None) -> int:
    return run_verb("iolens diagnose", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
