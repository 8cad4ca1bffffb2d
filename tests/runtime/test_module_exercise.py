"""The module exercise of docs/adding-a-module.md (issue 27): a new intercepting
module is four files -- its modules.def row, its counter table, its module file
(a copy of the template) and its test (a copy of the template's test) -- and
nothing else changes.

In a scratch copy of the tracked source tree the template becomes module EXAMPLE
(id 40).  The build's module and intercept lists are generated from that tree
(src/runtime/modules.cmake); then the format library, the runtime, the tools and
the Python extension are built (about a minute with -j2), the module's test
program runs under the runtime, and the new module shows in `iolens parse --total
--file --perf`, in iolens._meta, in the report (its rows of the per-interface
tables), in the fleet's columns (ingest, job-stats, query) and in `iolens diff`."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROW = ('MODULE(40,  EXAMPLE,       "EXAMPLE",       1,  COUNTERS,  IO,        PARSER,  '
       'FILESYSTEM, 5, LIB,  example)\n')

# The counter table: the NULL module's counters (what the template records) plus
# the ones darshan-parser's figures read (modules.def `summary` PARSER).
TABLE = """\
/* Counter table of the EXAMPLE module (the module exercise). */
INT(EXAMPLE_FOOS, SUM, "foo calls")
INT(EXAMPLE_FOO_MAX_DAT, MAX, "largest dat of a foo call")
INT(EXAMPLE_BYTES_READ, SUM, "total bytes read")
INT(EXAMPLE_BYTES_WRITTEN, SUM, "total bytes written")
INT(EXAMPLE_FASTEST_RANK, RANK, "rank with the smallest total I/O time")
INT(EXAMPLE_FASTEST_RANK_BYTES, RANKBYTES, "bytes moved by the fastest rank")
INT(EXAMPLE_SLOWEST_RANK, RANK, "rank with the largest total I/O time")
INT(EXAMPLE_SLOWEST_RANK_BYTES, RANKBYTES, "bytes moved by the slowest rank")
FLT(EXAMPLE_F_FOO_TIMESTAMP, MIN_NZ, "start time of the first foo call")
FLT(EXAMPLE_F_FOO_MAX_DURATION, MAXTIME, "duration of the foo call with the largest dat")
FLT(EXAMPLE_F_READ_TIME, SUM, "cumulative seconds spent in read calls")
FLT(EXAMPLE_F_WRITE_TIME, SUM, "cumulative seconds spent in write calls")
FLT(EXAMPLE_F_META_TIME, SUM, "cumulative seconds spent in metadata calls")
FLT(EXAMPLE_F_FASTEST_RANK_TIME, RANKTIME, "total I/O time of the fastest rank")
FLT(EXAMPLE_F_SLOWEST_RANK_TIME, RANKTIME, "total I/O time of the slowest rank")
"""


def _renamed(text: str) -> str:
    """The template's words replaced as docs/adding-a-module.md says."""
    for old, new in (("NULL", "EXAMPLE"), ("null", "example"), ("template", "example"),
                     ("TEMPLATE", "EXAMPLE")):
        text = text.replace(old, new)
    return text


def _tracked_copy(dst: Path) -> None:
    try:
        files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], check=True,
                               capture_output=True, timeout=60).stdout.split(b"\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the exercise copies the tracked files: not a git checkout")
    for raw in files:
        if not raw:
            continue
        rel = raw.decode()
        src = REPO / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)


def _digest(tree: Path, skip: set) -> dict:
    return {str(p.relative_to(tree)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tree.rglob("*")) if p.is_file()
            and str(p.relative_to(tree)) not in skip and "build" not in p.relative_to(tree).parts}


NEW_FILES = {"src/format/counters/example.def", "src/runtime/modules/example.c",
             "tests/runtime/progs/example_module_test.c"}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """The scratch tree with the four files of module EXAMPLE; asserts nothing else
    differs from the tracked tree."""
    if shutil.which("cmake") is None or shutil.which("cc") is None:
        pytest.skip("cmake and a C compiler are needed")
    tree = tmp_path_factory.mktemp("exercise") / "src-tree"
    tree.mkdir()
    _tracked_copy(tree)
    before = _digest(tree, set())
    defs = tree / "src/format/counters/modules.def"
    defs.write_text(defs.read_text() + ROW)                                    # 1
    (tree / "src/format/counters/example.def").write_text(TABLE)               # 2
    template = (tree / "src/runtime/modules/template.c").read_text()
    (tree / "src/runtime/modules/example.c").write_text(_renamed(template))    # 3
    test = (tree / "tests/runtime/progs/template_module_test.c").read_text()
    (tree / "tests/runtime/progs/example_module_test.c").write_text(_renamed(test))  # 4
    after = _digest(tree, NEW_FILES)
    changed = {k for k in before if before[k] != after.get(k)}
    assert changed == {"src/format/counters/modules.def"}
    return tree


