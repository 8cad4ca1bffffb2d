"""The module table is the whole module contract (issue 27): which modules have
darshan-parser figures, what each counter measures, record sizes and the report's
module lists all come from modules.def and the counter tables through the C core,
never from a list written in Python."""
from __future__ import annotations

import iolens
from iolens import _meta
from iolens.report import interfaces
from iolens.report.registry import ITEMS


def test_summary_column_and_units_come_from_the_c_table():
    table = {m["name"]: m for m in iolens._core.module_table()}
    for name, info in iolens.modules().items():
        assert info.summaries == table[name]["summaries"]
        assert info.record_size == table[name]["record_size"]
        assert list(info.units) == list(info.counters + info.fcounters)
    assert _meta.summary_modules() == ("POSIX", "MPI-IO", "STDIO", "DFS", "DAOS")
    posix = iolens.module_info("POSIX")
    assert posix.record_size == 704
    assert posix.units["POSIX_F_READ_TIME"] == "seconds"
    assert posix.units["POSIX_F_OPEN_START_TIMESTAMP"] == "timestamp"
    assert posix.units["POSIX_BYTES_READ"] == "bytes"
    assert posix.units["POSIX_MAX_BYTE_READ"] == "offset"
    assert posix.units["POSIX_SLOWEST_RANK"] == "rank"
    assert posix.units["POSIX_READS"] == "count"
    assert set(posix.counters_in("seconds")) >= {"POSIX_F_READ_TIME", "POSIX_F_META_TIME"}


def test_report_module_lists_are_generated():
    """Every module list of the report's registry is one of the generated lists."""
    generated = {interfaces.IO_MODULES, interfaces.ACCESS_SIZE_MODULES,
                 interfaces.FILE_SYSTEM_MODULES, interfaces.HEATMAP_MODULES,
                 interfaces.TRACE_MODULES, interfaces.LAYOUT_MODULES,
                 interfaces.SEQUENTIAL_MODULES, interfaces.DATASET_MODULES, ()}
    for item in ITEMS:
        assert item.modules in generated, (item.id, item.modules)
    assert interfaces.PARSER_PERF_MODULES == _meta.summary_modules()
    assert interfaces.DATASET_MODULES == tuple(
        m.name for m in iolens.modules().values() if m.role == "io" and m.has_file_rec_id)
