"""Finding log files and opening them as hostile input.

A log directory is writable by many users, so any path in it may be a FIFO, a
device, a symlink to /dev/zero or a second name of a log already seen.  Here:

- `find_logs` names every log once: two paths of one file (a symlink beside its
  target, hard links) are one log, the first in sorted order;
- `regular_file` refuses anything but a regular file (after symlinks): it
  checks the path (stat, so a device is never opened), opens it without
  blocking (O_NONBLOCK, so a FIFO swapped in never waits for a writer) and
  checks the opened descriptor again (fstat).  The reader then opens that same descriptor's file through
  /proc/self/fd, so a file swapped in after the check is never read; a regular
  file's size bounds what the reader reads;
- names that are not UTF-8 (Python's surrogateescape strings) are stored as
  iolens._text.printable gives them (\\xNN escapes), text that a Parquet
  string column can hold.  A name that holds a literal backslash-x sequence
  reads the same: the store keeps names to read, the log keeps the bytes.
"""
from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Tuple

from .._text import printable

LOG_SUFFIXES = (".darshan",)
_PROC_FD = "/proc/self/fd"


class NotRegularFileError(OSError):
    """A path named like a log is a FIFO, a device, a directory or a socket."""


@dataclass(frozen=True)
class FileId:
    """The real file behind a path: (device, inode), plus its size and mtime so
    that an inode reused by a later file is not taken for the old one."""
    dev: int
    ino: int
    size: int
    mtime: float

    @classmethod
    def of(cls, st: os.stat_result) -> "FileId":
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime)


def log_key(path: str) -> str:
    """The identity of a log in the store: its resolved absolute path, as text."""
    return printable(os.path.realpath(path))


def _file_id(path: str) -> Optional[FileId]:
    try:
        return FileId.of(os.stat(path))   # follows symlinks; never opens (a FIFO can't block)
    except OSError:
        return None                       # broken link, loop, no permission: extract says why


def _candidates(sources: Iterable[str]) -> Iterator[str]:
    for src in sources:
        if os.path.isdir(src):
            for d, _dirs, names in os.walk(src):
                yield from (os.path.join(d, n) for n in names if n.endswith(LOG_SUFFIXES))
        elif os.path.lexists(src):
            yield src
        else:
            raise FileNotFoundError(f"{printable(src)}: no such log or directory")


def find_logs(sources: Iterable[str]) -> Tuple[List[Tuple[str, Optional[FileId]]], int]:
    """Log files under each source (a directory, walked recursively, or a file),
    sorted so that every run sees them in the same order, each real file once:
    ([(path, file id or None when stat fails)], number of duplicate paths dropped)."""
    out, seen, dropped = [], set(), 0
    for path in sorted(set(_candidates(sources))):
        fid = _file_id(path)
        same = None if fid is None else (fid.dev, fid.ino)
        if same is not None and same in seen:
            dropped += 1
            continue
        seen.add(same)
        out.append((path, fid))
    return out, dropped


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _check_regular(st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFileError(f"{_kind(st.st_mode)}, not a regular file")


@contextlib.contextmanager
def regular_file(path: str) -> Iterator[Tuple[str, os.stat_result]]:
    """(a path the reader can open that names exactly the checked file, its stat).
    Raises NotRegularFileError for anything but a regular file, OSError when the
    path can't be opened.  The descriptor stays open for the `with` block."""
    _check_regular(os.stat(path))   # devices are not even opened (opening some acts)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        st = os.fstat(fd)           # what was opened, if the path changed since the stat
        _check_regular(st)
        # Elsewhere than Linux there is no /proc/self/fd: the path is reopened
        # (a file swapped in between is then read; the C reader's own check applies).
        yield (f"{_PROC_FD}/{fd}" if os.path.isdir(_PROC_FD) else path), st
    finally:
        os.close(fd)
