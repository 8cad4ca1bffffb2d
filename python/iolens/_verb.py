"""The shared shape of the Python verbs' main(): parse, run, and turn the errors
a user can cause (unreadable files, bad logs) into one line on stderr and exit 1."""
from __future__ import annotations

import sys


def run_verb(prog: str, parse_args, run, argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from .errors import LogError
    try:
        return run(args)
    except (OSError, LogError) as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 1
