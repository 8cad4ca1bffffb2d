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
                 interfaces.SEQUENTIAL_MODULES, interfaces.DATASET_MODULES,
                 interfaces.PHASE_MODULES, ()}
    for item in ITEMS:
        assert item.modules in generated, (item.id, item.modules)
    assert interfaces.PARSER_PERF_MODULES == _meta.summary_modules()
    assert interfaces.DATASET_MODULES == tuple(
        m.name for m in iolens.modules().values() if m.role == "io" and m.has_file_rec_id)


# --------------------------------------------------------- no hand-written lists
# Places where a list names specific modules because the code is about those
# modules, not about a kind of module (each says why); everything else takes its
# module lists from iolens._meta (modules.def).  Keyed by file, then the names.
ALLOWED_LISTS = {
    # HDF5 and PnetCDF are two modules each (file + dataset/variable records):
    # which two is knowledge of those libraries, kept with the report's labels.
    "report/interfaces.py": [{"H5D", "H5F"}, {"PNETCDF_VAR", "PNETCDF_FILE"}],
    # the datasets table reads counters only these two tables have (dataspace,
    # chunking), named differently in each.
    "report/tables.py": [{"H5D", "PNETCDF_VAR"}],
    # the histogram-vs-operations damage check, limited to the modules whose
    # size histograms it was checked against (view/damage.py is another
    # helper's file: left to it).
    "view/damage.py": [{"POSIX", "MPI-IO"}],
    # the small-request rules read the access-size histograms, whose counters are
    # named differently in these two tables (SIZE_READ_* / SIZE_READ_AGG_*).
    "diagnose/checks_access.py": [{"POSIX", "MPI-IO"}],
    # shared-record imbalance: the three modules whose shared records carry
    # fastest/slowest-rank times and that the rule's thresholds were set for.
    "diagnose/checks_time.py": [{"POSIX", "MPI-IO", "STDIO"}],
    # the DAOS rules read counters only DAOS's two client libraries' tables have
    # (opens, lookups and dups; DFS_CHUNK_SIZE), with a word per module.
    "diagnose/checks_daos.py": [{"DFS", "DAOS"}],
    # what to set when one of these modules ran out of room: a text per module.
    "diagnose/checks_place.py": [{"DXT_POSIX", "DXT_MPIIO", "HEATMAP"}],
    # each rule's evidence: the counters it reads, keyed by the module that has
    # them (the counter names are the rule's knowledge, not a kind of module).
    "diagnose/rules.py": [{"POSIX", "MPI-IO"}, {"POSIX", "STDIO"}, {"POSIX", "MPI-IO", "STDIO"},
                          {"H5D", "H5F"}, {"H5F", "POSIX"}, {"STDIO", "POSIX"}, {"DFS", "DAOS"}],
}
# Packages not scanned (none: every package takes its module lists from _meta).
NOT_YET_SCANNED = ()


def _module_lists(tree, known):
    """(line, names) of every tuple, list, set or dict-key list naming two or more modules."""
    import ast
    for node in ast.walk(tree):
        elts = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) or elts is None:
            continue
        names = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in known}
        if len(names) >= 2:
            yield node.lineno, names


def test_no_hand_written_module_list_in_the_package():
    """No tuple/list/set of two or more module names (printed or C symbol) in
    python/iolens outside the allow-list: a new module reaches every list through
    modules.def.  (Failed before: layers.STACK, view/layers.FILE_SYSTEM_LAYERS,
    fleet _ORDER and --module choices, report FILE_SYSTEM_MODULES, view/trace.py.)"""
    import ast
    from pathlib import Path
    known = {m.name for m in iolens.modules().values()} | {
        m.symbol for m in iolens.modules().values()}
    known.discard("NULL")      # also an ordinary word in messages
    root = Path(iolens.__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in NOT_YET_SCANNED:
            continue
        for line, names in _module_lists(ast.parse(path.read_text()), known):
            if names not in ALLOWED_LISTS.get(rel, []):
                found.append(f"{rel}:{line}: {sorted(names)}")
    assert not found, "hand-written module lists (use iolens._meta):\n" + "\n".join(found)


def test_layer_facts_come_from_the_module_table():
    """The stack order, the layers and the runtime column are modules.def's."""
    table = {m["name"]: m for m in iolens._core.module_table()}
    for name, info in iolens.modules().items():
        assert (info.layer, info.depth, info.runtime) == (
            table[name]["layer"], table[name]["depth"], table[name]["runtime"])
        assert (info.depth > 0) == (info.layer != "none"), name
    assert _meta.stack_order() == ("H5D", "PNETCDF_VAR", "H5F", "PNETCDF_FILE", "MPI-IO",
                                   "STDIO", "POSIX", "DFS", "DAOS")
    assert _meta.file_system_layers() == ("POSIX", "STDIO", "DFS", "DAOS")
    assert _meta.layer_modules("middleware") == ("MPI-IO",)
    assert _meta.layer_modules("high-level") == ("H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR")
    assert _meta.trace_modules() == ("DXT_POSIX", "DXT_MPIIO")
    assert _meta.traced_module("DXT_MPIIO") == "MPI-IO" and _meta.trace_of("POSIX") == "DXT_POSIX"
    assert _meta.trace_of("STDIO") is None
    assert iolens.module_info("MPI-IO").runtime == "mpi"
    assert iolens.module_info("POSIX").runtime == "lib"
    assert iolens.module_info("DAOS").runtime == "lib"
    assert iolens.module_info("MDHIM").runtime == "none"
    # every data module has a layer; the layers of the view and the fleet are these
    from iolens.fleet.interfaces import interfaces
    from iolens.layers import STACK
    from iolens.view.layers import FILE_SYSTEM_LAYERS
    assert all(iolens.module_info(m).depth > 0 for m in _meta.data_modules())
    assert STACK == _meta.stack_order() and FILE_SYSTEM_LAYERS == _meta.file_system_layers()
    assert [i.module for i in interfaces() if i.base] == list(_meta.file_system_layers())