def test_generated_lists_take_the_new_module(scratch, tmp_path):
    """The generator alone: the row's `runtime` column puts the module in the
    runtime's list (and MPI-IO in the MPI runtimes' only), and its intercept line
    joins the one list, read by the same function the build and the export test use."""
    script = tmp_path / "lists.cmake"
    out = tmp_path / "intercept_modules.def"
    script.write_text(f"""
include({scratch}/src/runtime/modules.cmake)
iol_runtime_modules(found mpi {scratch}/src/format/counters/modules.def {scratch}/src/runtime)
message(STATUS "found=${{found}} mpi=${{mpi}}")
iol_write_module_intercepts({out} {scratch}/src/runtime ${{found}})
iol_intercept_names(names {scratch}/src/runtime/wrappers/intercept.def {out})
list(FIND names iolens_example_foo at)
list(FIND names H5Fopen h5)
message(STATUS "example_at=${{at}}")
""")
    run = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    said = run.stdout + run.stderr
    assert "found=posix;h5f;h5d;lustre;stdio;dxt_posix;heatmap;dfs;daos;region;dxt_region;example " in said
    assert "mpi=mpiio;pnetcdf_file;pnetcdf_var;dxt_mpiio" in said
    assert "example_at=-1" not in run.stdout + run.stderr
    assert "IOL_FN(EXAMPLE, int, iolens_example_foo," in out.read_text()


def test_intercept_tags_may_be_any_identifier(tmp_path):
    """A tag like H5F or DXT_POSIX is read (the old regular expressions took only
    capital letters and broke the link)."""
    lst = tmp_path / "x.def"
    lst.write_text("IOL_FN(H5F, int, f1, (int a))\nIOL_FN(DXT_POSIX, int, f2, (int a))\n")
    script = tmp_path / "names.cmake"
    script.write_text(f"include({REPO}/src/runtime/modules.cmake)\n"
                      f"iol_intercept_names(n {lst})\nmessage(STATUS \"names=${{n}}\")\n")
    run = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "names=f1;f2" in run.stdout + run.stderr


