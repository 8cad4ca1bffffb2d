"""Synthetic logs with known answers for the view tests, written with the
project's own writer (iolens.write.Writer)."""
from __future__ import annotations

import numpy as np

from iolens._meta import module_info, record_id
from iolens.write import Writer

MiB = 1 << 20


def counters(module, rows):
    """(counters, fcounters) arrays of `module` from a list of {name: value} dicts."""
    info = module_info(module)
    c = np.zeros((len(rows), len(info.counters)), np.int64)
    f = np.zeros((len(rows), len(info.fcounters)), np.float64)
    for i, row in enumerate(rows):
        for k, v in row.items():
            if k in info.counters:
                c[i, info.counters.index(k)] = v
            else:
                f[i, info.fcounters.index(k)] = v
    return c, f


def posix_row(reads=0, writes=0, read_bytes=0, written=0, read_time=0.0, write_time=0.0,
              **extra):
    """A consistent POSIX record: histogram in the 1K-10K bin, extents that fit."""
    row = {"POSIX_READS": reads, "POSIX_WRITES": writes, "POSIX_BYTES_READ": read_bytes,
           "POSIX_BYTES_WRITTEN": written, "POSIX_F_READ_TIME": read_time,
           "POSIX_F_WRITE_TIME": write_time, "POSIX_SIZE_READ_1K_10K": reads,
           "POSIX_SIZE_WRITE_1K_10K": writes,
           "POSIX_MAX_BYTE_READ": max(read_bytes - 1, 0),
           "POSIX_MAX_BYTE_WRITTEN": max(written - 1, 0)}
    row.update(extra)
    return row


class Segments:
    """DXT segments of several records: add(name, rank, op, offset, length, start, end)."""

    def __init__(self):
        self.recs = {}      # (name, rank) -> {"write": [...], "read": [...]}

    def add(self, name, rank, op, offset, length, start, end):
        self.recs.setdefault((name, rank), {"write": [], "read": []})[op].append(
            (offset, length, start, end))
        return self

    def put(self, w, module):
        ids, ranks, wc, rc, segs = [], [], [], [], []
        for (name, rank), ops in self.recs.items():
            ids.append(record_id(name))
            ranks.append(rank)
            wc.append(len(ops["write"]))
            rc.append(len(ops["read"]))
            segs += ops["write"] + ops["read"]
        cols = list(zip(*segs)) if segs else [[], [], [], []]
        w.put_dxt(module, ids, ranks, ["node0"] * len(ids), wc, rc, *cols)


def write_log(path, *, nprocs=2, run_time=10, names=(), posix=(), mpiio=(), stdio=(),
              lustre=(), dxt_posix=None, dxt_mpiio=None):
    """posix/mpiio/stdio: [(name, rank, {counter: value})]; lustre: [(name, [components])];
    dxt_*: Segments.  Modules are written in id order, as the writer requires."""
    all_names = set(names) | {r[0] for r in (*posix, *mpiio, *stdio)} | {n for n, _ in lustre}
    for seg in (dxt_posix, dxt_mpiio):
        if seg is not None:
            all_names |= {n for n, _ in seg.recs}
    with Writer(path) as w:
        w.set_job(nprocs=nprocs, start_time_sec=1000, end_time_sec=1000 + run_time,
                  exe="synthetic", mounts=[("/lus", "lustre"), ("/", "ext4")])
        w.add_names([record_id(n) for n in sorted(all_names)], sorted(all_names))
        for module, rows in (("POSIX", posix), ("MPI-IO", mpiio)):
            if rows:
                w.put_records(module, [record_id(r[0]) for r in rows], [r[1] for r in rows],
                              *counters(module, [r[2] for r in rows]))
        if lustre:
            w.put_lustre([record_id(n) for n, _ in lustre], [-1] * len(lustre),
                         [comps for _, comps in lustre])
        if stdio:
            w.put_records("STDIO", [record_id(r[0]) for r in stdio], [r[1] for r in stdio],
                          *counters("STDIO", [r[2] for r in stdio]))
        if dxt_posix is not None:
            dxt_posix.put(w, "DXT_POSIX")
        if dxt_mpiio is not None:
            dxt_mpiio.put(w, "DXT_MPIIO")
    return path
