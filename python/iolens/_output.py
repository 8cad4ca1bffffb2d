"""Writing a verb's output file without ever harming a file that is already there
(docs/cli.md, "Outputs"); the same contract as the C verbs' src/tools/safe_output.h.

- An output that is one of the verb's inputs (same device and inode, so through
  symbolic and hard links) is refused with :class:`OutputIsInputError`, a usage
  error (exit status 2), before anything is written.
- The file is written inside a new private directory (mode 0700) beside its
  destination and renamed over it only when complete: a failed or interrupted run
  leaves the destination as it was (only SIGKILL leaves a ``.iolens-partial-*``
  directory behind).
- The finished file is 0600 (0400 for logs), whatever the umask: a report names the
  same files and command line as its log.
- A symbolic link is written through (its target is replaced); an existing
  destination that is not a regular file (a FIFO, ``/dev/null``) is written directly.
"""
from __future__ import annotations

import errno
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

REPORT_MODE = 0o600     # HTML, PDF, JSON, SARIF, traces
LOG_MODE = 0o400        # logs, as the runtime writes them


class OutputError(OSError):
    """The output cannot be written; str() is one line "PATH: what went wrong"."""

    def __init__(self, path, what: str):
        super().__init__(f"{os.fspath(path)}: {what}")
        self.path, self.what = os.fspath(path), what

    def __str__(self):
        return self.args[0]


class OutputIsInputError(OutputError):
    """The output names one of the inputs: a usage error."""


def refuse_inputs(outputs, inputs) -> None:
    """Raise OutputIsInputError if an output is an input or two outputs are one file.
    Verbs call it before reading anything, so a refused run costs nothing."""
    ids = {}
    for path in inputs:
        try:
            st = os.stat(path)
        except OSError:
            continue            # reading it will fail with its own message
        ids[(st.st_dev, st.st_ino)] = os.fspath(path)
    seen = {}
    for out in outputs:
        if out is None:
            continue
        _refuse_one(os.fspath(out), ids, seen)


def _refuse_one(out: str, ids: dict, seen: dict) -> None:
    try:
        st = os.stat(out)
        key = (st.st_dev, st.st_ino)
    except OSError:
        key = os.path.realpath(out)
    if key in ids:
        other = ids[key]
        raise OutputIsInputError(out, "the output is the input; refusing to overwrite it"
                                 if other == out else f"the output is the same file as the "
                                 f"input {other}; refusing to overwrite it")
    if key in seen:
        raise OutputIsInputError(out, f"the same file as the output {seen[key]}")
    seen[key] = out


@contextmanager
def output_path(dest, inputs=(), mode: int = REPORT_MODE):
    """Yield the path to write ``dest`` at (any writer, a browser included); it
    takes its place at ``dest`` when the block ends without an exception."""
    refuse_inputs([dest], inputs)
    final, direct = _destination(os.fspath(dest))
    if direct:
        yield Path(final)
        return
    parent = os.path.dirname(final) or "."
    try:
        tmpdir = tempfile.mkdtemp(prefix=".iolens-partial-", dir=parent)
    except OSError as err:
        raise _dir_error(os.fspath(dest), parent, err) from None
    path = os.path.join(tmpdir, os.path.basename(final))
    try:
        yield Path(path)
        _commit(path, final, mode, os.fspath(dest))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


@contextmanager
def open_output(dest, inputs=(), binary: bool = False, mode: int = REPORT_MODE):
    """``open()`` for an output file, with the guarantees of the module docstring."""
    # A file name that is not UTF-8 (a surrogate-escaped str) is written as its bytes.
    text = {} if binary else {"encoding": "utf-8", "errors": "surrogateescape"}
    with output_path(dest, inputs, mode) as path:
        with open(path, "wb" if binary else "w", **text) as f:
            yield f


def write_text(dest, text: str, inputs=(), mode: int = REPORT_MODE) -> None:
    with open_output(dest, inputs, mode=mode) as f:
        f.write(text)


def _destination(dest: str):
    """(where the file goes, write it directly?)"""
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        if os.path.islink(dest):
            raise OutputError(dest, "is a symbolic link to a file that does not exist") from None
        return dest, False
    except OSError as err:
        raise OutputError(dest, err.strerror or str(err)) from None
    if os.path.isdir(dest):
        raise OutputError(dest, "is a directory")
    if not os.path.isfile(dest):
        return dest, True                       # a FIFO or a device
    return (os.path.realpath(dest) if os.path.islink(dest) else dest), False


def _dir_error(dest: str, parent: str, err: OSError) -> OutputError:
    if err.errno == errno.ENOENT:
        return OutputError(dest, f"the directory {parent} does not exist")
    if err.errno == errno.ENOTDIR:
        return OutputError(dest, f"{parent} is not a directory")
    return OutputError(dest, f"cannot write in {parent}: {err.strerror}")


def _commit(path: str, final: str, mode: int, shown: str) -> None:
    try:
        with open(path, "rb") as f:             # durable before it takes the name
            os.fsync(f.fileno())
        os.chmod(path, mode)
        os.replace(path, final)
    except OSError as err:
        raise OutputError(shown, err.strerror or str(err)) from None
