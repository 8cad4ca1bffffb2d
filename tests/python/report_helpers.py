"""Shared helpers of the report tests: where the corpus and the C tool are,
and how to read the numbers back out of a report page."""
from __future__ import annotations

import html.parser
import lzma
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / ".." / "shared").resolve()
CORPUS = SHARED / "corpus" / "logs"
EXPECTED = SHARED / "corpus" / "expected"


def corpus_logs() -> list:
    return sorted(CORPUS.glob("**/*.darshan")) if CORPUS.is_dir() else []


def log_id(path: Path) -> str:
    return str(path.relative_to(CORPUS)) if CORPUS in path.parents else path.name


def need_corpus():
    if not corpus_logs():
        pytest.skip(f"log corpus not found at {CORPUS} (needs ../shared beside the repo)")


def corpus_log(part: str) -> Path:
    need_corpus()
    hits = [p for p in corpus_logs() if part in str(p)]
    if not hits:
        pytest.skip(f"corpus log matching {part!r} not found under {CORPUS}")
    return hits[0]


def iolens_bin() -> str | None:
    """The C `iolens` tool: $IOLENS_BIN, else build/src/tools/iolens, else PATH."""
    env = os.environ.get("IOLENS_BIN")
    if env:
        return env
    built = REPO / "build" / "src" / "tools" / "iolens"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built)
    return shutil.which("iolens")


def parser_text(path: Path, *flags) -> str | None:
    """Output of `iolens parse FLAGS LOG`, or None when the tool is missing or fails."""
    tool = iolens_bin()
    if tool is None:
        return None
    run = subprocess.run([tool, "parse", *flags, str(path)], capture_output=True,
                         text=True, timeout=120)
    return run.stdout if run.returncode == 0 else None


def upstream_summary(path: Path) -> str | None:
    """Upstream darshan-parser `--total --file --perf` output for a corpus log."""
    rel = path.relative_to(CORPUS).with_suffix("")
    xz = EXPECTED / rel.parent / (rel.name + ".summary.txt.xz")
    return lzma.open(xz, "rt").read() if xz.is_file() else None


_PERF = re.compile(r"# (total_bytes|agg_time_by_slowest|agg_perf_by_slowest): (\S+)")
_TOTAL = re.compile(r"total_(\w+?)_BYTES_(READ|WRITTEN): (\S+)")


def parser_numbers(text: str) -> dict:
    """{MODULE: {key: printed value}} from parser output with --perf/--total."""
    out, module = {}, None
    for line in text.splitlines():
        m = re.match(r"# (\S+) module data", line)
        if m:
            module = m.group(1)
            out[module] = {}
        elif module and (m := _PERF.match(line)):
            out[module][m.group(1)] = m.group(2)
        elif module and (m := _TOTAL.match(line)):
            key = "bytes_read" if m.group(2) == "READ" else "bytes_written"
            out[module][key] = m.group(3)
    return {k: v for k, v in out.items() if v}


class _Keys(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.values, self.ids = {}, set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if "data-key" in attrs and "data-value" in attrs:
            self.values[attrs["data-key"]] = attrs["data-value"]


def page_facts(text: str):
    """(element ids, {data-key: data-value}) of a report page."""
    keys = _Keys()
    keys.feed(text)
    return keys.ids, keys.values


def traced_dd(tmp: Path, block: int = 65536, **settings):
    """The log of `dd` copying 1 MiB in `block`-byte blocks under our runtime with
    DXT tracing on (plus `settings`, e.g. DXT_THREAD_IDS="1"), or None when the
    runtime or the tool is not built."""
    tool = iolens_bin()
    runtime = os.environ.get("IOLENS_RUNTIME") or REPO / "build/src/runtime/libiolens.so"
    if tool is None or not Path(runtime).exists():
        return None
    data = tmp / "data.bin"
    data.write_bytes(os.urandom(1 << 20))
    logs = tmp / "logs"
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(IOLENS_RUNTIME=str(runtime), DXT_ENABLE_IO_TRACE="1", **settings)
    run = subprocess.run([tool, "run", "--logpath", str(logs), "--", "dd", f"if={data}",
                          f"of={tmp / 'copy.bin'}", f"bs={block}"], capture_output=True,
                         text=True, timeout=120, env=env)
    found = list(logs.glob("*.darshan"))
    return found[0] if run.returncode == 0 and found else None
