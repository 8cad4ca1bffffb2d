"""DXT segments carry the region they ran in (docs/regions.md, "DXT segments"): the
program progs/region_dxt.c writes and reads at offsets whose band says the region
(0-999 outside, 1000 outer, 2000 inner, 3000 a thread's own region, 5000 a fork
child's), so every segment's region is checked from its offset alone."""
import os
import struct
import subprocess
from pathlib import Path

import pytest

from rt_helpers import compile_prog, logs_in, run_under

iolens = pytest.importorskip("iolens")

BANDS = {0: None, 1: "outer", 2: "inner", 3: "worker", 5: "child"}
DXT_ON = {"DXT_ENABLE_IO_TRACE": "1"}


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return compile_prog(tmp_path_factory, "region_dxt.c", "-pthread",
                        f"-I{Path(__file__).resolve().parents[2] / 'include'}")


def run_prog(runtime, prog, tmp_path, mode="", env=None):
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    run_under(runtime, [prog, data] + ([mode] if mode else []), logs,
              extra_env={**DXT_ON, **(env or {})})
    return logs_in(logs)


def segments(log):
    with iolens.open(log) as lg:
        return lg.dxt()


def expected_region(offset):
    return BANDS[offset // 1000]


def check_bands(df):
    assert len(df) > 0
    for off, region in zip(df["offset"], df["region"]):
        want = expected_region(off)
        assert (region is pd_na() if want is None else region == want), (off, region)


def pd_na():
    import pandas as pd
    return pd.NA


def test_every_segment_has_the_region_it_ran_in(runtime, prog, tmp_path):
    """Nested regions, a thread in its own region and one in none: each segment's
    region is the innermost region of its thread; outside every region it is <NA>."""
    [log] = run_prog(runtime, prog, tmp_path)
    df = segments(log)
    check_bands(df)
    assert set(df["region"].dropna()) == {"outer", "inner", "worker"}
    assert df["region"].isna().sum() == 4          # offsets 0, 500, 10 and the read at 0


def test_dxt_bytes_equal_the_region_records(runtime, prog, tmp_path):
    """Every operation of the program is traced, so per region the DXT bytes equal
    the REGION module's POSIX bytes."""
    [log] = run_prog(runtime, prog, tmp_path)
    df = segments(log)
    with iolens.open(log) as lg:
        regs = lg.regions()
    posix = regs[regs["layer"] == "POSIX"].set_index("region")
    for region, rows in df.dropna(subset=["region"]).groupby("region"):
        assert rows[rows.op == "write"]["length"].sum() == posix.loc[region, "bytes_written"]
        assert rows[rows.op == "read"]["length"].sum() == posix.loc[region, "bytes_read"]


def test_fork_child_has_its_own_table(runtime, prog, tmp_path):
    """A fork child writes its own log: its segments name the inherited region and
    the child's own, through a table of its own."""
    logs = run_prog(runtime, prog, tmp_path, "fork")
    assert len(logs) == 2
    frames = [segments(log) for log in logs]
    child = next(f for f in frames if (f["offset"] >= 5000).any())
    parent = next(f for f in frames if f is not child)
    assert child["region"].tolist() == ["outer", "child"]
    check_bands(child)
    check_bands(parent)


def test_no_region_module_no_column_values(runtime, prog, tmp_path):
    """With the REGION module disabled there is no DXT_REGION module: the column is
    all <NA> and the DXT records are the same."""
    [log] = run_prog(runtime, prog, tmp_path, env={"DARSHAN_MOD_DISABLE": "REGION"})
    with iolens.open(log) as lg:
        assert "DXT_REGION" not in lg.modules
        df = lg.dxt()
    assert len(df) == 11 and df["region"].isna().all()


def test_no_region_opened_no_module(runtime, tmp_path):
    """A traced process that never opens a region writes the log it wrote before
    regions existed: no DXT_REGION module, no iolens_ext line."""
    src, logs = tmp_path / "src", tmp_path / "logs"
    src.write_bytes(b"x" * 10000)
    run_under(runtime, ["dd", f"if={src}", f"of={tmp_path / 'dst'}", "bs=1000"], logs,
              extra_env=DXT_ON)
    [log] = logs_in(logs)
    with iolens.open(log) as lg:
        assert "DXT_POSIX" in lg.modules and "DXT_REGION" not in lg.modules
        assert lg.dxt()["region"].isna().all()
    assert b"iolens_ext" not in Path(log).read_bytes()


def test_pydarshan_reads_the_dxt(runtime, prog, tmp_path):
    """The DXT segments keep upstream's layout: PyDarshan 3.5.0 reads them whole."""
    darshan = pytest.importorskip("darshan")
    [log] = run_prog(runtime, prog, tmp_path)
    rep = darshan.DarshanReport(str(log), read_all=True)
    [rec] = rep.records["DXT_POSIX"].to_df()
    ours = segments(log)
    assert rec["write_segments"]["offset"].tolist() == ours[ours.op == "write"]["offset"].tolist()
    assert rec["read_segments"]["offset"].tolist() == ours[ours.op == "read"]["offset"].tolist()
    assert "DXT_REGION" not in rep.modules


@pytest.mark.parametrize("verb", ["convert", "merge", "anonymize"])
def test_rewrites_keep_the_regions(runtime, tool, prog, tmp_path, verb):
    """convert, merge (the fork child's log becomes rank 1) and convert --anonymize
    (the regions' pseudonyms, as in the REGION records) keep every segment's region."""
    logs = run_prog(runtime, prog, tmp_path, "fork")
    out = tmp_path / "out.darshan"
    if verb == "merge":
        args = ["merge", "-o", out, *logs]
    elif verb == "convert":
        args = ["convert", logs[0], out]
    else:
        key = tmp_path / "key"
        key.write_text(os.urandom(32).hex() + "\n")
        args = ["convert", "--anonymize", key, logs[0], out]
    subprocess.run([str(a) for a in [tool, *args]], check=True, capture_output=True)
    df = segments(out)
    if verb == "anonymize":
        before = segments(logs[0])
        with iolens.open(out) as lg:
            pseudonyms = set(lg.regions()["region"])
        assert set(df["region"].dropna()) == pseudonyms and len(pseudonyms) == 1 + (
            before["region"].nunique() - 1)
        assert (df["region"].isna() == before["region"].isna()).all()
        # one pseudonym per region: the same grouping of segments
        assert df.groupby("region").size().sort_values().tolist() == \
            before.groupby("region").size().sort_values().tolist()
        return
    check_bands(df)
    if verb == "merge":
        assert df[df.offset >= 5000]["rank"].tolist() == [1]
        assert set(df["region"].dropna()) == {"outer", "inner", "worker", "child"}


def test_run_job_log_keeps_the_regions(runtime, tool, prog, tmp_path):
    """`iolens run` merges the processes' logs into one job log: the fork child's
    segments (rank 1) keep their regions."""
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update({**DXT_ON, "IOLENS_RUNTIME": str(runtime)})
    subprocess.run([str(tool), "run", "--logpath", str(logs), str(prog), str(data), "fork"],
                   env=env, check=True, capture_output=True, timeout=300)
    [log] = logs_in(logs)
    df = segments(log)
    check_bands(df)
    child = df[df["rank"] == 1]
    assert child["offset"].tolist() == [1500, 5000]
    assert child["region"].tolist() == ["outer", "child"]


def test_sigkill_recover(runtime, tool, prog, tmp_path):
    """The regions live in the DXT store beside the safety copy: `iolens recover` of a
    SIGKILLed process gives every segment its region (killed inside "inner")."""
    shm, logs, data = tmp_path / "shm", tmp_path / "logs", tmp_path / "data"
    for d in (shm, logs, data):
        d.mkdir()
    r = run_under(runtime, [prog, data, "kill"], logs, check=False,
                  extra_env={**DXT_ON, "DARSHAN_MMAP_LOGPATH": str(shm)})
    assert r.returncode == -9
    [copy] = list(shm.glob("*_mmap-log-*.darshan"))
    rec = subprocess.run([str(tool), "recover", "--logdir", str(logs), str(copy)],
                         capture_output=True, text=True)
    assert rec.returncode == 0, rec.stderr
    [log] = logs_in(logs)
    df = segments(log)
    assert sorted(df["offset"]) == [0, 500, 1000, 2000, 2000, 3000, 3000]
    check_bands(df)


def plain_copy(tool, log, tmp_path):
    """The log uncompressed, and where its DXT_REGION payload starts."""
    out = tmp_path / "plain.darshan"
    subprocess.run([str(tool), "convert", "--none", str(log), str(out)], check=True,
                   capture_output=True)
    raw = out.read_bytes()
    at = raw.index(b"iolens_ext=") + len(b"iolens_ext=")
    entries = raw[at:raw.index(b"\n", at)].decode().split(",")
    [entry] = [e for e in entries if e.startswith("42:")]
    off = int(entry.split(":")[2])
    names_at = struct.unpack_from("<Q", raw, 32)[0]      # the header's name map offset
    return out, names_at + off


@pytest.mark.parametrize("field, value, message", [
    (16, struct.pack("<I", 3), "has module 3"),                 # not a DXT module
    (24, struct.pack("<I", 255), "255 table entries"),          # table too large
    (20, struct.pack("<I", 0xffffffff), "claims"),              # more segments than bytes
    (20, struct.pack("<I", 10), "segment count differs"),       # 10 of 11 (same padding)
    ("index", b"\xc8", "names region 200"),                     # an index past the table
])
def test_hostile_region_bytes_are_refused(runtime, tool, prog, tmp_path, field, value, message):
    """The DXT_REGION records are checked against themselves and the DXT records:
    a clear error, never a crash."""
    [log] = run_prog(runtime, prog, tmp_path)
    plain, at = plain_copy(tool, log, tmp_path)
    raw = bytearray(plain.read_bytes())
    ntab = struct.unpack_from("<I", raw, at + 24)[0]
    pos = at + 32 + 8 * ntab + 1 if field == "index" else at + field   # segment 1: "outer"
    raw[pos:pos + len(value)] = value
    hacked = tmp_path / "hacked.darshan"
    hacked.write_bytes(bytes(raw))
    with pytest.raises(iolens.LogError, match=message):
        segments(hacked)
