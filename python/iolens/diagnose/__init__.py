"""`iolens diagnose`: find I/O problems in a log, show the evidence with numbers,
and say how to fix them.

>>> from iolens.diagnose import diagnose
>>> for f in diagnose("run.darshan").findings:
...     print(f.severity, f.rule.id, f.hit.message, f.hit.time_lost)

Rules are data (``rules.RULES``), thresholds live in ``thresholds.toml``.
"""
from .engine import Diagnosis, default_thresholds, diagnose, diagnose_log, load_thresholds
from .model import SEVERITIES, Finding, Hit, Rule
from .rules import RULES

__all__ = ["diagnose", "diagnose_log", "Diagnosis", "Finding", "Hit", "Rule", "RULES",
           "SEVERITIES", "default_thresholds", "load_thresholds"]
