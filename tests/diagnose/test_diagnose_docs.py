"""docs/diagnosis.md lists every rule as the rule entries say (regenerate the block
with `python -m iolens.diagnose.docs`), and every threshold table is used."""
from __future__ import annotations

from pathlib import Path

from iolens.diagnose import RULES, default_thresholds
from iolens.diagnose.docs import rules_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "diagnosis.md"


def test_docs_hold_the_generated_rules():
    text = DOC.read_text(encoding="utf-8")
    assert rules_markdown() in text, "docs/diagnosis.md is stale: run python -m iolens.diagnose.docs"
    for rule in RULES:
        assert f"### `{rule.id}`" in text


def test_thresholds_are_all_read():
    """A threshold nobody reads is a setting that silently does nothing."""
    here = Path(__import__("iolens.diagnose").diagnose.__file__).parent
    src = "".join(p.read_text() for p in [*here.glob("checks_*.py"), here / "scale.py",
                                             here / "engine.py", here / "by_region.py"])
    for table, values in default_thresholds().items():
        for key in values:
            # read as th["key"] or tested as ctx.gate(..., "table.key")
            assert f'"{key}"' in src or f'"{table}.{key}"' in src, \
                f"threshold {table}.{key} is never read"
