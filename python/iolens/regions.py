"""Regions from Python: name the phases of a program so that the iolens runtime
attributes the I/O made inside each one (docs/regions.md)::

    import iolens
    for epoch in range(3):
        with iolens.region(f"epoch {epoch}"):
            train_one_epoch()

    @iolens.region("checkpoint")
    def save(model): ...

The runtime's ``iolens_region_begin``/``iolens_region_end`` are looked up in the
process (``ctypes``, the global symbol scope: the preloaded or linked runtime);
without a runtime every call does nothing.

Processes started inside a region (``multiprocessing`` with the spawn or
forkserver method, ``subprocess``) start in it too: while a region is open,
``IOLENS_REGION`` in ``os.environ`` names the innermost one, which the runtime of
a new process takes as its base region.  Fork children inherit the open
regions of the thread that forked.
"""
import contextlib
import ctypes
import os
import threading
from typing import Callable, Optional, Tuple

ENV = "IOLENS_REGION"

_lock = threading.Lock()
_api: Optional[Tuple[Callable, Callable]] = None
_looked_up = False
_env_stack = []          # (name, IOLENS_REGION before it), innermost last


def _find_api() -> Optional[Tuple[Callable, Callable]]:
    """The runtime's begin and end functions, or None (looked up once)."""
    global _api, _looked_up
    if _looked_up:
        return _api
    with _lock:
        if not _looked_up:
            try:
                proc = ctypes.CDLL(None)
                begin, end = proc.iolens_region_begin, proc.iolens_region_end
                for fn in (begin, end):
                    fn.argtypes, fn.restype = [ctypes.c_char_p], None
                _api = (begin, end)
            except (AttributeError, OSError):
                _api = None
            _looked_up = True
    return _api


def runtime_present() -> bool:
    """Whether the iolens runtime is in this process (regions are recorded)."""
    return _find_api() is not None


def _push_env(name: str) -> None:
    with _lock:
        _env_stack.append((name, os.environ.get(ENV)))
        os.environ[ENV] = name


def _pop_env(name: str) -> None:
    with _lock:
        for i in range(len(_env_stack) - 1, -1, -1):
            if _env_stack[i][0] == name:
                _, before = _env_stack.pop(i)
                if i == len(_env_stack):     # it was innermost: restore
                    if before is None:
                        os.environ.pop(ENV, None)
                    else:
                        os.environ[ENV] = before
                return


class region(contextlib.ContextDecorator):
    """A region named ``name``: a context manager and a function decorator.
    Nests; valid in any thread (each thread has its own stack of regions)."""

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise ValueError("a region needs a non-empty name")
        self.name = name
        self._bytes = name.encode("utf-8", "replace")

    def __enter__(self) -> "region":
        api = _find_api()
        if api is not None:
            api[0](self._bytes)
            _push_env(self.name)
        return self

    def __exit__(self, *exc) -> bool:
        api = _find_api()
        if api is not None:
            _pop_env(self.name)
            api[1](self._bytes)
        return False

    def __repr__(self) -> str:
        return f"iolens.region({self.name!r})"
