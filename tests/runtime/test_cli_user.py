"""The `iolens` command as a new user meets it (docs/cli.md): help and --version on
every verb, `iolens help`, a hint for a mistyped verb, the exit-status table,
messages that name the path once, the partial-log hint, `iolens run`'s checks, the
Python verbs found beside the executable, and `iolens config`."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

C_VERBS = ["parse", "dxt", "convert", "run", "config", "recover", "merge"]
VERSION = re.search(r'^version = "([^"]+)"', (Path(__file__).resolve().parents[2] /
                    "pyproject.toml").read_text(), re.M).group(1)


def sh(argv, env=None, timeout=60, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=timeout, env=env, **kw)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(extra)
    return env


@pytest.mark.parametrize("verb", C_VERBS)
def test_every_verb_has_help_and_version(tool, verb):
    h = sh([tool, verb, "--help"])
    assert h.returncode == 0 and h.stdout.startswith(f"usage: iolens {verb}"), h.stderr
    assert sh([tool, verb, "-h"]).stdout == h.stdout
    v = sh([tool, verb, "--version"])
    assert (v.returncode, v.stdout, v.stderr) == (0, f"iolens {verb} {VERSION}\n", "")


def test_help_verb_and_overview(tool):
    top = sh([tool, "--help"])
    assert top.returncode == 0 and "--version" in top.stdout and "help [VERB]" in top.stdout
    assert sh([tool, "help"]).stdout == top.stdout
    assert sh([tool, "help", "parse"]).stdout == sh([tool, "parse", "--help"]).stdout
    assert sh([tool, "--version"]).stdout == f"iolens {VERSION}\n"


@pytest.mark.parametrize("typo,near", [("pasre", "parse"), ("conf", "config"),
                                       ("reprot", "report")])
def test_unknown_verb_suggests_closest(tool, typo, near):
    r = sh([tool, typo])
    assert r.returncode == 2
    assert f"unknown verb '{typo}'; did you mean '{near}'?" in r.stderr
    assert "iolens --help" in r.stderr


def test_unrelated_word_gets_no_suggestion(tool):
    r = sh([tool, "xyzzyplugh"])
    assert r.returncode == 2 and "did you mean" not in r.stderr


@pytest.mark.parametrize("verb", ["parse", "dxt"])
def test_exit_statuses_and_path_named_once(tool, verb, tmp_path):
    missing = tmp_path / "nope.darshan"
    r = sh([tool, verb, missing])
    assert r.returncode == 255                       # darshan-parser's status
    assert r.stderr.count(str(missing)) == 1, r.stderr
    assert r.stderr.startswith(f"iolens {verb}: {missing}: cannot open: ")
    assert sh([tool, verb, "--no-such-option", missing]).returncode == 2
    assert sh([tool, verb]).returncode == 2


def partial_log(tool, tmp_path):
    """A log whose POSIX module is partial: a record limit of 5, and 9 files."""
    cfg, logs, work = tmp_path / "cfg", tmp_path / "logs", tmp_path / "work"
    cfg.write_text("MAX_RECORDS 5 POSIX\n")
    logs.mkdir(), work.mkdir()
    r = sh([tool, "run", "--logpath", logs, "--", "sh", "-c",
            f"for i in 1 2 3 4 5 6 7 8 9; do echo > {work}/f$i; done"],
           env=clean_env(DARSHAN_CONFIG_PATH=str(cfg)))
    assert r.returncode == 0, r.stderr
    (log,) = logs.rglob("*.darshan")
    return log


def test_partial_log_names_module_reason_and_setting(tool, runtime, tmp_path):
    log = partial_log(tool, tmp_path)
    r = sh([tool, "parse", log])
    assert r.returncode == 255
    assert "consult the darshan-runtime" in r.stderr          # upstream's text stays
    hint = [line for line in r.stderr.splitlines() if line.startswith("iolens parse:")]
    assert hint == [f"iolens parse: {log}: the POSIX data is partial: a process reached its "
                    "record limit (5 records of this module, as MAX_RECORDS set); to keep "
                    "more, put `MAX_RECORDS 20 POSIX` in the file named by "
                    "DARSHAN_CONFIG_PATH"]
    shown = sh([tool, "parse", "--show-incomplete", log])
    assert shown.returncode == 0 and "iolens parse:" not in shown.stdout
    assert "MAX_RECORDS 20 POSIX" in shown.stderr


def test_partial_trace_names_module_and_setting(tool, runtime, tmp_path):
    """A trace budget of 1 KiB (MAX_RECORDS 1 DXT_POSIX) and 200 writes: partial."""
    cfg, logs = tmp_path / "cfg", tmp_path / "logs"
    cfg.write_text("MAX_RECORDS 1 DXT_POSIX\n")
    logs.mkdir()
    loop = f"i=0; while [ $i -lt 200 ]; do echo x; i=$((i+1)); done > {tmp_path}/f"
    r = sh([tool, "run", "--trace", "--logpath", logs, "--", "sh", "-c", loop],
           env=clean_env(DARSHAN_CONFIG_PATH=str(cfg)))
    assert r.returncode == 0, r.stderr
    (log,) = logs.rglob("*.darshan")
    r = sh([tool, "dxt", log])
    assert r.returncode == 255 and "darshan-dxt-parser" in r.stderr
    assert r.stderr.splitlines()[-1] == (
        f"iolens dxt: {log}: the DXT_POSIX data is partial: a process filled its trace "
        "memory (2048 KiB by default); to keep more, put `MAX_RECORDS 8192 DXT_POSIX` (KiB) "
        "in the file named by DARSHAN_CONFIG_PATH")


def test_run_checks_logpath_before_starting(tool, runtime, tmp_path):
    marker, missing = tmp_path / "started", tmp_path / "no" / "such" / "dir"
    r = sh([tool, "run", "--logpath", missing, "--", "touch", marker], env=clean_env())
    assert r.returncode == 2 and not marker.exists()
    assert r.stderr.count(str(missing)) == 1 and "--mkdir" in r.stderr
    r = sh([tool, "run", "--logpath", missing, "--mkdir", "--", "touch", marker],
           env=clean_env())
    assert r.returncode == 0 and marker.exists(), r.stderr
    (log,) = missing.rglob("*.darshan")
    assert r.stderr.splitlines() == [f"iolens: log written to {log}"]


def test_run_of_missing_program_says_only_that(tool, runtime, tmp_path):
    r = sh([tool, "run", "--", tmp_path / "nonexistent"], env=clean_env())
    assert r.returncode == 127
    assert r.stderr.splitlines() == [
        f"iolens run: cannot run {tmp_path / 'nonexistent'}: No such file or directory"]


def test_python_verb_found_beside_the_executable(tmp_path):
    bindir = Path(sys.executable).parent
    if not (bindir / "iolens").exists() or not (bindir / "iolens-report").exists():
        pytest.skip(f"no installed iolens and iolens-report in {bindir} (scripts/setup.sh)")
    link = tmp_path / "iolens"
    link.symlink_to(bindir / "iolens")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}     # no virtual environment
    for cmd in ([bindir / "iolens", "report", "--version"], [link, "report", "--version"]):
        r = sh(cmd, env=env)
        assert (r.returncode, r.stdout) == (0, f"iolens report {VERSION}\n"), r.stderr
    for cmd in ([link, "report", "-h"], [link, "help", "report"]):
        r = sh(cmd, env=env)
        assert r.returncode == 0 and r.stdout.startswith("usage: iolens report"), r.stderr
    assert sh([link, "report"], env=env).returncode == 2           # usage error
    r = sh([link, "report", tmp_path / "missing.darshan"], env=env)
    assert r.returncode == 1 and r.stderr.count(str(tmp_path / "missing.darshan")) == 1


def test_config_plain_dump_and_log_path_agree(tool, tmp_path):
    env = clean_env(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    plain, dump = sh([tool, "config"], env=env), sh([tool, "config", "--dump"], env=env)
    where = sh([tool, "config", "--log-path"], env=env)
    assert plain.returncode == dump.returncode == where.returncode == 0
    assert plain.stdout == dump.stdout
    assert f"# LOGPATH = {where.stdout.strip()}\n" in dump.stdout
    assert where.stdout.strip() == str(tmp_path / "state" / "iolens" / "logs")
