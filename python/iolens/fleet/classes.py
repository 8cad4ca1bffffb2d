"""Storage classes: a facility's mount points grouped into named classes.

The facility config is a TOML file::

    [classes]
    scratch    = ["/lus/grand", "/lus/eagle"]
    home       = ["/home"]
    project    = ["/projects"]
    node-local = ["/tmp", "/dev/shm", "/local"]

A file belongs to the class whose path prefix is the longest one that contains
it (a prefix matches whole path components only: "/home" contains "/home/a"
but not "/homework").  A file no prefix contains takes the file-system type of
the mount point it lies under in the log's mount table ("lustre", "nfs", ...),
and "other" when no mount contains it either (names that are not paths, such as
"<STDOUT>" or DAOS object ids).
"""
from __future__ import annotations

import tomllib
from typing import Dict, List, Optional, Sequence, Tuple

OTHER = "other"


class ConfigError(ValueError):
    """The facility config file is missing or malformed."""


def _contains(prefix: str, path: str) -> bool:
    if prefix == "/":
        return path.startswith("/")
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


class StorageClasses:
    """Maps file names to storage classes; picklable, so workers get a copy."""

    def __init__(self, classes: Optional[Dict[str, Sequence[str]]] = None):
        pairs: List[Tuple[str, str]] = []
        for name, prefixes in (classes or {}).items():
            if isinstance(prefixes, str):
                prefixes = [prefixes]
            for p in prefixes:
                if not isinstance(p, str) or not p.startswith("/"):
                    raise ConfigError(f"class {name!r}: prefix {p!r} is not an absolute path")
                pairs.append((p, str(name)))
        # Longest prefix first, so the first hit is the most specific one.
        self.prefixes = sorted(pairs, key=lambda pc: len(pc[0]), reverse=True)

    @classmethod
    def load(cls, path: Optional[str]) -> "StorageClasses":
        if path is None:
            return cls()
        try:
            with open(path, "rb") as fh:
                doc = tomllib.load(fh)
        except OSError as e:
            raise ConfigError(f"cannot read facility config {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"facility config {path}: {e}") from None
        classes = doc.get("classes", {})
        if not isinstance(classes, dict):
            raise ConfigError(f"facility config {path}: [classes] must be a table")
        return cls(classes)

    def classify(self, name: Optional[str], mounts: Sequence[Tuple[str, str]]) -> str:
        """Class of one file; `mounts` is the log's (mount point, fs type) table,
        longest mount point first (iolens.Log.mounts order)."""
        if not name:
            return OTHER
        for prefix, cls in self.prefixes:
            if _contains(prefix, name):
                return cls
        for mount, fstype in mounts:
            if _contains(mount, name):
                return fstype or OTHER
        return OTHER

