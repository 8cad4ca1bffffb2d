"""File names as the tools group and show them.

A log's names are bytes.  The reader gives the ones that are not UTF-8 as
``surrogateescape`` strings, so that they go back to the same bytes (a rewrite
keeps them exactly); but such a string fits neither pandas' string dtype (it is
Arrow's, UTF-8 only) nor a UTF-8 terminal, file or page.  So names are grouped
here in plain Python, and text is passed through :func:`printable` where it leaves
the program.
"""
from __future__ import annotations

from typing import Dict, Iterable

import pandas as pd


def printable(text: str) -> str:
    """``text`` with each byte that is not UTF-8 written as ``\\xNN`` (as Python's
    backslashreplace shows bytes): printable anywhere, never an encoding error."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:          # a surrogate no decoder made: show its code
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def bytes_by_name(names: Iterable, values: Iterable, missing=None) -> Dict[str, float]:
    """values summed per name, names in sorted order (as a groupby gives them).
    Missing names are left out, or grouped under ``missing`` when it is given."""
    out: Dict[str, float] = {}
    for n, v in zip(list(names), list(values)):
        if n is None or (not isinstance(n, str) and pd.isna(n)):
            if missing is None:
                continue
            n = missing
        out[n] = out.get(n, 0) + v
    return {n: float(out[n]) for n in sorted(out)}
