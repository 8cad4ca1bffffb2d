"""Column-wise aggregates behind the report's figures and tables.

Every function takes the ReportData and returns small frames (bounded by the
number of interfaces, ranks, mount points or a top-N limit), never one Python
object per record."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..view.columns import amount
from .interfaces import DATA_MODULES, PREFIX, perf_module, present

TOP_N = 10
SIZE_BINS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M",
             "4M_10M", "10M_100M", "100M_1G", "1G_PLUS")


def overview(data) -> list:
    """Per interface: (interface, module, Perf, fraction of run time in I/O)."""
    rows = []
    for iface in present(data):
        module = perf_module(data, iface)
        if module is None:
            continue
        p = data.view.perf(module)
        frac = p.agg_time_by_slowest / data.run_time if data.run_time > 0 else float("nan")
        rows.append((iface.name, module, p, frac))
    return rows


def cost(data) -> pd.DataFrame:
    """Average seconds per process in read, write and metadata, per interface."""
    rows = {}
    for iface in present(data):
        sums = np.zeros(3)
        for module, frame in data.frames(iface.time_modules):
            prefix = PREFIX[module]
            for k, kind in enumerate(("READ", "WRITE", "META")):
                sums[k] += amount(frame, f"{prefix}F_{kind}_TIME").sum()
        rows[iface.name] = sums / data.nprocs
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=["read", "write", "metadata"])


def op_counts(data) -> dict:
    """{interface: Series(label -> count)} for interfaces with records."""
    out = {}
    for iface in present(data):
        counts = {}
        for label, counters in iface.ops:
            total = 0
            for name in counters:
                module = _module_of(name)
                frame = data.frame(module)
                if frame is not None and name in frame.columns:
                    total += int(np.clip(frame[name].to_numpy(), 0, None).sum())
            counts[label] = total
        out[iface.name] = pd.Series(counts)
    return out


def _module_of(counter: str) -> str:
    # Longest prefix first: PNETCDF_VAR_ must win over a shorter match.
    for module, prefix in sorted(PREFIX.items(), key=lambda kv: -len(kv[1])):
        if counter.startswith(prefix):
            return module
    raise KeyError(counter)


def size_histograms(data) -> dict:
    """{module: DataFrame(index=size bin, columns=read/write)} of access counts."""
    out = {}
    for module, frame in data.frames(DATA_MODULES):
        prefix = PREFIX[module]
        hist = {}
        for op in ("READ", "WRITE"):
            names = [_size_column(frame, prefix, op, b) for b in SIZE_BINS]
            if any(n is None for n in names):
                break
            hist[op.lower()] = [int(np.clip(frame[n].to_numpy(), 0, None).sum())
                                for n in names]
        if len(hist) == 2:
            out[module] = pd.DataFrame(hist, index=SIZE_BINS)
    return out


def _size_column(frame, prefix, op, size_bin):
    for name in (f"{prefix}SIZE_{op}_{size_bin}", f"{prefix}SIZE_{op}_AGG_{size_bin}"):
        if name in frame.columns:
            return name
    return None


def common_accesses(data) -> pd.DataFrame:
    """Most common access sizes per module, summed exactly over records."""
    parts = []
    for module in DATA_MODULES:
        frame = data.frame(module)
        prefix = PREFIX[module]
        if frame is None or f"{prefix}ACCESS1_ACCESS" not in frame.columns:
            continue
        sizes = np.concatenate([frame[f"{prefix}ACCESS{k}_ACCESS"].to_numpy() for k in range(1, 5)])
        counts = np.concatenate([frame[f"{prefix}ACCESS{k}_COUNT"].to_numpy() for k in range(1, 5)])
        keep = counts > 0
        if not keep.any():
            continue
        agg = (pd.DataFrame({"size": sizes[keep], "count": counts[keep]})
               .groupby("size")["count"].sum().nlargest(TOP_N).reset_index())
        agg.insert(0, "module", module)
        parts.append(agg)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
