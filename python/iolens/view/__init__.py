"""One view of a log: the job-level figures every tool shows (I/O time, bytes
per layer, intervals, per-OST sums), computed once, with damaged records and
trace segments set aside when the view is built (docs/metrics.md).

>>> import iolens
>>> from iolens.view import JobView
>>> with iolens.open("run.darshan") as log:
...     view = JobView(log)
...     view.damage.lines()             # what was set aside
...     view.perf("POSIX")              # darshan-parser's --perf figures
...     view.intervals.gaps()           # idle gaps from operations' start and end
"""
from .damage import Damage, margin
from .intervals import IntervalScan
from .job import IO_MODULES, JobView
from .times import IoTime

__all__ = ["Damage", "IntervalScan", "IoTime", "IO_MODULES", "JobView", "margin", "open_view"]


def open_view(path, file=None) -> JobView:
    """Open the log at `path` and build its view (the log stays open with it)."""
    import iolens
    return JobView(iolens.open(path), file)
