"""Where live safety copies are, and which of them this user may read.

A copy is ``<dir>/<user>_<prog>_id<jobid>-<pid>_mmap-log-<hash>-<rank>.darshan``
(docs/recovery.md) in ``DARSHAN_MMAP_LOGPATH`` (default ``/dev/shm``, or ``/tmp``
where it is missing) and in the private ``iolens-run-*`` directories of
``iolens run``.  Copies are mode 0600: a user finds only their own (the others
cannot be opened), root finds all.  Names can be planted by anyone, so only
regular files reached without a symbolic link are returned.
"""
from __future__ import annotations

import functools
import os
import re
import stat
import time
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Tuple

COPY_NAME = re.compile(r"^(?P<user>.*)_(?P<prog>.*)_id(?P<jobid>-?\d+)-(?P<pid>\d+)"
                       r"_mmap-log-(?P<hash>\d+)-(?P<rank>-?\d+)\.darshan$")


@dataclass(frozen=True)
class CopyName:
    path: str
    prog: str
    jobid: int
    pid: int
    rank: int
    inode: int = 0


def _list(d: str) -> List[os.DirEntry]:
    with os.scandir(d) as it:
        return list(it)


class Listings:
    """Directory listings kept between a reader's rounds (`listing` of
    copy_dirs and find_copies): a directory is listed again only when its
    modification time changed (creating, removing or renaming a copy in it
    changes it), or when that time was less than RACY seconds before the
    listing (the clock of file times is coarse: a change in the same tick would
    leave it equal).  A node's /dev/shm of hundreds of copies is then not
    listed twice a round."""
    RACY = 1.0

    def __init__(self):
        self.kept: Dict[str, Tuple[int, bool, List[os.DirEntry]]] = {}
        self.used: set = set()

    def __call__(self, d: str) -> List[os.DirEntry]:
        mtime = os.stat(d).st_mtime_ns
        self.used.add(d)
        kept = self.kept.get(d)
        if kept is not None and kept[0] == mtime and not kept[1]:
            return kept[2]
        racy = mtime >= (time.time() - self.RACY) * 1e9
        entries = _list(d)
        self.kept[d] = (mtime, racy, entries)
        return entries

    def round_done(self):
        """Forget the directories not listed since the last call."""
        for d in self.kept.keys() - self.used:
            del self.kept[d]
        self.used = set()


def copy_dirs(extra: Iterable[str] = (), listing: Callable = _list) -> List[str]:
    """The directories to look in: the given ones, else the runtime's
    (DARSHAN_MMAP_LOGPATH, or /dev/shm and /tmp), each with its iolens-run-*
    subdirectories.  listing(d): d's entries (_list, or a Listings)."""
    roots = list(extra)
    if not roots:
        env = os.environ.get("DARSHAN_MMAP_LOGPATH")
        roots = [env] if env else ["/dev/shm", "/tmp"]
    out = []
    for root in roots:
        out.append(root)
        try:
            out.extend(e.path for e in listing(root)
                       if e.name.startswith("iolens-run-") and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return out


def parse_name(path: str) -> Optional[CopyName]:
    m = COPY_NAME.match(os.path.basename(path))
    if not m:
        return None
    return CopyName(path, m["prog"], int(m["jobid"]), int(m["pid"]), int(m["rank"]))


def find_copies(dirs: Iterable[str], known=(), listing: Callable = _list) -> List[CopyName]:
    """Copies in dirs that are regular files (not links) this user can read
    (not asked again for the paths in `known`, already open)."""
    found = []
    for d in dirs:
        try:
            entries = listing(d)
        except OSError:
            continue
        for e in entries:
            name = _named(e.path, e.inode())
            if name is None or not e.is_file(follow_symlinks=False):
                continue
            if e.path in known or os.access(e.path, os.R_OK):
                found.append(name)
    return found


@functools.lru_cache(maxsize=4096)   # the same files every round: ~2 MiB at most
def _named(path: str, inode: int) -> Optional[CopyName]:
    """parse_name with the inode, made once per file (a reader lists the
    directories every round)."""
    name = parse_name(path)
    return name and CopyName(name.path, name.prog, name.jobid, name.pid, name.rank, inode)


def open_copy(path: str) -> int:
    """A read-only descriptor of a copy: never through a link, never blocking on a
    FIFO planted at the name; OSError when it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(0, "not a regular file", path)
    return fd


_BOOT = []


def _boot_time() -> float:
    if not _BOOT:
        with open("/proc/stat", "rb") as f:
            _BOOT.append(next((float(line.split()[1]) for line in f
                               if line.startswith(b"btime ")), 0.0))
    return _BOOT[0]


def process_alive(pid: int, started: float = 0.0) -> bool:
    """Whether pid is a live (not zombie) process, read from /proc: no signal
    is sent (another user's process cannot be signalled anyway).  With
    `started` (the copy's job start, seconds since the epoch), a process that
    began more than 2 s after it is a later one that reused the pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read()
    except OSError:
        return False
    fields = text[text.rfind(b")") + 2:].split()
    if not fields or fields[0] in (b"Z", b"X"):
        return False
    if started and len(fields) > 19:
        begun = _boot_time() + int(fields[19]) / os.sysconf("SC_CLK_TCK")
        if begun > started + 2.0:
            return False
    return True
