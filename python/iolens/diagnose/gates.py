"""Threshold tests of the slow-ost and conflicting-writes rules, recorded for
--explain when the Context can record them (``Context.gate``/``skip``, the
rule engine of diag-shared.md), else simply evaluated.  Once that Context is
in, these calls are ``ctx.gate(...)``/``ctx.skip(...)`` and this file can go."""
from __future__ import annotations

import operator

import numpy as np

_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def gate(ctx, label: str, value, op: str, key: str) -> bool:
    """Whether `value` passes the threshold `key` ("table.name") in force."""
    own = getattr(ctx, "gate", None)
    if own is not None:
        return own(label, value, op, key)
    table, name = key.split(".")
    return bool(_OPS[op](float(value), float(ctx.th[table][name])))


def gate_each(ctx, label: str, values, op: str, key: str) -> np.ndarray:
    """gate() over an array, element-wise."""
    own = getattr(ctx, "gate_each", None)
    if own is not None:
        return own(label, values, op, key)
    table, name = key.split(".")
    return _OPS[op](np.asarray(values, dtype=np.float64), float(ctx.th[table][name]))


def skip(ctx, reason: str) -> None:
    """Record why the rule does not apply to this log."""
    own = getattr(ctx, "skip", None)
    if own is not None:
        own(reason)
