"""The logs of ../shared/corpus-next, read like the corpus (spec 9, 10):

- ior_daos: IOR on DFS; the mount-point column of DFS and DAOS records holds the
  pool and container uuids, as a darshan-parser built with libuuid (the usual
  build) prints them;
- dxt_thread_ids: DXT_POSIX v2 / DXT_MPIIO v3 logs of upstream's development
  branch, whose segments carry thread ids (a `Pthread-ID` column and a `number of
  threads` line in darshan-dxt-parser's text).

`iolens parse`, `parse --total --file --perf` and `iolens dxt` must be byte-identical
to the reference output kept beside each log; no deviation is allowed here.
"""
from pathlib import Path

import pytest

from compat_helpers import SHARED, read_expected, run_iolens

NEXT = SHARED / "corpus-next"
LOGS = sorted((NEXT / "logs").rglob("*.darshan")) if (NEXT / "logs").is_dir() else []


def expected(log, kind):
    return NEXT / "expected" / log.parent.name / f"{log.stem}.{kind}.txt.xz"


CASES = [(log, kind, args)
         for log in LOGS
         for kind, args in (("parser", ["parse"]),
                            ("summary", ["parse", "--total", "--file", "--perf"]),
                            ("dxt", ["dxt"]))
         if expected(log, kind).is_file()]


def case_id(case):
    log, kind, _ = case
    return f"{log.parent.name}/{log.stem}:{kind}"


@pytest.fixture(scope="module")
def corpus_next():
    if not LOGS:
        pytest.skip(f"corpus-next logs not found at {NEXT / 'logs'}")
    return LOGS


def test_corpus_next_present(corpus_next):
    """Both groups the issue names are there, each with its reference texts."""
    groups = {log.parent.name for log in corpus_next}
    assert {"ior_daos", "dxt_thread_ids"} <= groups
    assert sum(expected(log, "parser").is_file() for log in corpus_next) == len(corpus_next)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_corpus_next_text(iolens_bin, corpus_next, case):
    log, kind, args = case
    ref = expected(log, kind)
    res = run_iolens(iolens_bin, args + [log])
    assert res.returncode == 0, res.stderr.decode(errors="replace")[:500]
    got = res.stdout.decode("utf-8", "surrogateescape")
    want = read_expected(ref)
    if got != want:
        gl, wl = got.split("\n"), want.split("\n")
        diff = [(i + 1, g, w) for i, (g, w) in enumerate(zip(gl, wl)) if g != w]
        diff += [(min(len(gl), len(wl)) + 1, "<length>", f"{len(gl)} vs {len(wl)} lines")]
        shown = "\n".join(f"  line {n}:\n    ours:     {g!r}\n    upstream: {w!r}"
                          for n, g, w in diff[:5])
        pytest.fail(f"{case_id(case)} differs from the reference:\n{shown}")


def test_dfs_uuids_in_mount_column(iolens_bin, corpus_next):
    """The DFS records name their pool and container, not N/A (a libuuid build's text)."""
    log = next(p for p in corpus_next if p.parent.name == "ior_daos")
    out = run_iolens(iolens_bin, ["parse", log]).stdout.decode()
    dfs = [ln.split("\t") for ln in out.splitlines() if ln.startswith("DFS\t")]
    assert dfs
    mounts = {f[6] for f in dfs}
    assert all(len(m) == 73 and m.count("-") == 8 and m[36] == ":" for m in mounts), mounts
    nouuid = run_iolens(iolens_bin, ["parse", "--no-uuid", log]).stdout.decode()
    assert {ln.split("\t")[6] for ln in nouuid.splitlines() if ln.startswith("DFS\t")} == {"N/A"}
