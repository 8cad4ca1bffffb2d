"""Build small logs for the diagnosis tests with iolens' own writer.

    build(path, nprocs=4, run_time=100, POSIX=[rec("/scratch/a", 0, POSIX_READS=10)])

Counters not given are 0.  Lustre layouts cannot be written from Python, so
``with_lustre`` opens a written log and supplies LUSTRE rows next to it."""
from __future__ import annotations

import numpy as np
import pandas as pd

import iolens
from iolens._meta import module_info, record_id
from iolens.write import Writer

MiB = 1 << 20


def rec(name, rank, file=None, **counters):
    return {"name": name, "rank": rank, "file": file, "counters": counters}


_BINS = (("0_100", 100), ("100_1K", 1 << 10), ("1K_10K", 10 << 10), ("10K_100K", 100 << 10),
         ("100K_1M", 1 << 20), ("1M_4M", 4 << 20), ("4M_10M", 10 << 20),
         ("10M_100M", 100 << 20), ("100M_1G", 1 << 30), ("1G_PLUS", None))
_OPS = {"POSIX": ("POSIX_{}S",), "MPI-IO": tuple(f"MPIIO_{k}_{{}}S" for k in
                                                 ("INDEP", "COLL", "SPLIT", "NB"))}


def _healthy(module, counters):
    """Counters a healthy runtime could write (the view sets others aside as
    damage): operations for bytes moved, and an access-size histogram that sums
    to the operation count (all in the bin of the mean size) when not given."""
    out = dict(counters)
    if module not in _OPS:
        return out
    p = "POSIX_" if module == "POSIX" else "MPIIO_"
    for op, key in (("READ", "BYTES_READ"), ("WRITE", "BYTES_WRITTEN")):
        names = [n.format(op) for n in _OPS[module]]
        mid = "" if module == "POSIX" else "AGG_"
        bins = [f"{p}SIZE_{op}_{mid}{b}" for b, _ in _BINS]
        nbytes = out.get(p + key, 0)
        if nbytes > 0 and not any(out.get(n, 0) > 0 for n in names):
            out[names[0]] = 1          # one access from offset 0
            top = f"{p}MAX_BYTE_{'READ' if op == 'READ' else 'WRITTEN'}"
            if module == "POSIX" and top not in out:
                out[top] = nbytes - 1
        ops = sum(max(out.get(n, 0), 0) for n in names)
        if ops and not any(b in out for b in bins):
            mean = nbytes / ops
            at = next(i for i, (_, top) in enumerate(_BINS) if top is None or mean < top)
            out[bins[at]] = ops
    return out


def _arrays(module, records):
    info = module_info(module)
    records = [dict(r, counters=_healthy(module, r["counters"])) for r in records]
    ints = np.zeros((len(records), len(info.counters)), np.int64)
    flts = np.zeros((len(records), len(info.fcounters)), np.float64)
    for i, r in enumerate(records):
        for key, value in r["counters"].items():
            if key in info.counters:
                ints[i, info.counters.index(key)] = value
            elif key in info.fcounters:
                flts[i, info.fcounters.index(key)] = value
            else:
                raise KeyError(f"{module} has no counter {key}")
    return ints, flts


def build(path, nprocs=4, run_time=100, metadata="", mounts=(("/", "ext4"),
          ("/scratch", "lustre")), partial=0, dxt=None, lustre=None, **modules):
    """modules: name=[rec(...)] (MPI-IO as MPI_IO); dxt: {"POSIX": [segment dicts]}
    with keys name, rank, op ("read"/"write"), offset, length, start, end;
    lustre: [(name, stripe size, [OST ids])] one-component layouts."""
    mods = {k.replace("MPI_IO", "MPI-IO"): v for k, v in modules.items()}
    names = {}
    for records in mods.values():
        for r in records:
            names[record_id(r["name"])] = r["name"]
            if r["file"]:
                names[record_id(r["file"])] = r["file"]
    for name, _, _ in lustre or ():
        names[record_id(name)] = name
    for segs in (dxt or {}).values():
        for s in segs:
            names[record_id(s["name"])] = s["name"]
    order = sorted(list(mods) + ["DXT_" + m.replace("-", "") for m in (dxt or {})]
                   + (["LUSTRE"] if lustre else []),
                   key=lambda m: module_info(m).id)
    with Writer(path) as w:
        w.set_job(start_time_sec=1_700_000_000, end_time_sec=1_700_000_000 + run_time - 1,
                  nprocs=nprocs, jobid=7, metadata=metadata, exe="/scratch/app",
                  mounts=list(mounts))
        w.add_names(list(names), list(names.values()))
        for m in order:
            if m == "LUSTRE":
                w.put_lustre([record_id(n) for n, _, _ in lustre], [-1] * len(lustre),
                             [[{"stripe_size": ss, "stripe_count": len(o), "ext_end": -1, "osts": o}]
                              for _, ss, o in lustre])
                continue
            if m.startswith("DXT_"):
                _put_dxt(w, m, dxt[m[4:].replace("MPIIO", "MPI-IO")] if m[4:] in dxt
                         else dxt["MPI-IO"])
                continue
            recs = mods[m]
            ints, flts = _arrays(m, recs)
            file_ids = None
            if m in ("H5D", "PNETCDF_VAR"):
                file_ids = [record_id(r["file"] or r["name"]) for r in recs]
            w.put_records(m, [record_id(r["name"]) for r in recs], [r["rank"] for r in recs],
                          ints, flts, file_ids)
        if partial:
            w.set_partial(partial)
    return path


def _put_dxt(w, module, segs):
    keys = sorted({(s["name"], s["rank"]) for s in segs})
    ids, ranks, wc, rc, off, ln, st, en = [], [], [], [], [], [], [], []
    for name, rank in keys:
        mine = [s for s in segs if (s["name"], s["rank"]) == (name, rank)]
        writes = [s for s in mine if s["op"] == "write"]
        reads = [s for s in mine if s["op"] == "read"]
        ids.append(record_id(name))
        ranks.append(rank)
        wc.append(len(writes))
        rc.append(len(reads))
        for s in writes + reads:
            off.append(s.get("offset", 0))
            ln.append(s.get("length", MiB))
            st.append(s["start"])
            en.append(s["end"])
    w.put_dxt(module, ids, ranks, ["node0"] * len(ids), wc, rc, off, ln, st, en)


def seg(name, rank, op, start, end, offset=0, length=MiB):
    return {"name": name, "rank": rank, "op": op, "start": start, "end": end,
            "offset": offset, "length": length}


class LustreLog(iolens.Log):
    """A log written by build() plus LUSTRE layouts given as (name, stripe_size,
    stripe_count, [ost ids]) - the writer has no Python entry for LUSTRE records."""

    def __init__(self, path, layouts):
        super().__init__(path)
        self._layouts = layouts

    @property
    def modules(self):
        mods = dict(super().modules)
        mods["LUSTRE"] = {"id": module_info("LUSTRE").id, "version": 1, "partial": False,
                          "length": 1, "offset": 0}
        return mods

    def lustre(self):
        rows = [{"id": np.uint64(record_id(n)), "rank": -1, "name": n, "component": 0,
                 "LUSTRE_COMP_STRIPE_SIZE": size, "LUSTRE_COMP_STRIPE_COUNT": count,
                 "ost_ids": np.array(osts)} for n, size, count, osts in self._layouts]
        return pd.DataFrame(rows)