def _configure(scratch: Path, build: Path, *opts: str) -> None:
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    run = subprocess.run(["cmake", "-S", str(scratch), "-B", str(build), *gen,
                          "-DCMAKE_BUILD_TYPE=Release", "-DIOLENS_WITH_MPI=OFF",
                          "-DBUILD_TESTING=OFF", *opts],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def _build(build: Path, *targets: str) -> None:
    run = subprocess.run(["cmake", "--build", str(build), "-j2", "--target", *targets],
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-3000:]


def test_new_module_runs_and_shows_everywhere(scratch, tmp_path):
    build = tmp_path / "build"
    _configure(scratch, build, "-DIOLENS_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}")
    _build(build, "iolens", "iolens-runtime", "_core")
    prog_src = scratch / "tests/runtime/progs/example_module_test.c"
    lib = tmp_path / "libexample.so"
    prog = tmp_path / "example_module_test"
    subprocess.run(["cc", "-shared", "-fPIC", "-DEXAMPLE_LIB", "-o", str(lib), str(prog_src)],
                   check=True, timeout=120)
    subprocess.run(["cc", "-o", str(prog), str(prog_src), str(lib), f"-Wl,-rpath,{tmp_path}"],
                   check=True, timeout=120)
    tool = build / "src/tools/iolens"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env["IOLENS_RUNTIME"] = str(build / "src/runtime/libiolens.so")

    def run_prog(name: str, extra_env: dict) -> Path:
        logs = tmp_path / name
        logs.mkdir()
        run = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", str(prog),
                              str(tmp_path / "data.bin")], capture_output=True, text=True,
                             timeout=120, env={**env, **extra_env})
        assert run.returncode == 0, run.stderr      # return values and errno kept
        (found,) = sorted(logs.glob("*.darshan"))
        return found

    log = run_prog("logs", {})
    # the same run with the module turned off by its name (the settings read the table)
    log_off = run_prog("logs-off", {"DARSHAN_MOD_DISABLE": "EXAMPLE"})
    text = subprocess.run([str(tool), "parse", "--total", "--file", "--perf", str(log)],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    section = text.split("# EXAMPLE module data", 1)[1]
    assert "total_EXAMPLE_FOOS: 2\n" in section       # the failed call is not recorded
    assert "total_EXAMPLE_FOO_MAX_DAT: 42\n" in section
    # one file, no bytes, no offsets (the table has no MAX_BYTE_* counters: -1)
    assert "# total: 1 0 -1\n" in section and "# unique: 1 0 -1\n" in section
    assert "# agg_perf_by_slowest:" in section

    # Python: the extension of the scratch build with the scratch tree's package.
    pkg = tmp_path / "py"
    shutil.copytree(scratch / "python/iolens", pkg / "iolens")
    for so in (build / "python/iolens").glob("_core*"):
        shutil.copy2(so, pkg / "iolens" / so.name)
    check = ("import iolens, iolens.derived as d\n"
             "from iolens.report import interfaces\n"
             "m = iolens.module_info('EXAMPLE')\n"
             "assert m.id == 40 and m.summaries and m.record_size == 16 + 8 * 15, m\n"
             "assert m.units['EXAMPLE_F_READ_TIME'] == 'seconds'\n"
             "assert 'EXAMPLE' in interfaces.IO_MODULES and 'EXAMPLE' in interfaces.DATA_MODULES\n"
             "assert 'EXAMPLE' in interfaces.PARSER_PERF_MODULES\n"
             "from iolens.fleet.interfaces import interfaces as fleet_columns\n"
             "assert 'example' in [i.key for i in fleet_columns()]\n"
             f"f = d.parser_figures({str(log)!r}, 'EXAMPLE')\n"
             "assert f['total']['EXAMPLE_FOOS'] == 2, f\n")
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         timeout=120, env={**env, "PYTHONPATH": str(pkg)}, cwd=tmp_path)
    assert run.returncode == 0, run.stderr

    def verb(module: str, *args: str) -> str:
        """A Python verb of the scratch package (what `iolens <verb>` runs)."""
        done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True,
                              text=True, timeout=300, env={**env, "PYTHONPATH": str(pkg)},
                              cwd=tmp_path)
        assert done.returncode == 0, (module, args, done.stdout[-2000:], done.stderr[-3000:])
        return done.stdout

    # the report: EXAMPLE's rows in the per-interface tables (overview with the
    # parser's figures, cost, operation counts' interfaces, files by kind)
    html_path = tmp_path / "example.html"
    verb("iolens.report.cli", str(log), "-o", str(html_path))
    html = html_path.read_text()
    for key in ("iface.EXAMPLE", "EXAMPLE.bytes_read", "EXAMPLE.agg_perf_by_slowest",
                "EXAMPLE.files.total"):
        assert f'data-key="{key}"' in html, key
    # the fleet: its columns in the store, job-stats -m EXAMPLE, a query on them
    store = tmp_path / "store"
    verb("iolens.fleet.cli", "ingest", "--store", str(store), "-j", "1", "-q",
         "--no-findings", str(log), str(log_off))
    stats = verb("iolens.fleet.cli", "job-stats", str(store), "-m", "EXAMPLE", "--csv")
    rows = [r for r in stats.splitlines()[1:] if r]
    assert len(rows) == 1 and log.name in rows[0], stats      # the run that used it
    assert stats.splitlines()[0].endswith("total_files,partial_flag"), stats
    query = verb("iolens.fleet.cli", "query", str(store),
                 "SELECT example_records, example_files FROM jobs ORDER BY example_records",
                 "--csv")
    assert query.split() == ["example_records,example_files", "0,0", "1,1"], query
    # iolens diff: the run without the module against the one with it
    out = verb("iolens.diff_cli", str(log_off), str(log), "--json")
    import json
    changes = json.loads(out)["changes"]
    assert any(c["interface"] == "EXAMPLE" and c["metric"] == "interface" and c["b"] == 1
               for c in changes), changes
