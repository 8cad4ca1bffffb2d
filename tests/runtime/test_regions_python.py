"""Regions from Python (docs/regions.md): `iolens.region` as a context manager and a
decorator, with and without the runtime, and an annotated epoch loop whose forked
and spawned `multiprocessing` workers read small files and the main process an
h5py dataset, under `iolens run`: one job log in which every read sits in the
region of its epoch.  The PyTorch DataLoader variant of the same job runs only with
IOLENS_TORCH=1 (torch's wheels run to gigabytes)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rt_helpers import REPO, logs_in, run_under

iolens = pytest.importorskip("iolens")
PROG = REPO / "tests" / "runtime" / "progs" / "region_epochs.py"
EPOCHS, FILES, SIZE = 2, 12, 3000


def test_without_runtime_is_a_no_op(tmp_path):
    code = ("import iolens\n"
            "assert not iolens.regions.runtime_present()\n"
            "@iolens.region('f')\n"
            "def f(): return 7\n"
            "with iolens.region('a'):\n"
            "    assert f() == 7\n"
            "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def excluded_dirs():
    """DARSHAN_EXCLUDE_DIRS for a Python job: the interpreter, the packages (importing
    iolens opens more files than the default 1024 POSIX records) and our code."""
    return ",".join(sorted({str(Path(sys.prefix).resolve()), str(Path(sys.base_prefix).resolve()),
                            str(REPO.resolve()), "/usr", "/etc", "/proc", "/sys", "/dev", "/opt"}))


def test_context_manager_and_decorator(runtime, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    code = ("import iolens, sys\n"
            "d = sys.argv[1]\n"
            "assert iolens.regions.runtime_present()\n"
            "@iolens.region('save')\n"
            "def save(i):\n"
            "    open(f'{d}/s{i}', 'wb').write(b'x' * 10)\n"
            "with iolens.region('loop'):\n"
            "    for i in range(3): save(i)\n"
            "    open(f'{d}/l', 'wb').write(b'y' * 5)\n")
    run_under(runtime, [sys.executable, "-c", code, data], tmp_path / "logs",
              extra_env={"DARSHAN_EXCLUDE_DIRS": excluded_dirs()})
    [log] = logs_in(tmp_path / "logs")
    with iolens.open(log) as lg:
        df = lg.regions()
    posix = df[df.layer == "POSIX"].set_index("region")
    assert posix.loc["save", "count"] == 3 and posix.loc["save", "bytes_written"] == 30
    assert posix.loc["loop", "count"] == 1 and posix.loc["loop", "bytes_written"] == 5


def make_data(data):
    h5py = pytest.importorskip("h5py")
    import numpy as np
    data.mkdir()
    for e in range(EPOCHS):
        for i in range(FILES):
            (data / f"e{e}_{i}.bin").write_bytes(bytes([e + 1]) * (SIZE + i))
        with h5py.File(data / f"e{e}.h5", "w") as f:
            f["x"] = np.arange(20000 * (e + 1), dtype="f8")


def run_job(tool, tmp_path, *extra):
    data, logs = tmp_path / "data", tmp_path / "logs"
    make_data(data)
    logs.mkdir()
    # Only the data files are recorded: the interpreter, the packages and the job's
    # own code are excluded, so every recorded read is one the epochs made.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env["DARSHAN_EXCLUDE_DIRS"] = excluded_dirs()
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", sys.executable, str(PROG),
                        str(data), str(EPOCHS), str(FILES), *extra],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    [log] = logs_in(logs)
    return data, log


def check_epochs(data, log):
    with iolens.open(log) as lg:
        posix = lg.records("POSIX")
        regs = lg.regions()
    everything, posix = posix, posix[posix.name.str.startswith(str(data))]
    pr = regs[regs.layer == "POSIX"].groupby("region")[["bytes_read", "data_ops"]].sum()
    # Files outside the excluded directories that the job reads besides its data (on
    # some hosts a spawned worker's interpreter start-up, inside the epoch it was
    # spawned in, reads one): their reads may sit in an epoch or before the first.
    others = everything[~everything.name.str.startswith(str(data), na=False)]
    other_reads = dict(zip(others.name, others.POSIX_BYTES_READ))
    other_bytes = int(others.POSIX_BYTES_READ.clip(lower=0).sum())
    extra = 0
    for e in range(EPOCHS):
        mine = posix[posix.name.str.startswith(f"{data}/e{e}")]
        small = mine[mine.name.str.endswith(".bin")]
        assert len(small) == FILES and (small.POSIX_BYTES_READ.sum()
                                        == sum(SIZE + i for i in range(FILES)))
        assert mine[mine.name.str.endswith(".h5")].POSIX_BYTES_READ.sum() > 0
        # every read of the epoch's files, by any process, is in the epoch's region: a
        # read filed under another epoch, or under none, leaves one short of its files
        beyond = pr.loc[f"epoch {e}", "bytes_read"] - mine.POSIX_BYTES_READ.sum()
        assert beyond >= 0, (e, beyond, other_reads)
        extra += beyond
    # what the epochs hold beyond their files is some of the job's other reads
    assert extra <= other_bytes, (extra, other_reads)
    assert set(pr.index) == {f"epoch {e}" for e in range(EPOCHS)}
    # the h5py read counts in the HDF5 layer of its epoch: the whole dataset, 8-byte values
    h5 = regs[regs.layer == "HDF5"].groupby("region").bytes_read.sum()
    assert all(h5[f"epoch {e}"] == 20000 * (e + 1) * 8 for e in range(EPOCHS))
    data_ops = (posix.POSIX_READS + posix.POSIX_WRITES).sum()
    all_ops = (everything.POSIX_READS + everything.POSIX_WRITES).sum()
    assert data_ops <= pr.data_ops.sum() <= all_ops
    if other_bytes == 0:
        # a host where the job read nothing but its data: exactly its data in the
        # epochs, and nothing recorded ran outside them (the prints are writes in them)
        assert extra == 0 and pr.data_ops.sum() == all_ops


def phases_text(log, tmp_path):
    """The text of the report's per-phase table."""
    import re
    from iolens.report.cli import main
    out = tmp_path / "report.html"
    assert main([str(log), "-o", str(out)]) == 0
    html = out.read_text()
    start = html.index('id="phases-table"')
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[start:html.index("</table>", start)]))


