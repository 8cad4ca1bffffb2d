"""The LUSTRE module end to end, without Lustre.

A preload shim (progs/lustre_shim.c, built with the tests) makes a temporary
directory look like a Lustre mount: the mount table lists it as "lustre", statfs
reports the Lustre magic and fgetxattr("lustre.lov") returns layout values that
this test builds from Lustre's public layout structures.  A small program
(progs/lustre_probe.c) writes files there under the runtime; the log must hold
one LUSTRE record per file with the layout's stripe settings and OST ids, as
`iolens parse`, upstream's darshan-parser and PyDarshan 3.5.0 read it.  (Under
MPI: tests/mpi/test_mpi_lustre.py.)"""
import os
import struct
import subprocess
from pathlib import Path

import pytest

from rt_helpers import logs_in, run_under, tsan_preload

HERE = Path(__file__).resolve().parent

UPSTREAM_PARSER = Path("/opt/upstream-3.5.0/bin/darshan-parser")
INIT = 0x10


# ---------------------------------------------------------------- layout values
def md(pattern, stripe_size, count, osts=(), pool=None):
    """A lov_user_md v1 (no pool) or v3 value: 32/48-byte header, 24-byte objects."""
    head = struct.pack("<II16sIHH", 0x0BD30BD0 if pool is not None else 0x0BD10BD0,
                       pattern, b"\x01" * 16, stripe_size, count, 1)
    if pool is not None:
        head += pool.encode().ljust(16, b"\0")
    return head + b"".join(struct.pack("<16sII", b"\0" * 16, 0, o) for o in osts)


def composite(comps):
    """A lov_comp_md v1 of (id, flags, start, end, md bytes) components."""
    n = len(comps)
    entries, blobs, at = b"", b"", 32 + 48 * n
    for cid, flags, start, end, blob in comps:
        entries += struct.pack("<IIQQIIIQI", cid, flags, start, end, at, len(blob), 1, 0, 0)
        blobs += blob
        at += len(blob)
    return struct.pack("<IIIHHHHIQ", 0x0BD60BD0, at, 1, 0, n, 0, 0, 0, 0) + entries + blobs


EOF = 2 ** 64 - 1
LAYOUTS = {
    # name: (first value, value from the second query on or None)
    "plain.dat": (md(1, 1 << 20, 4, [3, 7, 1, 5]), None),
    "pool.stdio": (md(1, 4 << 20, 2, [10, 11], pool="flash"), None),
    # PFL: [0, 1 MiB) on 1 OST, [1 MiB, EOF) on 8 OSTs once instantiated; the
    # second close sees the second component instantiated (the record must grow
    # beyond its first size).
    "pfl.dat": (composite([(1, INIT, 0, 1 << 20, md(1, 1 << 20, 1, [2])),
                           (2, 0, 1 << 20, EOF, md(1, 1 << 20, 8))]),
                composite([(1, INIT, 0, 1 << 20, md(1, 1 << 20, 1, [2])),
                           (2, INIT, 1 << 20, EOF, md(1, 1 << 20, 8, range(20, 28)))])),
    # Data on MDT, then one OST component.
    "dom.dat": (composite([(1, INIT, 0, 65536, md(0x100, 65536, 0)),
                           (2, INIT, 65536, EOF, md(1, 1 << 20, 2, [4, 6]))]), None),
    # Two mirrors (FLR): mirror ids 1 and 2.
    "mirror.dat": (composite([(0x10001, INIT, 0, EOF, md(1, 1 << 20, 1, [0])),
                              (0x20002, INIT | 0x1, 0, EOF, md(1, 2 << 20, 2, [8, 9], pool="ssd"))]),
                   None),
}
# name: [(stripe size, stripe count, pattern, flags, start, end, mirror, pool, osts)]
EXPECTED = {
    "plain.dat": [(1 << 20, 4, 0, 0, 0, -1, 0, "", [3, 7, 1, 5])],
    "pool.stdio": [(4 << 20, 2, 0, 0, 0, -1, 0, "flash", [10, 11])],
    "pfl.dat": [(1 << 20, 1, 0, INIT, 0, 1 << 20, 0, "", [2]),
                (1 << 20, 8, 0, INIT, 1 << 20, -1, 0, "", list(range(20, 28)))],
    "dom.dat": [(65536, 0, 2, INIT, 0, 65536, 0, "", []),
                (1 << 20, 2, 0, INIT, 65536, -1, 0, "", [4, 6])],
    "mirror.dat": [(1 << 20, 1, 0, INIT, 0, -1, 1, "", [0]),
                   (2 << 20, 2, 0, INIT | 0x1, 0, -1, 2, "ssd", [8, 9])],
}
COUNTERS = ["STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS", "EXT_START",
            "EXT_END", "MIRROR_ID"]
PATTERN_TEXT = {0: "raid0", 2: "mdt"}


def flags_text(v):
    names = "stale prefrd prefwr offline init nosync extension parity compress partial nocompr neg"
    set_ = [n for i, n in enumerate(names.split()) if v >> i & 1]
    return ",".join(set_) if set_ else "0"


