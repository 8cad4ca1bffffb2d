"""Shared helpers of the fleet tests: corpus location, generated and damaged
logs, and running `iolens fleet` as a subprocess with a bounded wait."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = (REPO / ".." / "shared" / "corpus" / "logs").resolve()

# A facility config for the generated logs (synth.MOUNTS).
CONFIG = """
[classes]
scratch = ["/lus/scratch"]
home = ["/home"]
node-local = ["/tmp"]
"""


def corpus_logs() -> list:
    return sorted(str(p) for p in CORPUS.glob("**/*.darshan")) if CORPUS.is_dir() else []


def need_corpus() -> list:
    logs = corpus_logs()
    if not logs:
        pytest.skip(f"log corpus not found at {CORPUS} (needs ../shared beside the repo)")
    return logs


def fleet(*args, timeout=300, check=True):
    run = subprocess.run([sys.executable, "-m", "iolens.fleet.cli", *map(str, args)],
                         capture_output=True, text=True, timeout=timeout)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def write_config(directory: Path) -> str:
    path = directory / "facility.toml"
    path.write_text(CONFIG)
    return str(path)


def damaged_logs(directory: Path, good: str) -> dict:
    """Bad logs made from a good one: name -> expected reason fragment."""
    data = Path(good).read_bytes()
    os.makedirs(directory, exist_ok=True)
    cases = {
        "truncated.darshan": data[: len(data) // 2],
        "header-only.darshan": data[:40],
        "empty.darshan": b"",
        "garbage.darshan": b"this is not a darshan log at all\n" * 20,
        "flipped.darshan": data[:200] + bytes(b ^ 0xFF for b in data[200:400]) + data[400:],
    }
    for name, content in cases.items():
        (directory / name).write_bytes(content)
    return {str(directory / n): n for n in cases}
