"""The command-line contract every Python verb shares (docs/cli.md), in one place:

- ``iolens VERB --help`` and ``--version`` (:func:`make_parser`);
- a usage error (bad option or value, contradictory flags, an output naming an
  input) prints ``iolens VERB: what is wrong`` and the usage line, status 2;
- a failure prints one line ``iolens VERB: PATH: what went wrong`` (the path
  once, no traceback, no ``[Errno N]``), status 1;
- SIGTERM and SIGHUP end the verb the way Ctrl-C does, so that a partial output
  is removed (iolens._output).
"""
from __future__ import annotations

import argparse
import os
import signal
import sys

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A usage error found after the arguments were parsed (exit status 2)."""


class VerbError(Exception):
    """A failure the verb names itself: ``VerbError(path, what)`` (exit status 1)."""

    def __init__(self, path, what: str):
        super().__init__(f"{_shown(path)}: {what}" if path is not None else what)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n{self.format_usage()}")


def version() -> str:
    # The distribution's version, the same string the C verbs print (both come
    # from the one project version); read without importing the data layer.
    from importlib.metadata import PackageNotFoundError, version as dist_version
    try:
        return dist_version("iolens")
    except PackageNotFoundError:
        return "unknown"


def make_parser(verb: str, **kw) -> argparse.ArgumentParser:
    """The verb's parser: prog ``iolens VERB``, ``--version``, usage errors as above."""
    p = _Parser(prog=f"iolens {verb}", **kw)
    p.add_argument("--version", action="version", version=f"iolens {verb} {version()}",
                   help="print the version and exit")
    return p


def port(text: str) -> int:
    """argparse type of a TCP port (0 = any free one)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0 to 65535)")
    return value


def _shown(path) -> str:
    return os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)


def describe(err: BaseException, path=None) -> str:
    """One line "PATH: what went wrong" for an error met while working on ``path``."""
    from ._output import OutputError
    if isinstance(err, (OutputError, VerbError, UsageError)):
        return str(err)
    if isinstance(err, OSError) and not _is_log_error(err):
        where = err.filename if err.filename is not None else path
        what = err.strerror or str(err)
        return f"{_shown(where)}: {what}" if where is not None else what
    if isinstance(err, MemoryError) and not str(err):
        text = "out of memory"
    else:
        text = str(err)
    if path is None:
        return text
    # The reader names the path (decoded with "replace" when it is not UTF-8):
    # name it once, as given.
    for named in {_shown(path), os.fsencode(_shown(path)).decode("utf-8", "replace")}:
        if text.startswith(named + ": "):
            text = text[len(named) + 2:]
    return f"{_shown(path)}: {text}"


def _is_log_error(err) -> bool:
    from .errors import LogError
    return isinstance(err, LogError)


def say(prog: str, line: str) -> None:
    """One line on stderr; a byte of a file name that is not UTF-8 shows as ``\\xNN``
    (as everywhere the Python verbs show names: iolens._text)."""
    from ._text import printable
    print(printable(f"{prog}: {line}"), file=sys.stderr)


def _end_like_ctrl_c(signum, frame):
    raise SystemExit(128 + signum)


def _catch_termination() -> None:
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, _end_like_ctrl_c)
    except ValueError:          # not the main thread (a verb called from a test's thread)
        pass


def run_verb(prog: str, parse_args, run, argv=None, subject=None) -> int:
    """Parse, run, and map errors to the contract above.  ``subject(args)`` is the
    path a failure is about when its message names none (the verb's one input)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from ._output import OutputIsInputError
    from .errors import LogError
    _catch_termination()
    path = subject(args) if subject else None
    try:
        return run(args)
    except (UsageError, OutputIsInputError) as err:
        say(prog, str(err))
        return EXIT_USAGE
    except (LogError, OSError, MemoryError, VerbError) as err:
        say(prog, describe(err, path))
        return EXIT_FAILURE
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