def expected_lines(expected):
    """darshan-parser's LUSTRE lines (counter, value) of one file."""
    out = [("LUSTRE_NUM_COMPONENTS", str(len(expected))),
           ("LUSTRE_NUM_STRIPES", str(sum(c[1] for c in expected)))]
    for i, c in enumerate(expected, 1):
        vals = list(c[:7])
        for name, v in zip(COUNTERS, vals):
            if name == "STRIPE_PATTERN":
                v = PATTERN_TEXT[v]
            elif name == "FLAGS":
                v = flags_text(v)
            out.append((f"LUSTRE_COMP{i}_{name}", str(v)))
        out.append((f"LUSTRE_COMP{i}_POOL_NAME", c[7] or "N/A"))
        out += [(f"LUSTRE_COMP{i}_OST_ID_{j}", str(o)) for j, o in enumerate(c[8])]
    return out


def lustre_lines(text):
    """{file name: [(counter, value)]} of the LUSTRE lines of parser text."""
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) >= 6 and f[0] == "LUSTRE":
            out.setdefault(os.path.basename(f[5]), []).append((f[3], f[4]))
    return out


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def shim(runtime):
    return lustre_shim(runtime)


def lustre_shim(runtime):
    """The shim and the probe, built in the build tree of `runtime` (a library in
    <build>/src/runtime); skips when they are not there."""
    tests = runtime.parent.parent.parent / "tests" / "runtime"
    lib, prog = tests / "libiolens-lustre-shim.so", tests / "lustre_probe"
    if not lib.exists() or not prog.exists():
        pytest.skip(f"the Lustre shim and probe are not built beside {runtime} (ctest build tree)")
    return lib, prog


def run_probe(runtime, shim, tmp_path, names, use_shim=True, extra=None):
    lib, prog = shim
    mnt, layouts, logs = tmp_path / "lustre", tmp_path / "layouts", tmp_path / "logs"
    for d in (mnt, layouts):
        d.mkdir(exist_ok=True)
    for name, (first, second) in LAYOUTS.items():
        (layouts / f"{name}.lov").write_bytes(first)
        if second is not None:
            (layouts / f"{name}.lov.2").write_bytes(second)
    env = {"IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
           "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts)}
    if use_shim:
        env["LD_PRELOAD"] = f"{lib} {runtime}"
    env.update(extra or {})
    files = [mnt / n if not str(n).startswith("/") else n for n in names]
    run_under(runtime, [prog] + files, logs, env)
    found = logs_in(logs)
    assert len(found) == 1, found
    return found[0]


def thread_probe(runtime, tool, lib, prog, tmp_path, sanitizer, layout_files, env=None):
    """Run lustre_probe with 8 threads closing files on the fake mount (one file
    shared by all, one each, and streams), under ThreadSanitizer when asked; the
    layouts directory gets layout_files ({name: bytes or text}).  Checks the run
    and the file set, and returns the LUSTRE lines of `iolens parse`."""
    preload, env = f"{lib} {runtime}", dict(env or {})
    if sanitizer == "thread":
        libtsan, tsan_rt = tsan_preload()
        prog = tmp_path / "lustre_probe"
        subprocess.run(["cc", "-O1", "-g", "-pthread", "-fsanitize=thread", "-o", str(prog),
                        str(HERE / "progs" / "lustre_probe.c")], check=True, timeout=120)
        preload = f"{libtsan} {lib} {tsan_rt}"
        env["TSAN_OPTIONS"] = "halt_on_error=0 exitcode=66"
    mnt, layouts = tmp_path / "lustre", tmp_path / "layouts"
    mnt.mkdir()
    layouts.mkdir()
    for name, data in layout_files.items():
        if isinstance(data, bytes):
            (layouts / name).write_bytes(data)
        else:
            (layouts / name).write_text(data)
    env.update({"IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
                "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts)})
    r = run_under(preload, [prog, "--threads", "8", mnt], tmp_path / "logs", env, check=False)
    assert "ThreadSanitizer" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-2000:]
    logs = [p for p in logs_in(tmp_path / "logs") if "lustre_probe" in p.name]
    assert len(logs) == 1
    out = subprocess.run([str(tool), "parse", str(logs[0])], capture_output=True, text=True,
                         timeout=60).stdout
    got = lustre_lines(out)
    want = {"shared.dat"} | {f"thread-{t}.{x}" for t in range(8) for x in ("dat", "stdio")}
    assert set(got) == want
    return got


def upstream_agrees(log, got):
    """darshan-parser prints the same LUSTRE lines as ours (when it is installed)."""
    if UPSTREAM_PARSER.exists():
        up = subprocess.run([str(UPSTREAM_PARSER), str(log)], capture_output=True, text=True,
                            timeout=60)
        assert up.returncode == 0, up.stderr
        assert lustre_lines(up.stdout) == got
    else:
        print(f"darshan-parser not at {UPSTREAM_PARSER}: upstream check not run")


# ---------------------------------------------------------------- tests
def test_lustre_records_read_by_every_reader(runtime, tool, shim, tmp_path):
    outside = tmp_path / "elsewhere.dat"            # not on the fake Lustre mount
    log = run_probe(runtime, shim, tmp_path, list(LAYOUTS) + [outside])

    ours = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True,
                          timeout=60)
    assert ours.returncode == 0, ours.stderr
    got = lustre_lines(ours.stdout)
    assert set(got) == set(EXPECTED), ours.stdout[-3000:]
    for name, comps in EXPECTED.items():
        assert got[name] == expected_lines(comps), name
    # The fake mount is in the mount table with its type.
    assert any(line.startswith("# mount entry:") and line.endswith("\tlustre")
               for line in ours.stdout.splitlines())

    # Upstream's parser reads the same log and prints the same LUSTRE lines.
    upstream_agrees(log, got)

    # PyDarshan 3.5.0: one row per component with the counters, pool and OSTs.
    darshan = pytest.importorskip("darshan")
    with darshan.DarshanReport(str(log), read_all=True) as rep:
        df = rep.records["LUSTRE"].to_df()["components"]
        names = rep.name_records
    rows = {}
    for _, row in df.iterrows():
        rows.setdefault(os.path.basename(names[row["id"]]), []).append(row)
    assert set(rows) == set(EXPECTED)
    for name, comps in EXPECTED.items():
        assert len(rows[name]) == len(comps), name
        for row, c in zip(rows[name], comps):
            assert [int(row[f"LUSTRE_COMP_{k}"]) for k in COUNTERS] == list(c[:7]), name
            assert row["LUSTRE_POOL_NAME"] == c[7]
            assert list(row["LUSTRE_OST_IDS"]) == c[8]
        assert all(int(r["rank"]) == 0 for r in rows[name])


def test_symlink_into_lustre_found_by_fstatfs(runtime, tool, shim, tmp_path):
    """A path outside the Lustre mount that leads into it (a symbolic link) is found
    by the file's own statfs: the record is there, under the link's name."""
    (tmp_path / "lustre").mkdir()
    link = tmp_path / "scratch"
    link.symlink_to(tmp_path / "lustre")
    log = run_probe(runtime, shim, tmp_path, [link / "plain.dat"])
    out = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True,
                         timeout=60).stdout
    got = lustre_lines(out)
    assert got == {"plain.dat": expected_lines(EXPECTED["plain.dat"])}
    assert f"{link}/plain.dat" in out


