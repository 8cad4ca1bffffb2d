"""`iolens report` on runtime DFS and DAOS logs (progs/daos_calls.c through the DAOS
emulation): the DFS and DAOS rows of the overview, cost, operation-count, access-size
and file-kind sections hold the figures of the log's own records (log.records), and
every DFS/DAOS call counter has its bar in the operation counts."""
import sys
import warnings

import pytest

from test_daos_runtime import REPO, calls, emulation, one_log, run_mode  # noqa: F401 (fixture)
sys.path.insert(0, str(REPO / "tests" / "python"))
from report_helpers import page_facts  # noqa: E402

iolens = pytest.importorskip("iolens")
from iolens._meta import module_info  # noqa: E402
from iolens.report import files, platform, render_html, stats, tables  # noqa: E402
from iolens.report.interfaces import INTERFACES  # noqa: E402
from iolens.report.source import ReportData  # noqa: E402

MODULES = ("DFS", "DAOS")


def cell_values(table):
    """{key: raw value} of a report table's keyed cells."""
    return {c.key: c.value for row in table.rows for c in row
            if isinstance(c, tables.Cell) and c.value is not None}


def call_counters(module):
    """The module's call counters: those before its byte counts, but DAOS_NB_OPS
    (the calls among them that were given an event)."""
    names = module_info(module).counters
    p = module_info(module).prefix
    return set(names[:names.index(f"{p}BYTES_READ")]) - {"DAOS_NB_OPS"}


def log_bytes(path, modules):
    """Bytes read and written by the modules' records."""
    with iolens.open(path) as log:
        return sum(int(log.records(m)[f"{m}_BYTES_{k}"].clip(lower=0).sum())
                   for m in modules if m in log.modules for k in ("READ", "WRITTEN"))


def test_every_call_counter_has_a_bar():
    for iface in INTERFACES:
        if iface.name in MODULES:
            shown = [c for _, counters in iface.ops for c in counters]
            assert sorted(shown) == sorted(call_counters(iface.name)), iface.name


@pytest.fixture(scope="module", params=["dfs", "daos", "async"])
def run_log(request, calls, tmp_path_factory):  # noqa: F811
    rt, _ = emulation()
    logs, _ = run_mode(rt, calls, tmp_path_factory.mktemp(request.param), request.param)
    return one_log(logs)


def test_report_rows_equal_the_records(run_log):
    with iolens.open(run_log) as log:
        data = ReportData(log)
        recs = {m: log.records(m) for m in MODULES if m in log.modules}
        overview = cell_values(tables.overview(data))
        cost, ops = stats.cost(data), stats.op_counts(data)
        common = stats.common_accesses(data)
        kinds = cell_values(tables.file_kinds(data))
        nprocs = log.job["nprocs"]
        mounts, host = files.by_mount(data), platform.mounts(data)
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            ids, values = page_facts(render_html(log))
    # a figure's labels fit (a container's 73-character name is shortened on the axis)
    assert not [w for w in warned if "Tight layout" in str(w.message)]
    assert recs
    for m, df in recs.items():
        s = lambda c: df[c].sum()  # noqa: E731
        assert int(overview[f"{m}.bytes_read"]) == s(f"{m}_BYTES_READ")
        assert int(overview[f"{m}.bytes_written"]) == s(f"{m}_BYTES_WRITTEN")
        assert values[f"{m}.bytes_read"] == str(s(f"{m}_BYTES_READ"))
        for col, kind in zip(("read", "write", "metadata"), ("READ", "WRITE", "META")):
            assert cost.loc[m, col] == pytest.approx(s(f"{m}_F_{kind}_TIME") / nprocs)
        iface = next(i for i in INTERFACES if i.name == m)
        for label, counters in iface.ops:
            assert ops[m][label] == sum(s(c) for c in counters), (m, label)
        assert ops[m].sum() > 0
        want = {}
        for k in range(1, 5):
            for size, count in zip(df[f"{m}_ACCESS{k}_ACCESS"], df[f"{m}_ACCESS{k}_COUNT"]):
                if count > 0:
                    want[int(size)] = want.get(int(size), 0) + int(count)
        got = common[common["module"] == m]
        assert dict(zip(got["size"].astype(int), got["count"].astype(int))) == want
        assert int(kinds[f"{m}.files.total"]) == df["id"].nunique()
        assert int(kinds[f"{m}.bytes.total"]) == s(f"{m}_BYTES_READ") + s(f"{m}_BYTES_WRITTEN")
    assert {"fig-op-counts", "fig-access-sizes"} <= ids
    if "DFS" in recs:
        # a DFS path's "mount point" is its container, as `iolens parse` prints it;
        # no host mount claims DFS files or bytes
        df = recs["DFS"]
        rows = mounts[mounts["module"] == "DFS"]
        assert rows["mount"].tolist() == [f"{df['pool'][0]}:{df['container'][0]}"]
        assert rows["fs"].tolist() == ["N/A"] and rows["files"].tolist() == [df["id"].nunique()]
        assert rows["read"].sum() == df["DFS_BYTES_READ"].sum()
        posix = log_bytes(run_log, ("POSIX", "STDIO"))
        assert host["bytes"].sum() == posix
