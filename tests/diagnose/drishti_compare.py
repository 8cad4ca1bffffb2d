"""Side by side: iolens diagnose and Drishti 0.8 on the same logs.

    python tests/diagnose/drishti_compare.py [LOG...]   (default: every corpus log)

prints a Markdown table (log | both | Drishti only | iolens only) in rule ids.
Drishti runs in a subprocess with its --csv export; its issue codes map to our
rules through DRISHTI_TO_RULE.  Codes that only describe the job (read/write
intensive, sequential access, aggregators OK) map to nothing."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DRISHTI_TO_RULE = {
    "S01": "stdio-heavy", "P05": "small-io", "P06": "small-io",
    "P07": "misaligned-memory", "P08": "misaligned-file",
    "P09": "redundant-reads", "P10": "redundant-writes",
    "P11": "random-access", "P13": "random-access",
    "P15": "small-io-shared", "P16": "small-io-shared", "P17": "metadata-time",
    "P18": "imbalance-shared", "P19": "imbalance-shared",
    "P21": "imbalance-ranks", "P22": "imbalance-ranks",
    "M01": "no-mpiio", "M02": "no-collective", "M03": "no-collective",
    "M04": "collective-used", "M05": "collective-used",
    "M06": "blocking-mpiio", "M07": "blocking-mpiio",
    "M08": "aggregators", "M09": "aggregators",
}
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "logs"


def drishti_bin():
    exe = Path(sys.executable).with_name("drishti")
    return str(exe) if exe.exists() else shutil.which("drishti")


def drishti_codes(log: str, timeout: float = 300) -> set:
    """Drishti's triggered issue codes for one log (raises on failure/timeout)."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([drishti_bin(), "--csv", "--export_dir", out, log],
                              capture_output=True, text=True, timeout=timeout, cwd=out)
        files = list(Path(out).glob("*.csv"))
        if not files:
            raise RuntimeError(f"drishti wrote no CSV for {log}: {proc.stderr[-500:]}")
        with open(files[0]) as fh:
            row = next(csv.DictReader(fh))
    return {code for code, value in row.items() if value == "True"}


def drishti_rules(log: str) -> set:
    return {DRISHTI_TO_RULE[c] for c in drishti_codes(log) if c in DRISHTI_TO_RULE}


def iolens_rules(log: str) -> set:
    from iolens.diagnose import diagnose
    return {f.rule.id for f in diagnose(log).findings}


def main(argv) -> int:
    logs = argv or sorted(str(p) for p in CORPUS.rglob("*.darshan"))
    print("| log | both | Drishti only | iolens only |\n|---|---|---|---|")
    for log in logs:
        try:
            theirs = drishti_rules(log)
        except (RuntimeError, subprocess.TimeoutExpired, StopIteration) as err:
            theirs = {f"(drishti failed: {type(err).__name__})"}
        ours = iolens_rules(log)
        cells = [", ".join(sorted(s)) or "-" for s in (ours & theirs, theirs - ours, ours - theirs)]
        print(f"| {os.path.basename(log)} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
