"""The platform facts of a log: the machine and job geometry the runtime wrote
into the job metadata (``src/format/counters/platform.def``, docs/runtime.md),
and per-mount facts (node-local or shared, block size).

The key list comes from the C core's table; values are kept as the text the
runtime wrote, with helpers to read the structured ones."""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from . import _core

#: (key, cap, anonymise, description) in order of usefulness, from platform.def.
PLATFORM_KEYS: Tuple[Tuple[str, int, str, str], ...] = tuple(
    tuple(k) for k in _core.platform_keys())

KINDS = {"l": "node-local", "s": "shared", "u": "unknown"}
_TOKEN = re.compile(r"^([lsu])(\d+)?([KM]?)$")
_UNITS = {"": 1, "K": 1024, "M": 1048576}


def platform(metadata: Dict[str, str]) -> Dict[str, str]:
    """The platform keys present in parsed job metadata, in table order."""
    return {k: metadata[k] for k, *_ in PLATFORM_KEYS if k in metadata}


def block_size(token: str) -> Optional[int]:
    """"4K" -> 4096; None when the token has no size."""
    m = _TOKEN.match(token)
    if not m or not m.group(2):
        return None
    return int(m.group(2)) * _UNITS[m.group(3)]


def mount_facts(mounts: List[Tuple[str, str]], facts: Dict[str, str]) -> pd.DataFrame:
    """One row per mount: mount point, fs type, kind (node-local / shared /
    unknown) and block size (NaN when the runtime did not look it up).

    ``mounts`` is the mount table in reader order (longest mount point first),
    which is the order of the mntfs tokens; tmpfs mount points (not in the table)
    follow as node-local rows.  Without mntfs (logs of other writers) the kind is
    left unknown and the block size NaN."""
    tokens = [t for t in facts.get("mntfs", "").split(",") if t]
    rows = []
    for i, (point, fstype) in enumerate(mounts):
        m = _TOKEN.match(tokens[i]) if i < len(tokens) else None
        rows.append((point, fstype, KINDS[m.group(1)] if m else "unknown",
                     block_size(tokens[i]) if m else None, "mount table"))
    for point in (p for p in facts.get("tmpfs", "").split(",") if p):
        rows.append((point, "tmpfs", "node-local", None, "tmpfs"))
    frame = pd.DataFrame(rows, columns=["mount", "fs_type", "kind", "block_size", "source"])
    frame["block_size"] = frame["block_size"].astype(float)
    return frame


def expand_hostlist(text: str) -> List[str]:
    """"nid[001-003,7],login1" -> ["nid001", "nid002", "nid003", "nid7", "login1"].
    A trailing ",+N" or ",+more" (names left out for room) is dropped."""
    out = []
    for entry in re.findall(r"[^,\[]*(?:\[[^\]]*\])?[^,]*", text):
        if not entry or entry.startswith("+"):
            continue
        m = re.match(r"^([^\[]*)\[([^\]]*)\](.*)$", entry)
        if not m:
            out.append(entry)
            continue
        head, ranges, tail = m.groups()
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            if hi and lo.isdigit() and hi.isdigit():
                out.extend(f"{head}{n:0{len(lo)}d}{tail}" for n in range(int(lo), int(hi) + 1))
            else:
                out.append(f"{head}{part}{tail}")
    return out


def node_kind_of(frame: pd.DataFrame, names: pd.Series) -> np.ndarray:
    """For each file name, the kind of the mount holding it (longest matching
    mount point of ``frame``), "unknown" when none matches."""
    points = frame.sort_values("mount", key=lambda s: -s.str.len())
    out = np.full(len(names), "unknown", dtype=object)
    todo = np.ones(len(names), dtype=bool)
    values = names.fillna("").astype(str)
    for point, kind in zip(points["mount"], points["kind"]):
        prefix = point.rstrip("/") + "/"
        hit = todo & (values.str.startswith(prefix) | (values == point)).to_numpy()
        out[hit] = kind
        todo &= ~hit
    return out
