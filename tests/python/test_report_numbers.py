"""The overview numbers equal what the C tool prints: `iolens parse --perf
--total LOG` (bytes read/written, I/O time, MiB/s), for every corpus log."""
from __future__ import annotations

import pytest

import iolens
from iolens.report import tables
from iolens.report.source import ReportData
from report_helpers import corpus_logs, iolens_bin, log_id, need_corpus, parser_numbers, parser_text

LOGS = corpus_logs()
KEYS = ("bytes_read", "bytes_written", "agg_time_by_slowest", "agg_perf_by_slowest")


def overview_values(path, file=None) -> dict:
    with iolens.open(path) as log:
        table = tables.overview(ReportData(log, file=file))
    if table is None:
        return {}
    return {cell.key: cell.value for row in table.rows for cell in row if cell.value is not None}


@pytest.mark.parametrize("path", LOGS or [None], ids=[log_id(p) for p in LOGS] or ["none"])
def test_overview_equals_iolens_parse(path):
    need_corpus()
    if iolens_bin() is None:
        pytest.skip("C tool `iolens` not found ($IOLENS_BIN, build/src/tools/iolens, PATH)")
    text = parser_text(path, "--perf", "--total", "--show-incomplete")
    if text is None:
        pytest.skip(f"`iolens parse` failed on {log_id(path)}")
    want = parser_numbers(text)
    got = overview_values(path)
    for module, numbers in want.items():
        for key in KEYS:
            if key in numbers:
                assert got.get(f"{module}.{key}") == numbers[key], (module, key)
    # Modules the parser summarises appear in the overview and nowhere else.
    assert {k.split(".")[0] for k in got} >= set(want)


def test_file_fold_follows_the_parser_quirks():
    """A shared record resets a file's process count to -1 and later per-rank
    records count up from there (format spec 9.6)."""
    import pandas as pd
    from iolens.report.perf import file_categories, per_file
    frame = pd.DataFrame({
        "id": [1, 1, 2, 2, 3, 4], "rank": [-1, 0, 0, 1, 2, -1],
        "P_BYTES_READ": [10, 5, 0, 0, 7, 0], "P_BYTES_WRITTEN": [0, 0, 3, 4, 0, 100],
        "P_MAX_BYTE_READ": [9, 4, 0, 0, 6, 0], "P_MAX_BYTE_WRITTEN": [0, 0, 2, 3, 0, 99]})
    files = per_file(frame, "P_")
    assert files["p"].tolist() == [0, 2, 1, -1]
    assert files["r"].tolist() == [15, 0, 7, 0] and files["m"].tolist() == [9, 3, 6, 99]
    cats = file_categories(files)
    assert cats.loc["unique"].tolist() == [1, 7, 6]
    # The shared line adds fully and partially shared files, max offsets included.
    assert cats.loc["shared"].tolist() == [1 + 2, 100 + 22, 99 + 9]
    assert cats.loc["read_only"].tolist() == [2, 22, 9]
    assert cats.loc["write_only"].tolist() == [2, 107, 99]


def test_mount_matching_is_a_byte_prefix_longest_first():
    import pandas as pd
    from iolens.report.files import mount_of
    names = pd.Series(["/homework/x", "/home/u/f", "/lus/a", "relative", None])
    got = mount_of(names, [("/", "ext4"), ("/home", "nfs"), ("/lus", "lustre")])
    assert got["mount"].tolist() == ["/home", "/home", "/lus", "UNKNOWN", "UNKNOWN"]
    assert got["fs"].tolist() == ["nfs", "nfs", "lustre", "UNKNOWN", "UNKNOWN"]


def _synthetic_log(path):
    """One file used by two ranks in each of DFS, DAOS, H5D and PNETCDF_VAR
    (the corpus has no DFS/DAOS log)."""
    import numpy as np
    names = ["/data/a"]
    ids = [iolens.record_id(names[0])] * 2
    reads = {"H5D": "H5D_READS", "PNETCDF_VAR": "PNETCDF_VAR_INDEP_READS",
             "DFS": "DFS_READS", "DAOS": "DAOS_ARRAY_READS"}
    writes = {m: c.replace("READS", "WRITES") for m, c in reads.items()}
    with iolens.Writer(path) as w:
        w.set_job(nprocs=2, start_time_sec=100, end_time_sec=110, metadata="lib_ver=3.5.0\n",
                  exe="/bin/app", mounts=[("/data", "dfuse"), ("/", "ext4")])
        w.add_names(ids[:1], names)
        for k, module in enumerate(("H5D", "PNETCDF_VAR", "DFS", "DAOS")):
            info = iolens.module_info(module)
            ints = np.zeros((2, len(info.counters)), np.int64)
            flts = np.zeros((2, len(info.fcounters)))
            ints[:, info.counters.index(module + "_BYTES_READ")] = [1000 * (k + 1), 2000]
            ints[:, info.counters.index(module + "_BYTES_WRITTEN")] = [3000, 4000 * (k + 1)]
            flts[:, info.fcounters.index(module + "_F_READ_TIME")] = [0.5, 0.25 * (k + 1)]
            flts[:, info.fcounters.index(module + "_F_META_TIME")] = [0.125, 0.01]
            ints[:, info.counters.index(reads[module])] = [3, 4]
            ints[:, info.counters.index(writes[module])] = [1, 1]   # bytes need operations
            size = next(c for c in info.counters if c.endswith("SIZE_READ_1K_10K")
                        or c.endswith("SIZE_READ_AGG_1K_10K"))
            ints[:, info.counters.index(size)] = [3, 4]
            extra = {"file_rec_id": ids} if module in ("H5D", "PNETCDF_VAR") else {}
            w.put_records(module, ids, [0, 1], ints, flts, **extra)
    return path


def test_dfs_daos_hdf5_pnetcdf_interfaces(tmp_path):
    from iolens.report import render_html
    from report_helpers import page_facts
    log = _synthetic_log(tmp_path / "synthetic.darshan")
    with iolens.open(log) as handle:
        ids, values = page_facts(render_html(handle))
    assert {"fig-io-cost", "fig-access-sizes", "fig-op-counts", "shared-table"} <= ids
    for module in ("H5D", "PNETCDF_VAR", "DFS", "DAOS"):
        assert f"{module}.agg_perf_by_slowest" in values
    assert values["DAOS.bytes_read"] == "6000" and values["H5D.bytes_written"] == "7000"
    if iolens_bin() is None:
        pytest.skip("C tool `iolens` not found ($IOLENS_BIN, build/src/tools/iolens, PATH)")
    want = parser_numbers(parser_text(log, "--perf", "--total") or "")
    assert set(want) == {"DFS", "DAOS"}
    for module, numbers in want.items():
        for key in KEYS:
            assert values[f"{module}.{key}"] == numbers[key], (module, key)
