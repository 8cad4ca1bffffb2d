"""Live view of running jobs: read the safety copies of instrumented processes
(docs/recovery.md) while they run, without disturbing them (docs/live.md).

- :mod:`.copies` finds the copies this user may read;
- :mod:`.snapshot` reads one copy consistently (the record seq words);
- :mod:`.view` turns snapshots into per-job rates (`iolens top`, the exporter).
"""
from .copies import find_copies, copy_dirs
from .snapshot import CopyReader, ProcessSnapshot

__all__ = ["find_copies", "copy_dirs", "CopyReader", "ProcessSnapshot"]
