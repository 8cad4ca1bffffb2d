"""Record-name filters: `--include_names` / `--exclude_names` of job-stats and
file-stats, with PyDarshan 3.5.0's meaning (Python regular expressions,
`re.search` on the record's full name; include keeps a record that any pattern
finds, exclude drops it).  A filter is plain data so that it travels to
worker processes and Dask workers with the paths."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple


@dataclass(frozen=True)
class NameFilter:
    patterns: Tuple[str, ...]
    include: bool

    @classmethod
    def from_args(cls, include: Optional[Sequence[str]],
                  exclude: Optional[Sequence[str]]) -> Optional["NameFilter"]:
        if include and exclude:
            raise ValueError("use either --include_names or --exclude_names, not both")
        patterns = tuple(include or exclude or ())
        if not patterns:
            return None
        for p in patterns:
            try:
                re.compile(p)
            except re.error as e:
                raise ValueError(f"bad name pattern {p!r}: {e}") from None
        return cls(patterns, include=bool(include))

    def keeps(self, name: str) -> bool:
        found = any(re.search(p, name) for p in self.patterns)
        return found if self.include else not found
