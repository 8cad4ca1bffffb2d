"""Numbers and counts as the report prints them: bytes and seconds in human
units, and nouns that agree with their count ("1 process", "4 processes")."""
from __future__ import annotations

import math

BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def human_bytes(n) -> str:
    n = float(n)
    if math.isnan(n) or n < 0:
        return "n/a"
    for unit in BYTE_UNITS:
        if n < 1024 or unit == BYTE_UNITS[-1]:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def byte_scale(largest: float) -> tuple:
    """(divisor, unit) that shows `largest` bytes as a number from 1 to 1023, for
    an axis or colour bar whose values go up to `largest`."""
    divisor = 1.0
    for unit in BYTE_UNITS:
        if largest < 1024 * divisor or unit == BYTE_UNITS[-1]:
            return divisor, unit
        divisor *= 1024
    raise AssertionError("unreachable")


def human_seconds(x) -> str:
    """Seconds with a unit that keeps three significant digits readable:
    "12.3 s", "4.56 ms", "789 µs", "0 s"."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    x = float(x)
    if x == 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x * 1e9:.3g} ns"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """"1 process", "4 processes": `plural` defaults to noun + "es" after s/x/sh/ch,
    else noun + "s"."""
    if plural is None:
        plural = noun + ("es" if noun.endswith(("s", "x", "sh", "ch")) else "s")
    return f"{n:,} {noun if n == 1 else plural}"
