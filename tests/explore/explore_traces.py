"""Generated DXT traces for the explorer's scale tests and benchmark, written
with our own writer (iolens.write.Writer).  Each function states the trace it
makes, so tests can compute what the explorer must show from these facts."""
from __future__ import annotations

import numpy as np

import iolens
from iolens.write import Writer

SHARED = "/scratch/job/shared.dat"


def _write(path, nprocs, ranks, writes, reads, seg, run_time, names=(SHARED,), ids=None,
           partial=0):
    ids = ids if ids is not None else [iolens.record_id(SHARED)] * len(ranks)
    with Writer(path) as w:
        w.set_job(nprocs=nprocs, jobid=29, end_time_sec=int(run_time), exe="/bin/generated")
        w.add_names([iolens.record_id(n) for n in names], list(names))
        w.put_dxt("DXT_POSIX", ids, ranks, [f"nid{r // 128:05d}" for r in ranks],
                  writes, reads, **seg)
        if partial:
            w.set_partial(partial)
    return path


def many_ranks(path, nprocs=20_000, per_rank=5, straggler_end=30.0):
    """``per_rank`` writes of 10 ms per rank spread over [0, 10) s; the last
    rank also writes once from 9 s to ``straggler_end`` (the straggler)."""
    rng = np.random.default_rng(29)
    n = nprocs * per_rank
    start = rng.uniform(0, 9.9, n)
    end = start + 0.01
    counts = np.full(nprocs, per_rank)
    counts[-1] += 1
    start = np.append(start, 9.0)
    end = np.append(end, straggler_end)
    seg = {"offset": np.arange(n + 1) * 4096, "length": np.full(n + 1, 4096),
           "start": start, "end": end}
    return _write(path, nprocs, list(range(nprocs)), counts, np.zeros(nprocs, int), seg,
                  straggler_end + 1)


def long_among_short(path, short=1_050_000, ranks=4):
    """One 100 s read on rank 0 (0.5 s to 100.5 s) among ``short`` reads of
    1 ms, over ``ranks`` ranks: all but 1,000 of them start in [0, 50) s,
    the rest in [101, 110) s.  The long read's offset is 7 and its length 12345."""
    rng = np.random.default_rng(100)
    early = rng.uniform(0, 50, short - 1000)
    late = rng.uniform(101, 110, 1000)
    start = np.concatenate([early, late])
    per = np.array_split(np.arange(short), ranks)
    seg = {"offset": [], "length": [], "start": [], "end": []}
    for r, rows in enumerate(per):
        s = np.sort(start[rows])
        if r == 0:
            s = np.append(s, 0.5)
        e = s + 0.001
        if r == 0:
            e[-1] = 100.5
        seg["start"].append(s)
        seg["end"].append(e)
        seg["offset"].append(np.where(e - s > 50, 7, np.arange(len(s)) * 8192))
        seg["length"].append(np.where(e - s > 50, 12345, 8192))
    seg = {k: np.concatenate(v) for k, v in seg.items()}
    reads = [len(p) + (r == 0) for r, p in enumerate(per)]
    return _write(path, ranks, list(range(ranks)), np.zeros(ranks, int), reads, seg, 111)


def damaged(path):
    """4 ranks, 10 writes each in [0, 1) s; rank 1's third write starts at NaN
    and rank 2's fifth ends at +inf (two damaged segments, 38 good ones)."""
    rng = np.random.default_rng(27)
    start = np.sort(rng.uniform(0, 0.99, 40))
    end = start + 0.005
    start[12] = np.nan
    end[24] = np.inf
    seg = {"offset": np.arange(40) * 100, "length": np.full(40, 100), "start": start, "end": end}
    return _write(path, 4, [0, 1, 2, 3], [10] * 4, [0] * 4, seg, 2)
