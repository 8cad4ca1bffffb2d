"""iolens: HPC I/O characterization for Darshan logs.

Reading::

    import iolens
    with iolens.open("job.darshan") as log:
        df = log.records("POSIX")

Module and counter metadata (from the C core): ``iolens.modules()``,
``iolens.module_info(name)``, ``iolens.counter_names(name)``.
Writing: ``iolens.write_copy(src, dst, compression="bzip2")``, ``iolens.Writer``.
Regions (program phases): ``with iolens.region("epoch 3"): ...`` (docs/regions.md).
"""
from ._meta import ModuleInfo, counter_names, module_info, modules, record_id
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _error_names
from .log import Log, open, parse_metadata
from .regions import region
from .write import Writer, write_copy

__version__ = "0.1.0"

__all__ = ["Log", "ModuleInfo", "Writer", "counter_names", "module_info", "modules", "open",
           "parse_metadata", "record_id", "region", "write_copy"] + list(_error_names)
