"""Logs with LUSTRE records and platform metadata, written by our writer: our
readers (Log.lustre, Log.platform, Log.mount_facts, `iolens parse`/`dxt`, the
report's Platform and Lustre sections, anonymisation) against darshan-parser,
darshan-dxt-parser and PyDarshan 3.5.0."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import iolens
from iolens.report import render_html
from iolens.write import Writer
from report_helpers import iolens_bin, page_facts

MiB, GiB = 1 << 20, 1 << 30
UPSTREAM = Path("/opt/upstream-3.5.0/bin")
MOUNTS = [("/", "ext4"), ("/lus/scratch", "lustre"), ("/local", "xfs")]
# mntfs follows the mount table longest first: /lus/scratch, /local, /
METADATA = ("lib_ver=iolens-0.1.0\nnnodes=3\nppn=4\nmntfs=s1M,l4K,l4K\n"
            "sched=slurm,tasks:12,part:debug\ncpu=Test CPU 9000\ncores=64\nmem_mib=257000\n"
            "net=ib0:100000\nhosts=nid[01-03]\ntmpfs=/dev/shm\n")
BIG, WIDE, PFL = "/lus/scratch/big.dat", "/lus/scratch/wide.dat", "/lus/scratch/pfl.dat"
LOCAL = "/local/tmp/scratch.dat"
NAMES = [BIG, WIDE, PFL, LOCAL]

PLAIN = lambda size, osts: [dict(stripe_size=size, stripe_count=len(osts), stripe_pattern=0,  # noqa: E731
                                 flags=0, ext_start=0, ext_end=-1, osts=osts)]
LAYOUTS = {
    BIG: PLAIN(MiB, [3]),                                       # 4 GiB shared file on one OST
    WIDE: PLAIN(MiB, [0, 1, 2, 4]),                             # 512 KiB file over 4 OSTs
    PFL: [dict(stripe_size=MiB, stripe_count=1, flags=16, ext_start=0, ext_end=64 * MiB,
               pool="fast", osts=[5]),
          dict(stripe_size=MiB, stripe_count=4, flags=16, ext_start=64 * MiB, ext_end=-1,
               osts=[6, 7, 8, 9])],
}
POSIX = {  # name: (rank, bytes written, extent, common access size)
    BIG: (-1, 4 * GiB, 4 * GiB, 4 * MiB),
    WIDE: (0, 512 * 1024, 512 * 1024, 512 * 1024),
    PFL: (0, 256 * MiB, 256 * MiB, MiB),
    LOCAL: (-1, 8 * MiB, 8 * MiB, MiB),
}
# DXT segments of the PFL file: one in each component, one across the boundary
SEGMENTS = [(0, MiB), (63 * MiB, 2 * MiB), (100 * MiB, 5 * MiB)]


def write_log(path: Path, *, lustre=True, metadata=METADATA, compression="zlib"):
    info = iolens.module_info("POSIX")
    ids = [iolens.record_id(n) for n in NAMES]
    ints = np.zeros((len(NAMES), len(info.counters)), np.int64)
    flts = np.zeros((len(NAMES), len(info.fcounters)), np.float64)
    col = info.counters.index
    for i, n in enumerate(NAMES):
        rank, nbytes, extent, access = POSIX[n]
        ints[i, col("POSIX_OPENS")] = 1
        ints[i, col("POSIX_WRITES")] = max(1, nbytes // access)
        ints[i, col("POSIX_BYTES_WRITTEN")] = nbytes
        ints[i, col("POSIX_MAX_BYTE_WRITTEN")] = extent - 1
        ints[i, col("POSIX_ACCESS1_ACCESS")] = access
        ints[i, col("POSIX_ACCESS1_COUNT")] = max(1, nbytes // access)
        size_bin = "100K_1M" if access < MiB else "1M_4M" if access < 4 * MiB else "4M_10M"
        ints[i, col("POSIX_SIZE_WRITE_" + size_bin)] = max(1, nbytes // access)
        flts[i, info.fcounters.index("POSIX_F_WRITE_TIME")] = nbytes / GiB
    with Writer(path, compression) as w:
        w.set_job(start_time_sec=1_700_000_000, end_time_sec=1_700_000_100, nprocs=12, jobid=5,
                  metadata=metadata, exe="/lus/scratch/app -n 12", mounts=MOUNTS)
        w.add_names(ids, NAMES)
        w.put_records("POSIX", ids, [POSIX[n][0] for n in NAMES], ints, flts)
        if lustre:
            lus = [BIG, WIDE, PFL]
            w.put_lustre([iolens.record_id(n) for n in lus], [-1] * 3, [LAYOUTS[n] for n in lus])
        w.put_dxt("DXT_POSIX", [iolens.record_id(PFL)], [0], ["nid02"], [len(SEGMENTS)], [0],
                  [o for o, _ in SEGMENTS], [n for _, n in SEGMENTS],
                  [float(i) for i in range(len(SEGMENTS))],
                  [i + 0.5 for i in range(len(SEGMENTS))])
    return path


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return write_log(tmp_path_factory.mktemp("lus") / "lustre.darshan")


def run(*argv, check=True):
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, f"{argv}: {r.stderr}"
    return r


def test_lustre_frame_and_platform(log):
    with iolens.open(log) as lg:
        frame = lg.lustre()
        p = lg.platform
        mounts = lg.mount_facts.set_index("mount")
    pfl = frame[frame["name"] == PFL].sort_values("component")
    assert list(pfl["num_comps"]) == [2, 2] and list(pfl["num_stripes"]) == [5, 5]
    assert [list(o) for o in pfl["ost_ids"]] == [[5], [6, 7, 8, 9]]
    assert list(pfl["pool_name"]) == ["fast", ""]
    assert list(pfl["LUSTRE_COMP_EXT_END"]) == [64 * MiB, -1]
    big = frame[frame["name"] == BIG].iloc[0]
    assert big["LUSTRE_COMP_STRIPE_COUNT"] == 1 and list(big["ost_ids"]) == [3]
    assert p["nnodes"] == "3" and p["hosts"] == "nid[01-03]" and p["cpu"] == "Test CPU 9000"
    assert mounts.at["/lus/scratch", "kind"] == "shared"
    assert mounts.at["/lus/scratch", "block_size"] == MiB
    assert mounts.at["/local", "kind"] == "node-local"
    assert mounts.at["/dev/shm", "kind"] == "node-local"


def test_text_tools_match_upstream(log):
    """`iolens parse` and `iolens dxt` (OSTs per segment) print what
    darshan-parser and darshan-dxt-parser print for the same log."""
    tool = iolens_bin()
    if tool is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    ours = run(tool, "dxt", log).stdout
    # every segment of the PFL file lists the OSTs it touches
    rows = [ln for ln in ours.splitlines() if ln.lstrip().startswith("X_POSIX")]
    assert len(rows) == 3
    assert rows[0].rstrip().endswith("[5]")
    assert rows[1].rstrip().endswith("[5] [6]")
    assert rows[2].rstrip().endswith("[6] [7] [8] [9]")
    if not (UPSTREAM / "darshan-parser").exists():
        pytest.skip(f"upstream darshan-parser not found in {UPSTREAM}")
    assert run(UPSTREAM / "darshan-dxt-parser", log).stdout == ours
    theirs = run(UPSTREAM / "darshan-parser", log).stdout
    assert "LUSTRE_COMP2_OST_ID_3" in theirs and "# metadata: hosts = nid[01-03]" in theirs
    assert run(tool, "parse", log).stdout == theirs


def test_pydarshan_reads_lustre_and_platform(log):
    darshan = pytest.importorskip("darshan")
    report = darshan.DarshanReport(str(log), read_all=True)
    meta = report.metadata["job"]["metadata"]
    assert meta["hosts"] == "nid[01-03]" and meta["mntfs"] == "s1M,l4K,l4K"
    assert "LUSTRE" in report.modules
    assert len(report.records["LUSTRE"]) == 3


def test_report_sections(log, tmp_path):
    with iolens.open(log) as lg:
        page = render_html(lg)
    ids, values = page_facts(page)
    assert {"sec-platform", "sec-lustre", "platform-table", "mount-facts-table", "lustre-table",
            "fig-ost-spread", "ost-table", "lustre-fit-table"} <= ids
    assert '<a href="#sec-platform">' in page and '<a href="#sec-lustre">' in page
    assert values["platform.nnodes.value"] == "3"
    assert values["platform.hosts.value"] == "nid[01-03] (3 names)"
    assert values["mount./local.kind"] == "node-local"
    assert values["mount./lus/scratch.block_size"] == str(MiB)
    assert values[f"lustre.{PFL}.stripe_count"] == "1"
    # bytes per OST: BIG's 4 GiB on OST 3 (estimated: no trace); PFL's traced
    # segments placed exactly: 1 MiB + the first half of the 63-65 MiB write on OST 5,
    # the other half on 6, the write at 100-105 MiB over stripes 36-40 (6 7 8 9 6)
    assert float(values["ost.3.bytes"]) == 4 * GiB
    assert float(values["ost.5.bytes"]) == pytest.approx(2 * MiB)
    assert float(values["ost.6.bytes"]) == pytest.approx(3 * MiB)
    assert all(float(values[f"ost.{o}.bytes"]) == pytest.approx(MiB) for o in (7, 8, 9))
    # WIDE's 512 KiB lie in its first stripe: only OST 0 holds data
    assert float(values["ost.0.bytes"]) == 512 * 1024 and "ost.1.bytes" not in values
    assert "single OST" in values[f"misfit.{BIG}"]
    assert "fits in one stripe" in values[f"misfit.{WIDE}"]
    assert f"misfit.{PFL}" not in values


def test_report_leaves_out_sections_without_data(tmp_path):
    path = write_log(tmp_path / "plain.darshan", lustre=False, metadata="lib_ver=x\n")
    with iolens.open(path) as lg:
        page = render_html(lg)
    ids, _ = page_facts(page)
    assert not {"sec-platform", "sec-lustre", "platform-table", "lustre-table"} & ids
    assert "#sec-platform" not in page and "#sec-lustre" not in page


def test_anonymised_hosts_match_dxt_pseudonyms(log, tmp_path):
    tool = iolens_bin()
    if tool is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    key, out = tmp_path / "k", tmp_path / "anon.darshan"
    run(tool, "keygen", key)
    run(tool, "convert", "--anonymize", key, "--none", log, out)    # uncompressed output
    with iolens.open(out) as lg:
        p = lg.platform
        dxt_host = lg.dxt_records("POSIX")["hostname"].iloc[0]
    hosts = p["hosts"].split(",")
    assert len(hosts) == 3 and all(h.startswith("h") and len(h) == 17 for h in hosts)
    assert dxt_host in hosts and dxt_host != "nid02"           # nid02's pseudonym in both
    assert p["cpu"] == "Test CPU 9000" and p["nnodes"] == "3" and p["mntfs"] == "s1M,l4K,l4K"
    assert "debug" not in p["sched"] and "ib0" not in p["net"] and p["sched"].startswith("v")
    raw = out.read_bytes()
    assert b"nid0" not in raw and b"nid[" not in raw and b"debug" not in raw


def test_anonymiser_survives_hostile_host_lists(tmp_path):
    """Host lists are parsed from a log, i.e. from hostile input: huge ranges,
    unbalanced brackets and over-long values give bounded, valid output."""
    tool = iolens_bin()
    if tool is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    bad = ("hosts=x[0-999999999999999],[,]],a[00000000000000000000000001-3],b[1-2\n"
           "cpu=" + "c" * 400 + "\n")
    src, out, key = tmp_path / "bad.darshan", tmp_path / "anon.darshan", tmp_path / "k"
    with Writer(src) as w:
        w.set_job(nprocs=1, metadata=bad, exe="a", mounts=[("/", "ext4")])
    run(tool, "keygen", key)
    run(tool, "convert", "--anonymize", key, src, out)
    with iolens.open(out) as lg:
        meta = lg.job["metadata"]
    assert len(meta["hosts"]) <= 256 and meta["hosts"].rsplit(",", 1)[1].startswith("+")
    assert int(meta["hosts"].rsplit("+", 1)[1]) > 10 ** 14          # the range was counted
    assert "c" * 20 not in meta["cpu"]        # too long to keep: pseudonymised
