"""The report's contents, as data: one entry per figure or table.

Adding a figure is one entry here plus its function.  `modules` says which
log modules an entry applies to (empty = always shown); an entry whose
modules are all absent is left out, and an entry whose function returns None
says "no data" in its place."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import figures, findings, phases, place_tables, platform, tables
from .interfaces import (ACCESS_SIZE_MODULES, DATASET_MODULES, FILE_SYSTEM_MODULES,
                         HEATMAP_MODULES, IO_MODULES, LAYOUT_MODULES, PHASE_MODULES,
                         SEQUENTIAL_MODULES, TRACE_MODULES)

FIGURE, TABLE = "figure", "table"

ALL_IO = IO_MODULES


@dataclass(frozen=True)
class Item:
    section: str
    id: str            # HTML element id: stable, tests and links use it
    title: str
    caption: str       # one sentence: what the figure or table shows
    build: Callable    # ReportData -> Figure | Table | None (no data) | str (why not)
    kind: str = FIGURE
    modules: tuple = ()
    when: Callable | None = None   # ReportData -> bool: shown only if true (None = always)


ITEMS = (
    Item("Job", "job-table", "Job", "What ran, who ran it, when and for how long.",
         tables.job, TABLE),
    Item("Job", "modules-table", "Modules in the log",
         "The modules that recorded data, their record versions, and whether their data is complete.",
         tables.modules, TABLE),
    Item("Overall I/O", "overview-table", "I/O per interface",
         "Bytes moved, I/O time of the slowest process plus shared-file time, and the resulting "
         "bandwidth estimate, computed as iolens parse --perf computes them "
         "(* = same formula applied to a module the parser does not summarise).",
         tables.overview, TABLE, ALL_IO),
    Item("I/O cost", "fig-io-cost", "I/O cost per process",
         "Average time each process spent in reads, writes and metadata operations, per interface.",
         figures.io_cost, FIGURE, ALL_IO),
    Item("I/O cost", "cost-table", "I/O cost per process (numbers)",
         "The same averages as the figure: total time over all processes divided by the process count.",
         tables.cost, TABLE, ALL_IO),
    Item("Phases", "phases-table", "I/O per program phase",
         "Per region the program named (docs/regions.md), summed over the processes: its runs, "
         "the time inside it, and per layer the bytes, operations and I/O time of the calls made "
         "while it was the innermost region.",
         phases.breakdown, TABLE, PHASE_MODULES),
    Item("Operation counts", "fig-op-counts", "Operation counts",
         "How many calls of each kind each interface made, summed over all processes and files.",
         figures.op_counts, FIGURE, ALL_IO),
    Item("Access sizes", "fig-access-sizes", "Access size histograms",
         "How many reads and writes fell into each access-size range, per module.",
         figures.access_sizes, FIGURE, ACCESS_SIZE_MODULES),
    Item("Access sizes", "common-access-table", "Most common access sizes",
         "The access sizes used most often, summed over every file's four most common sizes.",
         tables.common_accesses, TABLE, ACCESS_SIZE_MODULES),
    Item("Files", "file-kinds-table", "Files by kind",
         "How many files were read-only, write-only, read/write, unique to one process or shared, "
         "and how much data they moved (the parser's --file categories).",
         tables.file_kinds, TABLE, ALL_IO),
    Item("Files", "fig-mounts", "Data per mount point",
         "Bytes read and written by the program's files on each file system, from the mount "
         "table recorded in the log.",
         figures.by_mount, FIGURE, FILE_SYSTEM_MODULES),
    Item("Files", "mount-table", "Data per mount point (numbers)",
         "Files, bytes read and bytes written per mount point and module; the standard streams "
         "and MPI-internal files in rows of their own, last.",
         tables.by_mount, TABLE, FILE_SYSTEM_MODULES),
    Item("Files", "top-time-table", "Top files by I/O time",
         "The program's files whose reads, writes and metadata operations took the longest, "
         "summed over processes.",
         tables.top_by_time, TABLE, ALL_IO),
    Item("Files", "top-bytes-table", "Top files by data moved",
         "The program's files that moved the most bytes.", tables.top_by_bytes, TABLE, ALL_IO),
    Item("Files", "special-files-table", "Standard streams and MPI-internal files",
         "The standard streams and the files the MPI library made for itself (session "
         "directories, shared-memory segments, lock probes), kept out of the tables above.",
         tables.special_files, TABLE, ALL_IO),
    Item("Files", "datasets-table", "Datasets and variables",
         "Each HDF5 dataset and PnetCDF variable: its shape, element size and chunking, "
         "the bytes read and written through it, and whether collective I/O was used.",
         tables.datasets, TABLE, DATASET_MODULES),
    Item("Files", "fig-sequential", "Sequential and consecutive access",
         "The share of POSIX reads and writes that started after the previous one (sequential) "
         "or exactly where it ended (consecutive).",
         figures.sequential, FIGURE, SEQUENTIAL_MODULES),
    Item("Shared files", "shared-table", "Shared files",
         "For each file used by more than one process (slowest first): the fastest and slowest "
         "process and the standard deviation of I/O time and bytes across processes.",
         tables.shared_files, TABLE, ALL_IO),
    Item("Time", "fig-timeline", "File access timeline",
         "For each process, the span from its first to its last file access, per module.",
         figures.timeline, FIGURE, ALL_IO),
    Item("Time", "fig-heatmap", "Heat map",
         "Bytes moved by each process in each time bin, as recorded by the runtime heat map module.",
         figures.heatmap, FIGURE, HEATMAP_MODULES),
    Item("Time", "fig-dxt-heatmap", "DXT heat map",
         "Bytes moved by each process in each time bin, binned from the DXT trace segments.",
         figures.dxt_heatmap, FIGURE, TRACE_MODULES),
    Item("Time", "fig-dxt-threads", "Per-thread activity",
         "Bytes moved by each thread of each process in each time bin, from DXT segments "
         "that carry thread ids.",
         figures.dxt_threads, FIGURE, TRACE_MODULES),
    Item("Time", "dxt-threads-table", "Threads per process",
         "For each process and thread seen in the DXT trace: operations, bytes, when it was "
         "active and how long its traced operations took.",
         tables.dxt_threads, TABLE, TRACE_MODULES),
    Item("Platform", "platform-table", "Machine and job geometry",
         "What the runtime recorded about the nodes and the job: node count, processes per "
         "node, host names, CPU, memory, GPUs, network and the scheduler's job geometry.",
         place_tables.platform_facts, TABLE, when=platform.has_facts),
    Item("Platform", "mount-facts-table", "File systems",
         "Each mount: whether its data is node-local or shared by every node, its block size "
         "(when a file on it was opened), and the files and bytes of POSIX and STDIO on it "
         "(DFS paths are in DAOS containers: see Data per mount point).",
         place_tables.mount_facts, TABLE, when=platform.has_mount_facts),
    Item("Lustre", "lustre-table", "Lustre striping",
         "Stripe size and count (first layout component), components, pool and OSTs of each "
         "Lustre file, with its size and the data moved (largest files first).",
         place_tables.stripe_settings, TABLE, LAYOUT_MODULES),
    Item("Lustre", "fig-ost-spread", "Data per OST",
         "Estimated bytes per OST: each file's bytes spread evenly over the stripes its extent "
         "covers.",
         place_tables.ost_spread_figure, FIGURE, LAYOUT_MODULES),
    Item("Lustre", "fig-ost-time", "Time per OST",
         "Read and write seconds per OST (from the DXT trace, else each file's POSIX times "
         "spread like its bytes): next to the data per OST, equal bytes with unequal seconds "
         "show a slow storage target (diagnosis rule slow-ost).",
         place_tables.ost_time_figure, FIGURE, LAYOUT_MODULES),
    Item("Lustre", "ost-table", "Data per OST (numbers)",
         "The files on each OST and the estimated bytes it served, busiest first.",
         place_tables.ost_spread, TABLE, LAYOUT_MODULES),
    Item("Lustre", "lustre-fit-table", "Striping that does not fit",
         "Files whose stripe count or size does not fit their size and access pattern "
         "(the thresholds of iolens diagnose's lustre-striping rule).",
         place_tables.misfits, TABLE, LAYOUT_MODULES),
    Item("Diagnosis", "findings-table", "Findings",
         "I/O problems found by iolens diagnose, one root cause at a time, costliest first: "
         "each root finding, then the findings it explains (their time is counted in "
         "the root's), with the evidence, the estimated time lost per process (an upper "
         "bound), the cost at scale and the fix.",
         findings.findings, TABLE),
)


def applies(data, item) -> bool:
    """Whether an entry is built for this log: one of its modules is present (or it
    names none) and its `when` test, if any, says yes."""
    if item.modules and not any(m in data.modules for m in item.modules):
        return False
    return item.when is None or bool(item.when(data))


def sections() -> list:
    return list(dict.fromkeys(item.section for item in ITEMS))
