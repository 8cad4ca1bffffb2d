"""Reading one counter column, the one way every figure does it.

Two readings, because Darshan's -1 ("not monitored") means different things to
different figures: ``counter`` gives the stored values (what darshan-parser's
arithmetic adds up), ``amount`` reads -1 as "nothing" (0) for sums of bytes,
operations and seconds.  Damaged values never get here: the view has already
set their records aside, so the only negative value left is the -1 convention."""
from __future__ import annotations

import numpy as np


def counter(frame, name: str, default=0) -> np.ndarray:
    """A counter column as stored; an absent counter (old record versions, other
    modules) reads as `default` (a scalar, or an array of the frame's length).
    `frame` is a DataFrame or the view's decoded Arrays (view.arrays)."""
    if frame is not None and name in frame.columns:
        return np.asarray(frame[name])
    if isinstance(default, np.ndarray):
        return default
    return np.full(0 if frame is None else len(frame), default)


def amount(frame, name: str) -> np.ndarray:
    """A counter as float64 with "not monitored" (-1, or any negative left) as 0."""
    values = counter(frame, name, 0).astype(np.float64)
    return np.where(values > 0, values, 0.0)