def test_record_limit_sets_partial_flag(runtime, tool, shim, tmp_path):
    """MAX_RECORDS 1 LUSTRE: 1 KiB of records; what does not fit is left out and the
    log says the module is partial."""
    conf = tmp_path / "iolens.conf"
    conf.write_text("MAX_RECORDS 1 LUSTRE\n")
    log = run_probe(runtime, shim, tmp_path, list(LAYOUTS),
                    extra={"DARSHAN_CONFIG_PATH": str(conf)})
    r = subprocess.run([str(tool), "parse", "--show-incomplete", str(log)],
                       capture_output=True, text=True, timeout=60)
    got = lustre_lines(r.stdout)
    # 1 KiB holds the first four records (the grown PFL one moved once), not the fifth.
    assert set(got) == {"plain.dat", "pool.stdio", "pfl.dat", "dom.dat"}
    assert got["pfl.dat"] == expected_lines(EXPECTED["pfl.dat"])
    assert "*WARNING*: The LUSTRE module contains incomplete data!" in r.stdout
    assert "the LUSTRE data is partial" in r.stderr


@pytest.mark.parametrize("case", ["no shim", "module disabled"])
def test_no_lustre_no_module(runtime, tool, shim, tmp_path, case):
    """Without the shim the directory is no Lustre mount, and with
    DARSHAN_MOD_DISABLE=LUSTRE the module is off: no LUSTRE region at all."""
    log = run_probe(runtime, shim, tmp_path, list(LAYOUTS), use_shim=case == "module disabled",
                    extra={"DARSHAN_MOD_DISABLE": "LUSTRE"} if case == "module disabled" else None)
    out = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True,
                         timeout=60).stdout
    assert "LUSTRE module" not in out and "\nLUSTRE\t" not in out
    assert "POSIX\t" in out


@pytest.mark.parametrize("sanitizer", ["none", "thread"])
def test_threads_closing_lustre_files(runtime, tool, shim, tmp_path, sanitizer):
    """8 threads close Lustre files at once (one file shared by all, one each, and
    streams): every file has its record, and ThreadSanitizer (the TSan build named by
    IOLENS_TSAN_RUNTIME; scripts/test.sh builds one) reports nothing."""
    lib, prog = shim
    got = thread_probe(runtime, tool, lib, prog, tmp_path, sanitizer,
                       {"default.lov": LAYOUTS["plain.dat"][0]})
    assert all(v == expected_lines(EXPECTED["plain.dat"]) for v in got.values())
