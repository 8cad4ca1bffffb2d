"""Synthetic job logs of realistic shapes, written with iolens.Writer.

Used by the fleet tests and benchmark (and handy for a facility to try a
pipeline): file-per-process POSIX, one shared file through MPI-IO (a shared
POSIX record below it) and STDIO, for 1 to 1,024 processes.
"""
from __future__ import annotations

import numpy as np

from .._meta import module_info, record_id
from ..write import Writer

SHAPES = ("fpp", "shared", "stdio")
MOUNTS = [("/lus/scratch", "lustre"), ("/home", "nfs"), ("/tmp", "tmpfs")]
APPS = ("lammps", "vasp", "wrf", "nek5000", "e3sm", "hacc", "gromacs", "qmcpack")


_SIZE_BINS = ((100, "0_100"), (1 << 10, "100_1K"), (10 << 10, "1K_10K"),
              (100 << 10, "10K_100K"), (1 << 20, "100K_1M"), (4 << 20, "1M_4M"),
              (10 << 20, "4M_10M"), (100 << 20, "10M_100M"), (1 << 30, "100M_1G"))


def _size_bin(size: int) -> str:
    """The access-size histogram bin of an access of `size` bytes."""
    return next((name for top, name in _SIZE_BINS if size < top), "1G_PLUS")


def _records(module: str, n: int, rank, rng, nbytes, shared=False, run_time=60.0):
    """Consistent records (what the view checks: operations behind the bytes,
    the histogram summing to them, extents covering one access, times within
    the run), so that no synthetic record is set aside as damage."""
    info = module_info(module)
    ints = np.zeros((n, len(info.counters)), np.int64)
    flts = np.zeros((n, len(info.fcounters)), np.float64)
    p = next(c for c in info.counters if c.endswith("BYTES_READ"))[: -len("BYTES_READ")]

    def seti(name, v):
        if name in info.counters:
            ints[:, info.counters.index(name)] = v

    def setf(name, v):
        if name in info.fcounters:
            flts[:, info.fcounters.index(name)] = v
    rd = (nbytes * rng.uniform(0, 1, n)).astype(np.int64)
    wr = (nbytes - rd).astype(np.int64)
    seti(p + "BYTES_READ", rd)
    seti(p + "BYTES_WRITTEN", wr)
    for op, moved, top in (("READ", rd, "MAX_BYTE_READ"), ("WRITE", wr, "MAX_BYTE_WRITTEN")):
        ops = np.where(moved > 0, np.maximum(1, moved // 1048576), 0)
        for name in (f"{op}S", f"INDEP_{op}S"):
            seti(p + name, ops)
        seti(p + top, np.maximum(moved - 1, 0))
        for i in range(n):      # every access of a record in the bin of its mean size
            if ops[i]:
                for mid in ("", "AGG_"):
                    name = f"{p}SIZE_{op}_{mid}{_size_bin(int(moved[i] // ops[i]))}"
                    if name in info.counters:
                        ints[i, info.counters.index(name)] = ops[i]
    t = np.minimum((rd + wr) / rng.uniform(2e8, 2e9, n), 0.8 * run_time)
    setf(p + "F_READ_TIME", t / 2)
    setf(p + "F_WRITE_TIME", t / 2)
    setf(p + "F_META_TIME", rng.uniform(0, 0.05, n))
    if shared:
        setf(p + "F_SLOWEST_RANK_TIME", t * 0.6)
    return ints, flts


def write_job(path: str, rng: np.random.Generator, *, shape: str, nprocs: int,
              start_time: int, uid: int, app: str, jobid: int, partial: bool = False) -> None:
    base = f"/lus/scratch/u{uid}/{app}/{jobid}"
    size = int(rng.lognormal(20, 2))
    with Writer(path) as w:
        w.set_job(uid=uid, start_time_sec=start_time, end_time_sec=start_time + 60 + nprocs,
                  nprocs=nprocs, jobid=jobid, metadata="lib_ver=3.4.4\nh=romio_no_indep_rw=true\n",
                  exe=f"/opt/apps/{app}/bin/{app} -i input.{jobid}", mounts=MOUNTS)
        stdout = "<STDOUT>"
        run_time = 60.0 + nprocs
        if shape == "fpp":
            names = [f"{base}/out.{r:05d}" for r in range(nprocs)]
            ids = [record_id(n) for n in names]
            w.add_names(ids + [record_id(stdout)], names + [stdout])
            ints, flts = _records("POSIX", nprocs, None, rng, size // nprocs, run_time=run_time)
            w.put_records("POSIX", ids, np.arange(nprocs), ints, flts)
            i2, f2 = _records("STDIO", 1, None, rng, 4096)
            w.put_records("STDIO", [record_id(stdout)], [0], i2, f2)
        elif shape == "shared":
            name, home = f"{base}/checkpoint.h5", f"/home/u{uid}/{app}.cfg"
            w.add_names([record_id(name), record_id(home)], [name, home])
            ints, flts = _records("POSIX", 2, None, rng, size, shared=True, run_time=run_time)
            w.put_records("POSIX", [record_id(name), record_id(home)], [-1, 0], ints, flts)
            i2, f2 = _records("MPI-IO", 1, None, rng, size, shared=True, run_time=run_time)
            w.put_records("MPI-IO", [record_id(name)], [-1], i2, f2)
        else:
            names = [f"/tmp/{app}.{jobid}.log", f"{base}/results.csv", stdout]
            ids = [record_id(n) for n in names]
            w.add_names(ids, names)
            ints, flts = _records("STDIO", 3, None, rng, max(1, size // 100))
            w.put_records("STDIO", ids, [0, 0, 0], ints, flts)
        if partial:
            w.set_partial(1 << module_info("POSIX").id)


def generate(directory: str, count: int, seed: int = 1, start: int = 1_700_000_000,
             max_procs: int = 1024) -> list:
    """`count` logs under directory/<day>/ (100 per day); returns their paths."""
    import os
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        day_dir = os.path.join(directory, f"d{i // 100:05d}")
        if i % 100 == 0:
            os.makedirs(day_dir, exist_ok=True)
        shape = SHAPES[int(rng.integers(0, 3))]
        nprocs = int(2 ** rng.integers(0, int(np.log2(max_procs)) + 1))
        app = APPS[int(rng.integers(0, len(APPS)))]
        path = os.path.join(day_dir, f"job{i:07d}.darshan")
        write_job(path, rng, shape=shape, nprocs=nprocs, start_time=start + i * 864,
                  uid=1000 + int(rng.integers(0, 20)), app=app, jobid=100000 + i,
                  partial=bool(rng.random() < 0.02))
        out.append(path)
    return out
