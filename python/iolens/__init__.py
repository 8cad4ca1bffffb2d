"""iolens: HPC I/O characterization for Darshan logs.

Reading::

    import iolens
    with iolens.open("job.darshan") as log:
        df = log.records("POSIX")

Module and counter metadata (from the C core): ``iolens.modules()``,
``iolens.module_info(name)``, ``iolens.counter_names(name)``.
Writing: ``iolens.write_copy(src, dst, compression="bzip2")``, ``iolens.Writer``.
"""
from ._meta import ModuleInfo, counter_names, module_info, modules, record_id
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _error_names

# The readers and writers (pandas) load on first use, so that a verb that needs
# only the metadata (`iolens top`, `iolens exporter`: docs/live.md) stays small.
_LAZY = {"Log": "log", "open": "log", "parse_metadata": "log",
         "Writer": "write", "write_copy": "write"}


def __getattr__(name):
    from importlib import import_module
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in ("log", "write"):                 # the submodules themselves
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__version__ = "0.1.0"

__all__ = ["Log", "ModuleInfo", "Writer", "counter_names", "module_info", "modules", "open",
           "parse_metadata", "record_id", "write_copy"] + list(_error_names)
