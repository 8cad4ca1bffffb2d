"""Where the shared corpus lives, and helpers to parametrize tests over it.

Tests read ../shared relative to the repository root and skip with a visible
reason when it is absent; nothing from it is ever copied into the project.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / ".." / "shared").resolve()
CORPUS = SHARED / "corpus" / "logs"


def corpus_logs():
    """pytest params, one per corpus log (id = path relative to corpus/logs)."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"log corpus not found at {CORPUS} (../shared is absent)"))]
    logs = sorted(CORPUS.rglob("*.darshan"))
    return [pytest.param(p, id=str(p.relative_to(CORPUS))) for p in logs]


def rel(path: Path) -> str:
    return str(Path(path).resolve().relative_to(CORPUS))


def iolens_tool():
    """The C `iolens` command: $IOLENS_BIN, build/src/tools/iolens, then PATH."""
    env = os.environ.get("IOLENS_BIN")
    if env and Path(env).is_file():
        return env
    built = REPO / "build" / "src" / "tools" / "iolens"
    if built.is_file():
        return str(built)
    return shutil.which("iolens")
