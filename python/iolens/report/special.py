"""Files that are not the user's data: the standard streams and the files an
MPI library makes for itself (session directories, shared-memory segments,
lock probes, shared file pointers).

The runtime records them like any other file, and in a short job they crowd
the top-files tables and the mount-point chart.  The report lists them apart,
labelled, so that the user's own files come first.  The patterns are data: one
line per kind of file, with the library that makes it."""
from __future__ import annotations

import re

import pandas as pd

STREAM = "standard stream"
MPI_INTERNAL = "MPI-internal"

STREAM_NAMES = ("<STDIN>", "<STDOUT>", "<STDERR>")

MPI_INTERNAL_PATTERNS = (
    r"/ompi\.[^/]+\.\d+/",            # Open MPI 4 session directory (under any TMPDIR)
    r"/prte\.[^/]+\.\d+/",            # Open MPI 5 (PRRTE) session directory
    r"^/dev/shm/vader_segment\.",     # Open MPI vader shared-memory transport
    r"^/dev/shm/sm_segment\.",        # Open MPI 5 sm shared-memory transport
    r"^/dev/shm/ucx_shm_",            # UCX shared memory
    r"^/dev/shm/psm2?_shm\.",         # PSM/PSM2 shared memory
    r"^/dev/shm/mpich_shar_tmp",      # MPICH shared memory (older nemesis)
    r"^/dev/shm/shm-col-space-",      # MPICH collective shared memory
    r"\.locktest\.\d+$",              # Open MPI OMPIO: probes whether the file system locks
    r"/\.[^/]+\.shfp\.\d+$",          # ROMIO: the shared file pointer's hidden file
)
_MPI_INTERNAL = re.compile("|".join(f"(?:{p})" for p in MPI_INTERNAL_PATTERNS))


def kind_of(names: pd.Series) -> pd.Series:
    """Per file name: STREAM, MPI_INTERNAL, or "" for the user's own files."""
    text = names.astype(object).where(names.notna(), "").astype(str)
    kinds = pd.Series("", index=names.index, dtype=object)
    kinds[text.isin(STREAM_NAMES)] = STREAM
    kinds[text.str.contains(_MPI_INTERNAL, regex=True)] = MPI_INTERNAL
    return kinds


def is_special(names: pd.Series) -> pd.Series:
    """True where a name is a standard stream or an MPI-internal file."""
    return kind_of(names) != ""
