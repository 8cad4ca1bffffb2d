"""LUSTRE records survive a SIGKILL (docs/recovery.md).

Under the Lustre test shim (test_runtime_lustre.py), the probe closes every file of
test_runtime_lustre.LAYOUTS twice (the PFL file's record grows at its second close
and moves in the store) and then kills itself with SIGKILL.  No log is written;
the safety copy and its LUSTRE store (<copy>.lustre) are left, and `iolens
recover` must give a log with the expected LUSTRE records, read by our parser,
upstream's darshan-parser and PyDarshan, then delete the copy and the store."""
import subprocess

import pytest

from rt_helpers import logs_in, run_under
from test_runtime_lustre import EXPECTED, LAYOUTS, expected_lines, lustre_lines, upstream_agrees


@pytest.fixture(scope="module")
def parts(runtime):
    tests = runtime.parent.parent.parent / "tests" / "runtime"
    shim, prog = tests / "libiolens-lustre-shim.so", tests / "lustre_probe"
    if not shim.exists() or not prog.exists():
        pytest.skip(f"the Lustre shim and probe are not built beside {runtime} (ctest build tree)")
    return shim, prog


def killed_run(runtime, parts, tmp_path, extra=None):
    shim, prog = parts
    mnt, layouts, mmap = tmp_path / "lustre", tmp_path / "layouts", tmp_path / "mmap"
    for d in (mnt, layouts, mmap):
        d.mkdir()
    for name, (first, second) in LAYOUTS.items():
        (layouts / f"{name}.lov").write_bytes(first)
        if second is not None:
            (layouts / f"{name}.lov.2").write_bytes(second)
    env = {"IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
           "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts), "LD_PRELOAD": f"{shim} {runtime}",
           "DARSHAN_MMAP_LOGPATH": str(mmap), "LUSTRE_PROBE_KILL": "1", **(extra or {})}
    r = run_under(runtime, [prog] + [mnt / n for n in LAYOUTS], tmp_path / "logs", env,
                  check=False)
    assert r.returncode == -9, r.stderr
    assert logs_in(tmp_path / "logs") == []
    return mmap


def plain_mount(runtime, parts, tmp_path, extra):
    """A fake Lustre mount whose files all have the plain layout: (probe, mount,
    safety-copy directory, environment with `extra`)."""
    shim, prog = parts
    mnt, layouts, mmap = tmp_path / "lustre", tmp_path / "layouts", tmp_path / "mmap"
    for d in (mnt, layouts, mmap):
        d.mkdir()
    (layouts / "default.lov").write_bytes(LAYOUTS["plain.dat"][0])
    env = {"IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
           "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts), "LD_PRELOAD": f"{shim} {runtime}",
           "DARSHAN_MMAP_LOGPATH": str(mmap), **extra}
    return prog, mnt, mmap, env


def recover(tool, mmap, logdir):
    copies = sorted(p for p in mmap.iterdir() if p.name.endswith(".darshan"))
    assert len(copies) == 1, list(mmap.iterdir())
    logdir.mkdir()
    r = subprocess.run([str(tool), "recover", "--logdir", str(logdir), str(copies[0])],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    found = logs_in(logdir)
    assert len(found) == 1
    return found[0]


def test_lustre_records_recovered_after_sigkill(runtime, tool, parts, tmp_path):
    mmap = killed_run(runtime, parts, tmp_path)
    stores = [p for p in mmap.iterdir() if p.name.endswith(".darshan.lustre")]
    assert len(stores) == 1, list(mmap.iterdir())
    log = recover(tool, mmap, tmp_path / "recovered")
    assert list(mmap.iterdir()) == []            # copy and store deleted
    out = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "# metadata: recovered = 1" in out.stdout.splitlines()
    got = lustre_lines(out.stdout)
    assert set(got) == set(EXPECTED)
    for name, comps in EXPECTED.items():
        assert got[name] == expected_lines(comps), name
    upstream_agrees(log, got)
    # PyDarshan 3.5.0 reads the recovered region: one row per kept component
    darshan = pytest.importorskip("darshan")
    with darshan.DarshanReport(str(log), read_all=True) as rep:
        df = rep.records["LUSTRE"].to_df()["components"]
    assert len(df) == sum(len(c) for c in EXPECTED.values())


def test_no_store_without_safety_copy(runtime, tool, parts, tmp_path):
    """IOLENS_NO_SAFETY_COPY: no copy and no store file; the records of a normal run
    are still written (the store is then anonymous memory)."""
    prog, mnt, mmap, env = plain_mount(runtime, parts, tmp_path, {"IOLENS_NO_SAFETY_COPY": "1"})
    run_under(runtime, [prog, mnt / "a.dat", mnt / "b.dat"], tmp_path / "logs", env)
    assert list(mmap.iterdir()) == []
    out = subprocess.run([str(tool), "parse", str(logs_in(tmp_path / "logs")[0])],
                         capture_output=True, text=True, timeout=60).stdout
    got = lustre_lines(out)
    assert got == {n: expected_lines(EXPECTED["plain.dat"]) for n in ("a.dat", "b.dat")}


@pytest.mark.parametrize("damage", ["version", "magic", "short"])
def test_damaged_store_is_named_and_skipped(runtime, tool, parts, tmp_path, damage):
    """A store that is not one recover can read (another record version, a wrong
    magic, shorter than its header) costs only the LUSTRE records: recover says
    which file and why, and writes the log with the process's counters."""
    mmap = killed_run(runtime, parts, tmp_path)
    store = next(p for p in mmap.iterdir() if p.name.endswith(".darshan.lustre"))
    data = bytearray(store.read_bytes())
    if damage == "version":
        data[8:12] = (3).to_bytes(4, "little")
    elif damage == "magic":
        data[0:8] = b"NOTLUSTR"
    else:
        data = data[:5]
    store.write_bytes(bytes(data))
    copy = next(p for p in mmap.iterdir() if p.name.endswith(".darshan"))
    logdir = tmp_path / "recovered"
    logdir.mkdir()
    r = subprocess.run([str(tool), "recover", "--logdir", str(logdir), str(copy)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    want = ("record version 3, not 2" if damage == "version" else "not a LUSTRE store")
    assert store.name in r.stderr and want in r.stderr, r.stderr
    out = subprocess.run([str(tool), "parse", str(logs_in(logdir)[0])], capture_output=True,
                         text=True, timeout=60).stdout
    assert lustre_lines(out) == {}
    assert any(line.startswith("POSIX\t") for line in out.splitlines())


def test_no_store_until_a_lustre_file_is_closed(runtime, tool, parts, tmp_path):
    """On a Lustre node, closing only files elsewhere activates the module (its id
    table) but makes no store file beside the safety copy."""
    prog, mnt, mmap, env = plain_mount(runtime, parts, tmp_path, {"LUSTRE_PROBE_KILL": "1"})
    r = run_under(runtime, [prog, tmp_path / "elsewhere.dat"], tmp_path / "logs", env,
                  check=False)
    assert r.returncode == -9, r.stderr
    names = [p.name for p in mmap.iterdir()]
    assert any(n.endswith(".darshan") for n in names), names
    assert not any(n.endswith(".lustre") for n in names), names
