"""`iolens recover` on names anyone can plant (issue 26): the SLURM epilog of
docs/recovery.md runs it over `/dev/shm/*_mmap-log-*.darshan`, so a FIFO, a link to
/dev/zero, a link loop or a link to someone's copy at such a name must fail at once
with one line, read nothing and delete nothing.  Every run has a bounded wait and
an address-space limit: before the fix a FIFO blocked recover forever and
/dev/zero was read until memory ran out."""
import os
import resource
import subprocess
from pathlib import Path

import numpy as np
import pytest

from iolens.write import Writer

LIMIT = 1 << 30          # address space of each recover run


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def recover(tool, *args, timeout=30):
    asan = b"__asan_init" in Path(tool).read_bytes()    # reserves terabytes: no limit
    return subprocess.run([str(tool), "recover", "--force", *map(str, args)],
                          capture_output=True, timeout=timeout,
                          preexec_fn=None if asan else limit_memory)


def copy_name(d, pid):
    return d / f"someone_app_id{pid}-{pid}_mmap-log-1.darshan"


def make_copy(path):
    """A safety copy as the runtime leaves one: uncompressed 3.41, job end 0."""
    with Writer(path, compression="none") as w:
        w.set_job(uid=os.getuid(), start_time_sec=1_700_000_000, nprocs=1, jobid=1,
                  exe="/bin/app")
        w.add_names([7], ["/data/out"])
        c = np.zeros((1, 69), dtype=np.int64)
        c[0, 0] = 1
        w.put_records("POSIX", [7], [0], c, np.zeros((1, 17)))
    return path


@pytest.fixture
def out(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    return d


def one_line_error(res, path, needle):
    err = res.stderr.decode()
    assert res.returncode == 1, err
    assert err.count("\n") == 1 and err.startswith(f"iolens recover: {path}: "), err
    assert needle in err and "Traceback" not in err, err


def test_a_fifo_copy_is_refused_without_blocking(tool, tmp_path, out):
    fifo = copy_name(tmp_path, 999_999_901)
    os.mkfifo(fifo)
    res = recover(tool, "--logdir", out, fifo)
    one_line_error(res, fifo, "is a FIFO")
    assert fifo.exists() and not list(out.iterdir())


def test_a_link_to_dev_zero_is_not_read(tool, tmp_path, out):
    link = copy_name(tmp_path, 999_999_902)
    link.symlink_to("/dev/zero")
    res = recover(tool, "--logdir", out, link)
    one_line_error(res, link, "is a symbolic link")
    assert link.is_symlink() and not list(out.iterdir())


def test_a_link_loop_fails_with_one_line(tool, tmp_path, out):
    a, b = copy_name(tmp_path, 999_999_903), tmp_path / "other"
    a.symlink_to(b)
    b.symlink_to(a)
    res = recover(tool, "--logdir", out, a)
    one_line_error(res, a, "")
    assert not list(out.iterdir())


def test_a_link_to_a_real_copy_is_neither_followed_nor_deleted(tool, tmp_path, out):
    """Someone's copy reached through a planted link: not recovered under the
    link's name, and the copy stays for its own recovery."""
    real = make_copy(copy_name(tmp_path, 999_999_904))
    link = copy_name(tmp_path, 999_999_905)
    link.symlink_to(real)
    res = recover(tool, "--logdir", out, link)
    one_line_error(res, link, "is a symbolic link")
    assert real.exists() and not list(out.iterdir())
    # the copy itself, by its own name, is recovered as before
    ok = recover(tool, "--logdir", out, real)
    assert ok.returncode == 0, ok.stderr.decode()
    assert not real.exists() and len(list(out.iterdir())) == 1


def test_a_fifo_as_the_trace_store_does_not_block(tool, tmp_path, out):
    """The DXT store beside a copy (<copy>.dxt-posix) planted as a FIFO: the copy is
    recovered, the store is ignored and left alone."""
    real = make_copy(copy_name(tmp_path, 999_999_906))
    store = tmp_path / (real.name + ".dxt-posix")
    os.mkfifo(store)
    res = recover(tool, "--logdir", out, real)
    assert res.returncode == 0, res.stderr.decode()
    assert len(list(out.iterdir())) == 1 and store.exists()
