"""The interfaces the fleet store summarises, and how their counters are named.

The interfaces are the I/O modules with data counters (from the module
table); the "base" ones are the view's file-system layers (POSIX, STDIO, DFS,
DAOS).  Counter names are looked up in the module
tables compiled into the C core, so nothing here lists modules or counters by
hand: a new module with a <P>BYTES_READ counter gets its fleet columns.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple

from .._meta import data_modules, file_system_layers, module_info

# Every I/O module with data counters is summarised, in id order (the module
# table decides, so a new module gets its columns).  The "base" ones are the
# file-system layers (modules.def `layer`: POSIX, STDIO, DFS, DAOS): MPI-IO, H5D
# and PnetCDF sit above them, so their bytes are not added again in job totals.
SELECTED = data_modules()
BASE = file_system_layers()


@dataclass(frozen=True)
class Interface:
    module: str                 # printed module name, as iolens.Log.records() takes it
    key: str                    # column prefix in the store: posix, mpiio, stdio, ...
    prefix: str                 # counter prefix: "POSIX_", "MPIIO_", "PNETCDF_VAR_", ...
    reads: Tuple[str, ...]      # counters summed as "reads" (PyDarshan file_stats' definition)
    writes: Tuple[str, ...]
    base: bool

    def counter(self, suffix: str) -> Optional[str]:
        """Full counter name for a suffix, or None when the module lacks it."""
        name = self.prefix + suffix
        info = module_info(self.module)
        return name if name in info.counters or name in info.fcounters else None


def _op_counters(info, prefix: str, op: str) -> Tuple[str, ...]:
    # A module with a plain <P>READS counter uses it; modules that split
    # operations by kind (MPI-IO, PnetCDF) count independent plus collective
    # ones, as PyDarshan's file_stats does; DAOS counts array operations.
    for names in ((f"{prefix}{op}",), (f"{prefix}INDEP_{op}", f"{prefix}COLL_{op}"),
                  (f"{prefix}ARRAY_{op}",)):
        if all(n in info.counters for n in names):
            return names
    return ()


@functools.lru_cache(maxsize=None)
def interfaces() -> Tuple[Interface, ...]:
    out = []
    for module in SELECTED:
        info = module_info(module)
        read = next(c for c in info.counters if c.endswith("BYTES_READ"))
        prefix = read[: -len("BYTES_READ")]
        out.append(Interface(module=info.name, key=info.name.replace("-", "").lower(),
                             prefix=prefix, reads=_op_counters(info, prefix, "READS"),
                             writes=_op_counters(info, prefix, "WRITES"),
                             base=info.name in BASE))
    return tuple(out)


def by_name(name: str) -> Interface:
    """Interface by module name ("MPI-IO", "MPIIO", "posix") or store key ("mpiio")."""
    want = name.replace("-", "").lower()
    for itf in interfaces():
        if want in (itf.key, itf.module.replace("-", "").lower()):
            return itf
    raise KeyError(f"unknown interface {name!r}; choose from "
                   + ", ".join(i.module for i in interfaces()))
