"""Placing DXT operations on Perfetto/Chrome tracks.

Both viewers need the slices of one track to nest properly: a slice either
ends before the next one starts or contains it.  DXT operations of one process
(and thread) may overlap (asynchronous or threaded I/O), so each gets a track
number within its lane such that:
- a POSIX operation inside the time of an MPI-IO operation of the same lane is
  placed on that operation's track, as its child (the MPI-IO call caused it);
- any other overlap goes to another track of the lane (the first free one).
Times are integer nanoseconds, so containment is exact."""
from __future__ import annotations

from typing import List

import numpy as np

MPIIO = 1


def order(start_ns, end_ns, mod) -> np.ndarray:
    """Processing order: by start, longer first, MPI-IO before POSIX at a tie."""
    return np.lexsort((-np.asarray(mod), -np.asarray(end_ns), np.asarray(start_ns)))


def assign(lane, start_ns, end_ns, mod, seq) -> np.ndarray:
    """Track number per operation (indexed like the inputs); ``seq`` is order()."""
    tracks: dict = {}                 # lane -> list of stacks of (end, mod)
    out = np.zeros(len(seq), np.int32)
    for i in seq.tolist():
        s, e, m = int(start_ns[i]), int(end_ns[i]), int(mod[i])
        stacks: List[list] = tracks.setdefault(int(lane[i]), [])
        nest, free = None, None
        for k, st in enumerate(stacks):
            while st and st[-1][0] <= s:
                st.pop()
            if st and nest is None and e <= st[-1][0] and st[-1][1] == MPIIO and m != MPIIO:
                nest = k
            elif not st and free is None:
                free = k
        k = nest if nest is not None else free
        if k is None:
            stacks.append([])
            k = len(stacks) - 1
        stacks[k].append((e, m))
        out[i] = k
    return out


def walk(slices):
    """Begin/end events of one track's slices in viewer order.  ``slices`` are
    (start, end, payload) sorted as order() sorts; yields (ts, is_begin, payload)."""
    stack = []
    for s, e, p in slices:
        while stack and stack[-1][0] <= s:
            yield stack[-1][0], False, stack.pop()[1]
        yield s, True, p
        stack.append((e, p))
    while stack:
        yield stack[-1][0], False, stack.pop()[1]
