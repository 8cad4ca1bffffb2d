"""Exceptions raised by iolens.

Every error of the C library arrives as a subclass of :class:`LogError` carrying
``status`` (the library's ``iolens_status`` code) and ``detail`` (its message).
The classes and the code -> class table live in the C extension (one table,
``python/src/core_errors.c``); this module only re-exports them.
"""
from . import _core

LogError = _core.LogError
CorruptLogError = _core.CorruptLogError
LogIOError = _core.LogIOError
LogMemoryError = _core.LogMemoryError
TruncatedLogError = _core.TruncatedLogError
NotALogError = _core.NotALogError
BadRegionError = _core.BadRegionError
DecompressError = _core.DecompressError
BadJobError = _core.BadJobError
BadNamesError = _core.BadNamesError
BadRecordError = _core.BadRecordError
UnsupportedError = _core.UnsupportedError
UnsupportedVersionError = _core.UnsupportedVersionError
UnsupportedCompressionError = _core.UnsupportedCompressionError
UnsupportedModuleVersionError = _core.UnsupportedModuleVersionError
UnknownModuleError = _core.UnknownModuleError
FeatureNotBuiltError = _core.FeatureNotBuiltError
InvalidArgumentError = _core.InvalidArgumentError
ModuleNotPresentError = _core.ModuleNotPresentError
#: A FIFO, device or socket given as a log (a LogIOError, so also an OSError).
NotARegularFileError = _core.NotARegularFileError

__all__ = [name for name in dir() if name.endswith("Error")]
