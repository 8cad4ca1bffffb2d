"""The LUSTRE module's liblustreapi layout source, end to end, without Lustre.

The preload shim of test_runtime_lustre.py makes a directory look like a Lustre
mount (mount table, statfs magic, `lustre.lov` values).  A test-only
liblustreapi.so.1 (progs/fake_lustreapi.c, built with the tests into its own
directory) answers llapi_layout_get_by_fd for the files there from text
descriptions of the same layouts.  With LD_LIBRARY_PATH pointing at it the runtime
loads it at init and the records must be the expected ones; with IOLENS_NO_LUSTRE_API=1
(or NO_LUSTRE_API in the config file), without the library, or when one of its calls
fails, the xattr path must give the same records.  One file ("which.dat") is
described differently to the two sources (OST 100 to the library, OST 200 in the
xattr), so every run also shows which source answered."""
import os
import subprocess

import pytest

from rt_helpers import logs_in, run_under
from test_runtime_lustre import (EXPECTED, LAYOUTS, expected_lines, lustre_lines, md,
                                 thread_probe)

INIT = 0x10
MIB = 1 << 20


def comp(cid, flags, start, end, size, count, pattern, pool, osts):
    """One line of a description (progs/fake_lustreapi.c)."""
    o = ",".join(str(x) for x in osts) or "-"
    return f"{cid} {flags} {start} {end} {size} {count} {pattern} {pool or '-'} {o}"


def describe(kind, *comps):
    return "\n".join([kind, *comps]) + "\n"


# The layouts of test_runtime_lustre.LAYOUTS as the library would give them.
API = {
    "plain.dat": (describe("plain", comp(0, 0, 0, "eof", MIB, 4, 0, "", [3, 7, 1, 5])), None),
    "pool.stdio": (describe("plain", comp(0, 0, 0, "eof", 4 * MIB, 2, 0, "flash", [10, 11])),
                   None),
    # the second close sees 8 more OSTs instantiated (the record outgrows its place)
    "pfl.dat": (describe("composite", comp(1, INIT, 0, MIB, MIB, 1, 0, "", [2]),
                         comp(2, 0, MIB, "eof", MIB, 8, 0, "", [])),
                describe("composite", comp(1, INIT, 0, MIB, MIB, 1, 0, "", [2]),
                         comp(2, INIT, MIB, "eof", MIB, 8, 0, "", range(20, 28)))),
    # Data on MDT: the library reports the count of a DoM component as "default"
    "dom.dat": (describe("composite", comp(1, INIT, 0, 65536, 65536, "default", 2, "", []),
                         comp(2, INIT, 65536, "eof", MIB, 2, 0, "", [4, 6])), None),
    "mirror.dat": (describe("composite", comp(0x10001, INIT, 0, "eof", MIB, 1, 0, "", [0]),
                            comp(0x20002, INIT | 1, 0, "eof", 2 * MIB, 2, 0, "ssd", [8, 9])),
                   None),
    "which.dat": (describe("plain", comp(0, 0, 0, "eof", MIB, 1, 0, "", [100])), None),
}
WHICH_XATTR = md(1, MIB, 1, [200])


def which(ost):
    return expected_lines([(MIB, 1, 0, 0, 0, -1, 0, "", [ost])])


@pytest.fixture(scope="module")
def parts(runtime):
    tests = runtime.parent.parent.parent / "tests" / "runtime"
    shim, prog = tests / "libiolens-lustre-shim.so", tests / "lustre_probe"
    fake = tests / "fake-lustreapi" / "liblustreapi.so.1"
    for p in (shim, prog, fake, old_library(fake)):
        if not p.exists():
            pytest.skip(f"{p.name} is not built beside {runtime} (ctest build tree)")
    return shim, prog, fake


def old_library(fake):
    """The fake library as Lustre before 2.11 has it (no llapi_layout_mirror_id_get)."""
    return fake.parent.parent / "fake-lustreapi-old" / fake.name


