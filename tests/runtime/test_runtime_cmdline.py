"""A command line with a newline in an argument still gives a readable log."""
import subprocess

from rt_helpers import logs_in, run_under


def test_newline_in_argument_gives_readable_log(runtime, tool, tmp_path):
    target = tmp_path / "out.txt"
    script = f"echo one > {target}\necho two >> {target}"
    run_under(runtime, ["/bin/sh", "-c", script], tmp_path / "logs")
    logs = logs_in(tmp_path / "logs")
    assert len(logs) == 1
    r = subprocess.run([str(tool), "parse", str(logs[0])], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    exe = next(l for l in r.stdout.splitlines() if l.startswith("# exe: "))
    # upstream keeps the space that stood for the final NUL
    assert exe == f"# exe: /bin/sh -c echo one > {target} echo two >> {target} "
