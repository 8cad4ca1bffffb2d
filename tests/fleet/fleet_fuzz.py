"""Mutated logs for fuzzing `iolens fleet ingest` (tests/fleet/test_fleet_fuzz.py).

The C targets of tests/fuzz find crashes in the reader; this feeds whole
mutated logs to the ingest, where the question is another: does every log end
in exactly one of jobs or quarantine, with the run finishing and no traceback?
Seeds are logs our own writer makes (iolens.fleet.synth), compressed and
uncompressed, so that mutations reach both the zlib streams and the decoders
behind them.  A share of each round are valid logs whose values are hostile
(64-bit extremes in the job record, the partial flag and the counters; names
that are not UTF-8), written by iolens.Writer: byte mutations rarely keep a
log readable, and those values are what a store's columns must survive.  Everything is drawn from one seeded generator: a failing round
is reproduced by its seed.
"""
from __future__ import annotations

import os
from typing import List

import numpy as np

EXTREMES = [0, 1, -1, 1 << 31, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 62]


def seeds(directory: str, count: int, seed: int) -> List[bytes]:
    """`count` generated logs (every shape), half of them rewritten uncompressed."""
    from iolens.fleet.synth import generate
    from iolens.write import write_copy
    paths = generate(os.path.join(directory, "seeds"), count, seed=seed, max_procs=16)
    out = []
    for i, path in enumerate(paths):
        if i % 2:
            raw = path + ".raw"
            write_copy(path, raw, compression="none")
            path = raw
        with open(path, "rb") as fh:
            out.append(fh.read())
    return out


def _flip(data: bytearray, rng) -> None:
    for _ in range(int(rng.integers(1, 9))):
        i = int(rng.integers(0, len(data)))
        data[i] ^= 1 << int(rng.integers(0, 8))


def _extreme(data: bytearray, rng) -> None:
    """A 64-bit field (8-aligned, as the header and records are laid out) set
    to a boundary value, little-endian; half the time in the first 2 KiB
    (the header, and in an uncompressed log the job record: ids, times, flags)."""
    span = len(data) if rng.random() < 0.5 else min(len(data), 2048)
    i = int(rng.integers(0, max(1, span // 8))) * 8
    v = EXTREMES[int(rng.integers(0, len(EXTREMES)))] & ((1 << 64) - 1)
    data[i:i + 8] = v.to_bytes(8, "little")[: len(data) - i]


def _truncate(data: bytearray, rng) -> None:
    del data[int(rng.integers(0, len(data))):]


def _insert(data: bytearray, rng) -> None:
    i = int(rng.integers(0, len(data) + 1))
    data[i:i] = bytes(rng.integers(0, 256, int(rng.integers(1, 64)), dtype=np.uint8))


def _splice(data: bytearray, rng, other: bytes) -> None:
    i = int(rng.integers(0, len(data)))
    j = int(rng.integers(0, len(other)))
    data[i:] = other[j:]


def mutate(data: bytes, rng, pool: List[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        if not out:
            break
        kind = int(rng.integers(0, 5))
        if kind == 4:
            _splice(out, rng, pool[int(rng.integers(0, len(pool)))])
        else:
            (_flip, _extreme, _truncate, _insert)[kind](out, rng)
    return bytes(out)


def _pick(rng, lo: int, hi: int) -> int:
    """A 64-bit extreme or a small value, within [lo, hi]."""
    v = EXTREMES[int(rng.integers(0, len(EXTREMES)))] if rng.random() < 0.5 \
        else int(rng.integers(0, 1000))
    return min(max(v, lo), hi)


def hostile(path: str, rng) -> None:
    """A valid log with extreme values and, half the time, a name and a
    command line holding bytes that are not UTF-8."""
    from iolens._meta import module_info, record_id
    from iolens.write import Writer
    i64 = (-(1 << 63), (1 << 63) - 1)
    info = module_info("POSIX")
    n = int(rng.integers(1, 5))
    mark = "\udcff" if rng.random() < 0.5 else ""   # a byte that is not UTF-8
    names = [f"/lus/scratch/f{k}{mark}" for k in range(n)]
    ints = np.where(rng.random((n, len(info.counters))) < 0.2,
                    rng.choice(np.array([_pick(rng, *i64) for _ in range(8)], np.int64),
                               (n, len(info.counters))), 1)
    with Writer(path, compression="none") as w:
        w.set_job(uid=_pick(rng, *i64), start_time_sec=_pick(rng, *i64),
                  end_time_sec=_pick(rng, *i64), nprocs=_pick(rng, 1, (1 << 31) - 1),
                  jobid=_pick(rng, *i64), exe=f"/opt/app{mark} -x", mounts=[("/lus", "lustre")])
        w.add_names([record_id(x) for x in names], names)
        w.put_records("POSIX", [record_id(x) for x in names], rng.integers(-1, 4, n), ints,
                      rng.choice([0.0, 1.0, 1e308, float("inf")], (n, len(info.fcounters))))
        w.set_partial(_pick(rng, 0, (1 << 64) - 1))


def write_round(directory: str, pool: List[bytes], count: int, seed: int) -> List[str]:
    """`count` logs in `directory`, a quarter of them hostile(), the others
    mutated seeds; returns their paths."""
    rng = np.random.default_rng(seed)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for i in range(count):
        path = os.path.join(directory, f"m{seed}-{i:05d}.darshan")
        if rng.random() < 0.25:
            hostile(path, rng)
        else:
            with open(path, "wb") as fh:
                fh.write(mutate(pool[int(rng.integers(0, len(pool)))], rng, pool))
        paths.append(path)
    return paths