def run(runtime, tool, parts, tmp_path, library="path", extra=None):
    """The probe over every file, twice each; returns ({file: LUSTRE lines},
    parse text, probe stdout).  library: "path" (LD_LIBRARY_PATH), "old" (the same
    for the pre-2.11 library), "preloaded" (already in the process), or None."""
    shim, prog, fake = parts
    mnt, layouts = tmp_path / "lustre", tmp_path / "layouts"
    mnt.mkdir()
    layouts.mkdir()
    for name, (first, second) in LAYOUTS.items():
        (layouts / f"{name}.lov").write_bytes(first)
        if second is not None:
            (layouts / f"{name}.lov.2").write_bytes(second)
    (layouts / "which.dat.lov").write_bytes(WHICH_XATTR)
    for name, (first, second) in API.items():
        (layouts / f"{name}.api").write_text(first)
        if second is not None:
            (layouts / f"{name}.api.2").write_text(second)
    env = {"IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
           "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts),
           "LD_PRELOAD": f"{shim} {runtime}", "LUSTRE_PROBE_RANDOM": "1"}
    if library == "path":
        env["LD_LIBRARY_PATH"] = str(fake.parent)
    elif library == "old":
        env["LD_LIBRARY_PATH"] = str(old_library(fake).parent)
    elif library == "preloaded":
        env["LD_PRELOAD"] = f"{shim} {fake} {runtime}"
    env.update(extra or {})
    r = run_under(runtime, [prog] + [mnt / n for n in API], tmp_path / "logs", env)
    assert r.stderr == "", r.stderr           # the runtime and the library stay quiet
    logs = logs_in(tmp_path / "logs")
    assert len(logs) == 1, logs
    out = subprocess.run([str(tool), "parse", str(logs[0])], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return lustre_lines(out.stdout), out.stdout, r.stdout


def plain_random(parts):
    """The first value of the unseeded random() with no runtime and no library."""
    r = subprocess.run([str(parts[1])], env={**os.environ, "LUSTRE_PROBE_RANDOM": "1"},
                       capture_output=True, text=True, timeout=60, check=True)
    return r.stdout


def check_records(got, which_ost):
    assert set(got) == set(EXPECTED) | {"which.dat"}
    for name, comps in EXPECTED.items():
        assert got[name] == expected_lines(comps), name
    assert got["which.dat"] == which(which_ost)


def test_library_before_2_11_gives_the_records(runtime, tool, parts, tmp_path):
    """A liblustreapi without llapi_layout_mirror_id_get (before Lustre 2.11): the
    mirror ids come from the component ids (mirror.dat has mirrors 1 and 2), and
    every record is the one the newer library gives."""
    import ctypes
    lib = ctypes.CDLL(str(old_library(parts[2])))
    assert not hasattr(lib, "llapi_layout_mirror_id_get")
    assert hasattr(lib, "llapi_layout_comp_id_get")
    got, _, _ = run(runtime, tool, parts, tmp_path, "old")
    check_records(got, 100)


@pytest.mark.parametrize("library", ["path", "preloaded"])
def test_library_gives_the_records(runtime, tool, parts, tmp_path, library):
    """liblustreapi loaded at init (found through LD_LIBRARY_PATH), or already in the
    process: its layouts are recorded; its own reads (the descriptions) are not
    recorded; when the runtime loads it, the application's unseeded random()
    sequence is unchanged although the library's constructor reseeds it."""
    got, text, stdout = run(runtime, tool, parts, tmp_path, library)
    check_records(got, 100)
    layouts = str(tmp_path / "layouts")
    names = [line.split("\t")[5] for line in text.splitlines()
             if line.startswith(("POSIX\t", "STDIO\t"))]
    assert names and not [n for n in names if n.startswith(layouts)]
    if library == "path":       # preloaded, the library's constructor is the program's own
        assert stdout == plain_random(parts)


@pytest.mark.parametrize("how", ["environment", "config file"])
def test_switch_forces_the_xattr_path(runtime, tool, parts, tmp_path, how):
    """IOLENS_NO_LUSTRE_API=1 (or NO_LUSTRE_API in the config file): the library is not
    used although it is there, and the xattr gives the same records."""
    extra = {"IOLENS_NO_LUSTRE_API": "1"}
    if how == "config file":
        conf = tmp_path / "iolens.conf"
        conf.write_text("NO_LUSTRE_API\n")
        extra = {"DARSHAN_CONFIG_PATH": str(conf)}
    got, _, stdout = run(runtime, tool, parts, tmp_path, "path", extra)
    check_records(got, 200)
    assert stdout == plain_random(parts)


def test_no_library_gives_the_xattr_records(runtime, tool, parts, tmp_path):
    got, _, _ = run(runtime, tool, parts, tmp_path, None)
    check_records(got, 200)


@pytest.mark.parametrize("fn", ["llapi_layout_get_by_fd", "llapi_layout_comp_use",
                                "llapi_layout_ost_index_get", "llapi_layout_pool_name_get",
                                "llapi_layout_comp_extent_get"])
def test_failing_call_falls_back_to_the_xattr(runtime, tool, parts, tmp_path, fn):
    """Any failing library call sends the file to the xattr path: same records."""
    got, _, _ = run(runtime, tool, parts, tmp_path, "path", {"IOLENS_TEST_LLAPI_FAIL": fn})
    check_records(got, 200)


@pytest.mark.parametrize("sanitizer", ["none", "thread"])
def test_threads_closing_through_the_library(runtime, tool, parts, tmp_path, sanitizer):
    """8 threads close Lustre files at once (one shared file, one each, streams) with
    the layouts coming from the library: every file has the library's record, and
    ThreadSanitizer (IOLENS_TSAN_RUNTIME) reports nothing."""
    shim, prog, fake = parts
    got = thread_probe(runtime, tool, shim, prog, tmp_path, sanitizer,
                       {"default.lov": WHICH_XATTR,               # OST 200
                        "default.api": API["which.dat"][0]},      # OST 100
                       {"LD_LIBRARY_PATH": str(fake.parent)})
    assert all(v == which(100) for v in got.values())
