"""What every packaging test checks of an installed iolens: the C tools, the
runtime and (where installed) the Python package, used from the install alone.

Each check runs a bash script whose first line puts the install in the
environment (a venv's bin on PATH, or `eval "$(spack load --sh iolens)"`), in an
environment cleared of the build tree's IOLENS_* variables and of LD_PRELOAD, so
nothing of this checkout's build/ can stand in for the installed pieces."""
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE_IO = REPO / "examples" / "sample_io.c"
SAMPLE_MPI = REPO / "examples" / "sample_mpi.c"
CHECKPOINT_BYTES = 16 << 20          # sample_io.c: BLOCKS * BLOCK
LMOD_INIT = Path("/usr/share/lmod/lmod/init/bash")       # Debian's lmod package

# The builds take minutes: on only when asked (.ci/run asks).
needs_package_tests = pytest.mark.skipif(
    os.environ.get("IOLENS_PACKAGE_TESTS") != "1",
    reason="packaging tests build iolens from scratch (minutes): set IOLENS_PACKAGE_TESTS=1 "
           "(.ci/run does)")


def clean_env(**extra):
    """os.environ without what points at this checkout's build trees."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("IOLENS_") and k not in ("LD_PRELOAD", "VIRTUAL_ENV", "PYTHONPATH")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **extra)
    return env


def run_script(setup, script, cwd, timeout=600):
    """bash: `setup` (which puts the install in the environment), then `script`;
    stdout on success, else the test fails with both outputs."""
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", f"{setup}\n{script}"], cwd=cwd,
                          env=clean_env(), capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f"script failed ({proc.returncode}):\n{script}\n--- stdout\n{proc.stdout}"
                    f"\n--- stderr\n{proc.stderr}")
    return proc.stdout


def checkpoint_bytes_written(parse_output, data_dir):
    """POSIX_BYTES_WRITTEN of sample_io's checkpoint in `iolens parse` output."""
    name = re.escape(f"{data_dir}/checkpoint.dat")
    m = re.search(rf"^POSIX\t\S+\t\S+\tPOSIX_BYTES_WRITTEN\t(\d+)\t{name}\t", parse_output, re.M)
    return int(m.group(1)) if m else None


def instrument_sample(setup, tmp_path):
    """Builds examples/sample_io.c, runs it under `iolens run` (which finds the
    installed runtime itself) and with LD_PRELOAD of $runtime (set by `setup`),
    and reads both logs back with the installed `iolens parse`.  Returns the
    paths of the two logs."""
    work = tmp_path / "sample"
    for d in ("data-run", "data-preload", "logs"):
        (work / d).mkdir(parents=True)
    out = run_script(setup, f"""
cc -O1 -o sample_io {SAMPLE_IO}
DARSHAN_LOGFILE=$PWD/run.darshan iolens run -- ./sample_io $PWD/data-run
LD_PRELOAD=$runtime DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGFILE=$PWD/preload.darshan \\
  ./sample_io $PWD/data-preload
echo '== run'; iolens parse run.darshan
echo '== preload'; iolens parse preload.darshan
""", cwd=work)
    run_part, preload_part = out.split("== run\n", 1)[1].split("== preload\n", 1)
    assert checkpoint_bytes_written(run_part, work / "data-run") == CHECKPOINT_BYTES, run_part
    assert checkpoint_bytes_written(preload_part, work / "data-preload") == CHECKPOINT_BYTES, \
        preload_part
    return work / "run.darshan", work / "preload.darshan"


def python_reads_log(setup, log, installed_under, cwd):
    """The installed Python package (imported from under `installed_under`, the
    `python3` that `setup` puts first) reads sample_io's checkpoint from `log`."""
    out = run_script(setup, f"""
cd /
python3 - <<'PY'
import iolens
assert iolens.__file__.startswith("{installed_under}/"), iolens.__file__
with iolens.open("{log}") as log:
    posix = log.records("POSIX")
row = posix[posix["name"].str.endswith("/checkpoint.dat")]
print(int(row["POSIX_BYTES_WRITTEN"].iloc[0]))
PY
""", cwd=cwd)
    assert out.split() == [str(CHECKPOINT_BYTES)], out
