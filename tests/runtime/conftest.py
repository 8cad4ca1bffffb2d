"""Fixtures of the runtime tests; the helpers live in rt_helpers.py."""
from rt_helpers import runtime, tool, shared, workloads  # noqa: F401  (fixtures)
