"""The counters the report reads, per module: `Log.records(columns=...)` then
decodes only these, so a log with a million records costs the report a few
numeric columns instead of every counter.

The list is built from each module's counter table (never a hand-written list
of modules): every counter whose name, without the module's prefix, matches
one of READ_BY_REPORT; the operation counters of `interfaces.INTERFACES`; and
the counters the diagnosis rules declare (the report's Diagnosis section runs
them on the report's frames).  The dataset table shows nearly every counter of
the HDF5 dataset and PnetCDF variable records, which are few, so those modules
keep all their counters.  tests/python/test_report_user.py checks that a
report from the restricted frames equals one from the full records."""
from __future__ import annotations

import functools
import re

from .._meta import module_info
from .interfaces import INTERFACES

READ_BY_REPORT = re.compile(
    r"(BYTES_(READ|WRITTEN)|MAX_BYTE_(READ|WRITTEN)"           # perf.py: --perf, --file
    r"|F_(READ|WRITE|META)_TIME"                                # I/O cost, top files
    r"|(F_)?(FASTEST|SLOWEST)_RANK(_TIME|_BYTES)?"              # shared files
    r"|F_VARIANCE_RANK_(TIME|BYTES)"
    r"|F_\w+_(START|END)_TIMESTAMP"                             # access timeline
    r"|SIZE_(READ|WRITE)_\w+"                                   # access-size histograms
    r"|ACCESS[1-4]_(ACCESS|COUNT)"                              # common access sizes
    r"|(SEQ_|CONSEC_)?(READS|WRITES))")                         # sequential access

ALL_COUNTERS = ("H5D", "PNETCDF_VAR")   # the dataset table reads most of their counters


@functools.lru_cache(maxsize=None)
def report_columns(module: str):
    """The counters of `module` that the report reads (a sorted tuple), or None
    for all of them."""
    if module in ALL_COUNTERS:
        return None
    info = module_info(module)
    names = info.counters + info.fcounters
    wanted = {n for n in names
              if n.startswith(info.prefix) and READ_BY_REPORT.fullmatch(n[len(info.prefix):])}
    wanted |= {c for iface in INTERFACES for _, counters in iface.ops for c in counters
               if c in names}
    wanted |= {c for c in _diagnosis_needs().get(module, ()) if c in names}
    return tuple(sorted(wanted))


@functools.lru_cache(maxsize=1)
def _diagnosis_needs() -> dict:
    from ..diagnose.rules import RULES   # late: the diagnosis imports much
    out: dict = {}
    for rule in RULES:
        for module, counters in rule.needs.items():
            out.setdefault(module, set()).update(counters)
    return out
