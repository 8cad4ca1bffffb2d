"""`iolens convert` round trips over the whole upstream corpus, for every option:
the output holds exactly the records the option asks for, as `iolens parse` and
the Python reader show them."""
import fnmatch
import re

import pytest

import iolens
from conv_helpers import record_lines, run
from rt_helpers import SHARED

LOGS = sorted((SHARED / "corpus" / "logs").rglob("*.darshan")) if SHARED.is_dir() else []
DXT = ("DXT_POSIX", "DXT_MPIIO")


def ids(logs):
    return [str(p.relative_to(SHARED / "corpus" / "logs")) for p in logs]


@pytest.fixture(params=LOGS or [None], ids=ids(LOGS) or ["no-corpus"])
def src(request, tool):
    if request.param is None:
        pytest.skip(f"upstream log corpus not found under {SHARED} (../shared)")
    r = run(tool, "parse", request.param, check=False)
    if r.returncode != 0:      # unreadable logs are the corrupt-input tests' business
        pytest.skip(f"iolens parse rejects {request.param.name}: {r.stderr.strip()[:200]}")
    return request.param


def convert(tool, src, out, *opts):
    r = run(tool, "convert", *opts, src, out, check=False)
    assert r.returncode == 0, f"convert {opts} {src.name}: {r.stderr}"
    return out


def dxt_frames(path):
    with iolens.open(path) as log:
        return {m: log.dxt(m) for m in DXT if m in log.modules}


def same(a, b):
    """Frames equal in values (categorical columns compared as values: their category
    lists follow what else the log holds)."""
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    conv = lambda df: df.astype({c: object for c in df.columns if df[c].dtype == "category"})  # noqa: E731
    return conv(a).equals(conv(b))


FORMATS = [[], ["--condense"], ["--none"], ["--bzip2"], ["--condense", "--bzip2"]]


def test_same_records(tool, src, tmp_path):
    lines, a = record_lines(tool, src), dxt_frames(src)
    for opts in FORMATS:
        out = convert(tool, src, tmp_path / "out.darshan", *opts)
        assert record_lines(tool, out) == lines, opts
        b = dxt_frames(out)
        assert a.keys() == b.keys()
        for m in a:
            assert same(a[m], b[m]), (m, opts)
        with iolens.open(out) as log:
            want = {"--none": "none", "--bzip2": "bzip2"}
            assert log.compression == next((want[o] for o in opts if o in want), "zlib")
        out.unlink()


def test_metadata_edits(tool, src, tmp_path):
    out = convert(tool, src, tmp_path / "out.darshan", "--reset-md", "--annotate", "study=io42",
                  "--annotate", "site=test=x")
    with iolens.open(out) as log:
        assert log.job["metadata"] == {"study": "io42", "site": "test=x"}
    assert record_lines(tool, out) == record_lines(tool, src)
    out2 = convert(tool, src, tmp_path / "out2.darshan", "--annotate", "extra=1")
    with iolens.open(src) as a, iolens.open(out2) as b:
        assert b.job["metadata"] == {**a.job["metadata"], "extra": "1"}


def _named(src):
    with iolens.open(src) as log:
        return dict(log.names)


def test_globs(tool, src, tmp_path):
    names = _named(src)
    out = convert(tool, src, tmp_path / "out.darshan", "--include-glob", "/*",
                  "--exclude-glob", "*[0-9]")
    keep = {str(i) for i, n in names.items()
            if fnmatch.fnmatchcase(n, "/*") and not fnmatch.fnmatchcase(n, "*[0-9]")}
    want = [l for l in record_lines(tool, src) if l[2] in keep]
    assert record_lines(tool, out) == want
    with iolens.open(out) as log:
        assert set(log.names) == {int(i) for i in keep}
        for m, df in dxt_frames(out).items():
            assert set(df["id"].astype(str)) <= keep


def test_one_file(tool, src, tmp_path):
    lines = record_lines(tool, src)
    if not lines:
        pytest.skip(f"{src.name} has no counter records")
    # the record with the most DXT segments (so DXT is exercised), else the first
    dxt = dxt_frames(src)
    rid = lines[0][2]
    for df in dxt.values():
        if len(df):
            rid = str(df["id"].value_counts().idxmax())
            break
    name = _named(src).get(int(rid))
    for k, arg in enumerate([rid] + ([name] if name else [])):   # by id, by path
        out = convert(tool, src, tmp_path / f"out{k}.darshan", "--file", arg)
        assert record_lines(tool, out) == [l for l in lines if l[2] == rid]
        got = dxt_frames(out)
        for m, df in dxt.items():
            want = df[df["id"] == int(rid)]
            have = got.get(m)
            if len(want):
                assert have is not None and same(have, want), (m, arg)
            else:
                assert have is None or not len(have)


def test_file_not_found(tool, src, tmp_path):
    r = run(tool, "convert", "--file", "/no/such/file/anywhere", src, tmp_path / "o", check=False)
    assert r.returncode == 1 and "--file" in r.stderr
    assert not (tmp_path / "o").exists()


def test_anonymized_records_and_no_names(tool, src, tmp_path):
    key = tmp_path / "key"
    run(tool, "keygen", key)
    out = convert(tool, src, tmp_path / "out.darshan", "--anonymize", key, "--none")
    a, b = record_lines(tool, src), record_lines(tool, out)
    assert strip(a) == strip(b)
    # references to other records follow their re-derived ids
    ref = lambda ls: [l[4] in {x[2] for x in ls} for l in ls if l[3].endswith("FILE_REC_ID")]  # noqa: E731
    assert ref(a) == ref(b)
    # --none: the file is the uncompressed regions, so searching it searches them all
    data = (tmp_path / "out.darshan").read_bytes()
    with iolens.open(src) as log:
        secrets = [n for n in log.names.values() if not n.startswith("<")
                   and not n.startswith("heatmap:")]
        secrets += [w for w in log.exe.split() if len(w) >= 4]
        for m in DXT:
            if m in log.modules:
                secrets += [h for h in log.dxt_records(m)["hostname"].unique() if h]
        secrets += [p for p, _ in log.mounts if len(p) >= 4]
        job = log.job
    leaked = [s for s in set(secrets) if _visible(s) and s.encode() in data]
    assert not leaked, f"{src.name}: survived anonymisation: {leaked[:5]}"
    with iolens.open(out) as log:
        assert log.job["uid"] != job["uid"] or job["uid"] == 0
        assert log.job["jobid"] != job["jobid"]
        assert set(log.job["metadata"]) == set(job["metadata"])


# Counters that name a site's storage (Lustre pools, DAOS pools and containers) or
# another record: pseudonymised, so compared apart.
NAMING = ("POOL_NAME", "UUID", "FILE_REC_ID")


def strip(lines):
    """Counter lines without record ids and names; naming counters reduced to
    'set or not'."""
    return sorted((l[0], l[1], l[3], l[4] if not l[3].endswith(NAMING) else l[4] not in ("", "0"))
                  for l in lines)


def _visible(s):
    """Worth searching for: long enough that a chance match in hex pseudonyms or
    counters is not plausible."""
    return len(s) >= 6 and not re.fullmatch(r"[0-9a-f/]+", s)