def check_report_phases(log, tmp_path):
    """The report's per-phase breakdown shows each epoch's data loading: its POSIX
    bytes read and the I/O time the loading took."""
    from iolens.report.tables import seconds
    with iolens.open(log) as lg:
        df = lg.regions()
    text = phases_text(log, tmp_path)
    for e in range(EPOCHS):
        posix = df[(df.region == f"epoch {e}") & (df.layer == "POSIX")]
        loading = f" POSIX {posix.bytes_read.sum()} "
        assert f"epoch {e} 1 " in text and loading in text
        after = text[text.index(f"epoch {e} 1 "):]
        assert str(seconds(posix.io_time.sum())) in after[after.index(loading):]


def test_epoch_job_under_iolens_run(tool, tmp_path):
    data, log = run_job(tool, tmp_path)
    check_epochs(data, log)
    check_report_phases(log, tmp_path)


@pytest.mark.skipif(os.environ.get("IOLENS_TORCH") != "1",
                    reason="the PyTorch DataLoader job runs with IOLENS_TORCH=1")
def test_torch_dataloader_job(tool, tmp_path):
    """PyTorch's DataLoader, 4 workers, fork and spawn (docs/python.md's recipe)."""
    pytest.importorskip("torch")
    data, log = run_job(tool, tmp_path, "--torch")
    check_epochs(data, log)
    check_report_phases(log, tmp_path)
