"""Fixtures of the recovery tests: the runtime/tool fixtures of tests/runtime, plus
helpers to run programs with a private safety-copy directory and read logs."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from rt_helpers import runtime, tool  # noqa: E402,F401  (fixtures)
