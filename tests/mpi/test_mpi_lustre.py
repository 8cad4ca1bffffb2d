"""The LUSTRE module under MPI, with the Lustre test shim of
tests/runtime/test_runtime_lustre.py: a file every rank closes has one LUSTRE
record, rank -1, written by rank 0 (runtime spec 7); a file of one rank keeps that
rank's record.  The same with the layouts from the test-only liblustreapi of
tests/runtime/test_runtime_lustre_api.py, which the MPI runtime loads at MPI_Init."""
import os
import subprocess

import pytest

from mpi_helpers import one_log, tool_of
from rt_helpers import find_runtime
from test_runtime_lustre import LAYOUTS, lustre_shim

NP = 3


def describe(pool, osts):
    """A plain layout as progs/fake_lustreapi.c reads it."""
    return f"plain\n0 0 0 eof 1048576 {len(osts)} 0 {pool} {','.join(map(str, osts))}\n"


@pytest.mark.parametrize("source", ["xattr", "library"])
def test_shared_layout_written_once(mpi, progs_dir, tmp_path, source):
    # The shim knows no MPI: the one of the non-MPI build tree serves every MPI.
    lib, _ = lustre_shim(find_runtime() or mpi.runtime)
    fake = lib.parent / "fake-lustreapi"
    if source == "library" and not (fake / "liblustreapi.so.1").exists():
        pytest.skip(f"the test liblustreapi is not built in {fake}")
    exe = mpi.compile(progs_dir / "lustre_mpi.c", tmp_path / "lustre_mpi")
    mnt, layouts, logdir = tmp_path / "lustre", tmp_path / "layouts", tmp_path / "logs"
    mnt.mkdir()
    layouts.mkdir()
    (layouts / "shared.dat.lov").write_bytes(LAYOUTS["plain.dat"][0])
    (layouts / "shared.dat.api").write_text(describe("-", [30, 70, 10, 50]))
    for rank in range(NP):
        (layouts / f"own.dat.{rank}.lov").write_bytes(LAYOUTS["pool.stdio"][0])
        (layouts / f"own.dat.{rank}.api").write_text(describe("flash", [110, 111]))
    env = {"LD_PRELOAD": f"{lib} {mpi.runtime}", "IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
           "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts)}
    if source == "library":
        env["LD_LIBRARY_PATH"] = f"{fake}:{os.environ.get('LD_LIBRARY_PATH', '')}"
    mpi.run([exe, mnt], logdir, NP, preload=False, env=env)
    tool = tool_of(mpi.runtime)
    out = subprocess.run([str(tool), "parse", str(one_log(logdir))], capture_output=True,
                         text=True, timeout=60).stdout
    ranks, osts = {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 6 and f[0] == "LUSTRE":
            name = os.path.basename(f[5])
            if f[3] == "LUSTRE_NUM_COMPONENTS":
                ranks.setdefault(name, []).append(f[1])
            if f[3].startswith("LUSTRE_COMP1_OST_ID_"):
                osts.setdefault(name, []).append(int(f[4]))
    want = {"shared.dat": ["-1"]}
    want.update({f"own.dat.{r}": [str(r)] for r in range(NP)})
    assert ranks == want, out[-2000:]
    if source == "library":
        assert osts["shared.dat"] == [30, 70, 10, 50] and osts["own.dat.1"] == [110, 111]
    else:
        assert osts["shared.dat"] == [3, 7, 1, 5] and osts["own.dat.1"] == [10, 11]
