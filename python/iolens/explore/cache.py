"""The explorer's index cache: private, bounded, optional.

Contracts (stable: ``iolens export`` uses the same cache through
``index.index_for``):
- Private: the cache root and every index directory are 0700, the files in
  them 0600; an index is built in a 0700 temporary directory and renamed, so no
  other user can ever open a file of it (the trace names the job's files).
- Bounded: after an index is built, the least recently used indexes are
  deleted until the cache holds at most ``limit()`` bytes (the index just built
  is kept even when it alone is larger).  Each use of an index touches its
  directory: the directory's modification time is its last use.
- Optional: when the cache cannot be created or written (read-only home,
  quota), the caller indexes into a temporary directory that is removed when
  the process exits (``temporary_root``).
- ``clear()`` removes only entries named like ours (24 hex digits, or the
  temporary ``<key>.*`` siblings of a build), never other files of the directory.
"""
from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import List, Tuple

DEFAULT_LIMIT = 4 << 30          # bytes; home directories often have quotas
ENTRY = re.compile(r"^[0-9a-f]{24}(\..+)?$")


def root() -> Path:
    env = os.environ.get("IOLENS_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "iolens" / "explore"


def limit() -> int:
    """Cache size cap in bytes: $IOLENS_CACHE_MAX_BYTES, else DEFAULT_LIMIT."""
    env = os.environ.get("IOLENS_CACHE_MAX_BYTES", "")
    try:
        return max(0, int(env)) if env else DEFAULT_LIMIT
    except ValueError:
        return DEFAULT_LIMIT


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed and make ``path`` itself 0700.
    Raises OSError when it cannot be created or is not writable."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if stat.S_IMODE(path.stat().st_mode) != 0o700:
        path.chmod(0o700)
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(13, "Permission denied", str(path))
    return path


def make_private(tree: Path) -> None:
    """Directories 0700, files 0600, throughout ``tree``."""
    tree.chmod(0o700)
    for dirpath, dirs, files in os.walk(tree):
        for d in dirs:
            os.chmod(os.path.join(dirpath, d), 0o700)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o600)


def touch(index_dir: Path) -> None:
    """Record a use of an index (its LRU time)."""
    try:
        os.utime(index_dir)
    except OSError:
        pass


def _entries(cache: Path) -> List[Tuple[float, int, Path]]:
    """(last use, size in bytes, path) of every index in ``cache``."""
    out = []
    for entry in cache.iterdir():
        if not ENTRY.match(entry.name) or not entry.is_dir() or "." in entry.name:
            continue
        try:
            used = entry.stat().st_mtime
        except OSError:
            used = 0.0
        size = sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
        out.append((used, size, entry))
    return sorted(out)


def prune(cache: Path, keep: Path, cap: int) -> List[Path]:
    """Delete least recently used indexes until at most ``cap`` bytes remain;
    ``keep`` is never deleted.  Returns the deleted directories."""
    entries = _entries(cache)
    total = sum(size for _, size, _ in entries)
    gone = []
    for _, size, path in entries:
        if total <= cap:
            break
        if path.resolve() == keep.resolve():
            continue
        shutil.rmtree(path, ignore_errors=True)
        total -= size
        gone.append(path)
    return gone


def clear(cache: Path) -> int:
    """Remove every index (and leftover build) in ``cache``; returns how many."""
    if not cache.is_dir():
        return 0
    n = 0
    for entry in cache.iterdir():
        if ENTRY.match(entry.name) and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
            n += 1
    return n


def temporary_root() -> Path:
    """A private directory removed at exit, for when the cache is unusable."""
    tmp = Path(tempfile.mkdtemp(prefix="iolens-explore-"))
    atexit.register(shutil.rmtree, tmp, True)
    return tmp
