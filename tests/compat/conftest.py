"""Fixtures of the compatibility tests; they live in compat_helpers.py."""
from compat_helpers import corpus_logs, iolens_bin, shared_dir  # noqa: F401  (fixtures)
