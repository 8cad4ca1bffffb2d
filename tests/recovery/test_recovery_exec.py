"""Every form of exec under the runtime (src/runtime/core/exec.c): the log of the
I/O done before the exec is written, and the new image gets the caller's
arguments and environment unchanged -- the execl forms' argument lists are
rebuilt by the wrapper, so each is checked on its own."""
import subprocess

import pytest

from recovery_helpers import build, dirs, env_for, file_records, safety_copies

FORMS = ["execl", "execlp", "execle", "execv", "execvp", "execve", "execvpe", "fexecve"]
# $0 $1 $2 of `sh -c SCRIPT zero "one two"`, and IOLENS_EXEC_PROBE: the caller's
# value, or the one in the envp that the e-forms pass.
INHERITED, FROM_ENVP = "zero|one two||inherited", "zero|one two||from-envp"


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return build("execprobe.c", tmp_path_factory.mktemp("probe") / "execprobe")


@pytest.mark.parametrize("form", FORMS)
def test_exec_form(runtime, tool, probe, tmp_path, form):
    logdir, mmapdir = dirs(tmp_path)
    env = env_for(runtime, logdir, mmapdir)
    env["IOLENS_EXEC_PROBE"] = "inherited"      # env_for drops IOLENS_*: set after
    r = subprocess.run([str(probe), form, str(tmp_path)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr)
    want = FROM_ENVP if form in ("execle", "execve", "execvpe", "fexecve") else INHERITED
    assert r.stdout == want
    assert safety_copies(mmapdir) == []
    found = file_records(tool, logdir, "POSIX", str(tmp_path / "before"))
    assert len(found) == 1 and found[0]["POSIX_BYTES_WRITTEN"] == 5, found
