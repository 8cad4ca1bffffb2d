"""darshan-parser's derived figures: the one Python entry point.

``parser_figures`` returns what ``iolens parse --total --file --perf`` prints,
computed by the format library (``include/iolens/metrics.h``) and never restated
in Python.  Formulas and their sources: docs/metrics-c.md.

Each module's figures are a dict::

    {"module": "POSIX", "records": 12,
     "total": {"POSIX_OPENS": 4, ..., "POSIX_F_READ_TIME": 0.25, ...},
     "files": {"total" | "read_only" | "write_only" | "read_write" | "unique" | "shared":
               {"count": files, "bytes": bytes moved, "max_offset": bytes or -1}},
     "perf":  {"total_bytes": bytes, "slowest_rank_io_time": s,
               "slowest_rank_meta_only_time": s, "slowest_rank_rw_only_time": s,
               "slowest_rank": rank, "shared_time_by_slowest": s,
               "agg_time_by_slowest": s, "agg_perf_by_slowest": MiB/s}}

Only modules whose modules.def `summary` column is PARSER have them
(``iolens.module_info(m).summaries``).
"""
from __future__ import annotations

import os
from typing import Optional, Union

from . import _core
from ._meta import module_info, modules, summary_modules  # noqa: F401 (re-exported)
from .log import Log

PathOrLog = Union[str, os.PathLike, Log]


def _present(c_log) -> set:
    return {mid for mid, _off, length, _ver in c_log.header()["modules"] if length}


def parser_figures(log_or_path: PathOrLog, module: Optional[Union[str, int]] = None):
    """darshan-parser's --total/--file/--perf figures of a log.

    With `module` (id, printed name or symbol): that module's dict, or None when
    the log has no region for it.  Without: {printed name: dict} for every module
    with figures that the log holds, in id order.  Raises InvalidArgumentError for
    a module without figures, UnknownModuleError for an unknown one, and the
    LogError subclasses of a log that cannot be read.
    """
    if isinstance(log_or_path, Log):
        c_log, owned = log_or_path._c, False
    else:
        c_log, owned = _core.Log(os.fspath(log_or_path)), True
    try:
        present = _present(c_log)
        if module is not None:
            info = module_info(module)
            if not info.summaries:
                return c_log.derive(info.id)      # raises InvalidArgumentError
            return c_log.derive(info.id) if info.id in present else None
        return {m.name: c_log.derive(m.id) for m in modules().values()
                if m.summaries and m.id in present}
    finally:
        if owned:
            c_log.close()

