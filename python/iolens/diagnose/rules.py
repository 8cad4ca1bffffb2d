"""The diagnosis rules: one entry each.  Adding a rule is one entry here (plus its
check function and its two tests); the engine, the outputs, the SARIF rule table
and docs/diagnosis.md all come from these entries."""
from __future__ import annotations

from . import checks_access as acc
from . import checks_daos as daos
from . import checks_dxt as dxt
from . import checks_libs as libs
from . import checks_log as logchk
from . import checks_mounts as mounts
from . import checks_mpi as mpi
from . import checks_ost as ost
from . import checks_conflict as conflict
from . import checks_place as place
from . import checks_time as tm
from .measure import size_bins
from .model import Rule

USER, DEV, SYS = "user", "developer", "system"


def _p(*names):
    return tuple(f"POSIX_{n}" for n in names)


def _m(*names):
    return tuple(f"MPIIO_{n}" for n in names)


RW_TIME = _p("F_READ_TIME", "F_WRITE_TIME")
POSIX_IO = _p("BYTES_READ", "BYTES_WRITTEN", "F_READ_TIME", "F_WRITE_TIME", "F_META_TIME")
MPIIO_OPS = _m(*(f"{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB") for op in ("READ", "WRITE")))
SMALL = {"POSIX": tuple(size_bins("POSIX", "READ") + size_bins("POSIX", "WRITE"))
         + _p("READS", "WRITES") + RW_TIME,
         "MPI-IO": tuple(size_bins("MPI-IO", "READ") + size_bins("MPI-IO", "WRITE"))
         + MPIIO_OPS + _m("F_READ_TIME", "F_WRITE_TIME")}
STDIO_IO = tuple(f"STDIO_{n}" for n in ("BYTES_READ", "BYTES_WRITTEN", "OPENS", "F_READ_TIME",
                                        "F_WRITE_TIME", "F_META_TIME"))


def _imb(p):
    return tuple(f"{p}_{n}" for n in ("SLOWEST_RANK", "FASTEST_RANK", "SLOWEST_RANK_BYTES",
                                      "FASTEST_RANK_BYTES", "F_SLOWEST_RANK_TIME",
                                      "F_FASTEST_RANK_TIME", "BYTES_READ", "BYTES_WRITTEN"))


H5D_SHAPE = tuple(["H5D_DATASPACE_NDIMS", "H5D_DATATYPE_SIZE", "H5D_READS", "H5D_WRITES",
                   "H5D_F_READ_TIME", "H5D_F_WRITE_TIME", "H5D_F_META_TIME",
                   "H5D_USE_MPIIO_COLLECTIVE"]
                  + [f"H5D_CHUNK_SIZE_D{d}" for d in range(1, 6)]
                  + [f"H5D_ACCESS1_LENGTH_D{d}" for d in range(1, 6)])

RULES = (
    Rule("damaged-log", "Damaged data in the log", "warning", (USER, SYS),
         "records or DXT segments hold values a healthy run cannot write: a rank outside "
         "the job, a negative, NaN or infinite time, a time past the run time by more than "
         "the margin, counters that contradict each other, a histogram that does not sum "
         "to the operation count, a DXT segment ending before it starts or at an impossible "
         "offset (docs/metrics.md, Damage)",
         "Figures built on such values are meaningless (negative seconds, petabytes from a "
         "4-process job); the view sets them aside, so the other findings use the rest.",
         "Treat the log's figures as partial. Check the storage the log was copied from, "
         "and the runtime version that wrote it (clock or memory faults show this way).",
         logchk.damaged_log, "",
         costed=False, scaling="none"),
    Rule("small-io", "Small reads and writes", "warning", (USER, DEV),
         "more than {small_io.fraction} of the reads (or writes) at the MPI-IO layer, else "
         "POSIX, are below {sizes.small_request}, and at least {small_io.min_count} of "
         "them",
         "Every request pays a fixed cost (system call, RPC to the servers, lock); at small "
         "sizes that cost, not bandwidth, sets the speed. The MPI-IO layer shows the sizes "
         "the application asked for, which collective buffering may hide at POSIX.",
         "Make requests larger: buffer and write in MiB-sized blocks, or let MPI-IO "
         "aggregate them with collective calls.",
         acc.small_io,
         'MPI_File_write_at_all(fh, offset, buf, count, type, &status); /* collective: '
         'ROMIO merges small pieces */\nMPI_Info_set(info, "romio_cb_write", "enable");',
         SMALL,
         explains=("small-io-shared", "no-collective"), region_pattern="small"),
    Rule("small-io-shared", "Small reads and writes on shared files", "warning", (USER, DEV),
         "as small-io, counting only files shared by several processes: more than "
         "{small_io.fraction} of their reads (or writes) below {sizes.small_request}, at "
         "least {small_io.min_count}",
         "Small requests from many processes to one file also contend for the file's locks "
         "(Lustre extent locks, GPFS tokens), so they cost more than on private files.",
         "Use collective MPI-IO on shared files so a few aggregators issue large requests.",
         acc.small_shared,
         'MPI_Info_set(info, "romio_cb_write", "enable");\nMPI_Info_set(info, '
         '"romio_cb_read", "enable");',
         SMALL,
         scaling="processes", explains=("no-collective",)),
    Rule("misaligned-file", "Misaligned file accesses", "info", (USER, DEV),
         "more than {alignment.fraction} of POSIX accesses (at least "
         "{alignment.min_count}, on files moving at least {alignment.min_bytes}) start at "
         "an offset that is not a multiple of the file-system block size (the Lustre "
         "stripe size when known); files on node-local mounts (mntfs) are judged apart and "
         "reported as info without a time: no shared server pays for them",
         "An access that straddles a block or stripe boundary touches two servers or forces "
         "a read-modify-write of the partial block.",
         "Align offsets and sizes to the stripe size: pad headers, set the HDF5 alignment, or "
         "let MPI-IO collective buffering align file domains.",
         acc.misaligned_file,
         'MPI_Info_set(info, "striping_unit", "4194304");\nH5Pset_alignment(fapl, 0, 4194304);',
         {"POSIX": _p("READS", "WRITES", "FILE_NOT_ALIGNED", "FILE_ALIGNMENT", "BYTES_READ",
                     "BYTES_WRITTEN") + RW_TIME},
         explains=("hdf5-alignment",)),
    Rule("misaligned-memory", "Misaligned memory buffers", "info", (DEV,),
         "more than {alignment.fraction} of POSIX accesses (at least "
         "{alignment.min_count}) use buffers not aligned to the memory alignment the "
         "runtime checked",
         "Unaligned buffers defeat direct I/O and may force an extra copy in the kernel.",
         "Allocate I/O buffers with posix_memalign (or aligned_alloc).",
         acc.misaligned_memory,
         "posix_memalign(&buf, 4096, nbytes);",
         {"POSIX": _p("READS", "WRITES", "MEM_NOT_ALIGNED", "MEM_ALIGNMENT", "BYTES_READ",
                     "BYTES_WRITTEN")}),
    Rule("redundant-reads", "Redundant reads", "warning", (DEV,),
         "a process reads more than {redundant.ratio} the extent of a file it reads (at "
         "least {redundant.min_excess_bytes} re-read in total)",
         "Bytes read beyond a file's extent were read before: the data could have been kept "
         "in memory. (Drishti tests this the wrong way round.)",
         "Read each piece once and keep it, or cache it (e.g. read into a buffer reused "
         "across iterations).", acc.redundant_reads, "",
         {"POSIX": _p("BYTES_READ", "MAX_BYTE_READ", "F_READ_TIME")}),
    Rule("redundant-writes", "Redundant writes", "warning", (DEV,),
         "a process writes more than {redundant.ratio} the extent of a file it writes (at "
         "least {redundant.min_excess_bytes} re-written)",
         "Rewriting the same bytes moves data that is then thrown away.",
         "Write each region once (accumulate in memory, then write), or write "
         "checkpoints to alternating files instead of overwriting in place.",
         acc.redundant_writes, "",
         {"POSIX": _p("BYTES_WRITTEN", "MAX_BYTE_WRITTEN", "F_WRITE_TIME")}),
    Rule("random-access", "Random access", "warning", (USER, DEV),
         "more than {random.fraction} of the POSIX reads (or writes) after each file's "
         "first access, at least {random.min_count}, are not sequential (a file's first "
         "access has no predecessor and is never counted)",
         "Non-sequential access defeats read-ahead and write-behind and makes each request "
         "pay a seek or a new RPC.",
         "Sort requests by offset, read larger contiguous blocks and select in memory, or "
         "use MPI-IO file views with collective I/O.",
         acc.random_access,
         "MPI_File_set_view(fh, disp, etype, filetype, \"native\", info);\n"
         "MPI_File_read_all(fh, buf, count, etype, &status);",
         {"POSIX": _p("READS", "WRITES", "SEQ_READS", "SEQ_WRITES") + RW_TIME},
         region_pattern="random"),
    Rule("metadata-time", "High metadata time per process", "warning", (USER, DEV, SYS),
         "one process spends more than {metadata.per_process_seconds}, or more than "
         "{metadata.run_fraction} of the run (and at least {metadata.min_seconds}), in "
         "POSIX/STDIO metadata calls, counted per process",
         "Metadata calls are served by one metadata server for the whole machine; time there "
         "does not scale with more OSTs. Counted per process, not per record: a thousand "
         "cheap files on one process add up.",
         "Open fewer files (aggregate into one file per process group), avoid stat/seek in "
         "loops, and keep files open across iterations.",
         tm.metadata_time, "",
         {"POSIX": _p("F_META_TIME"), "STDIO": ("STDIO_F_META_TIME",)},
         scaling="processes", explains=("open-close",), region_pattern="metadata"),
    Rule("open-close", "Time lost in open and close", "warning", (DEV,),
         "a process opens the same file more than {open_close.opens_per_file} times; or "
         "metadata takes over {open_close.meta_fraction} of POSIX I/O time, costing at "
         "least {open_close.min_seconds} per process",
         "Each open is a round trip to the metadata server and each close flushes; reopening "
         "a file inside a loop multiplies that cost.",
         "Open each file once and keep the descriptor for the run.",
         tm.open_close, "fd = open(path, O_RDWR);   /* once, outside the loop */",
         {"POSIX": _p("OPENS", "F_META_TIME") + RW_TIME},
         scaling="processes", region_pattern="metadata"),
    Rule("imbalance-shared", "Imbalanced I/O on shared files", "warning", (USER, DEV),
         "on a shared file (at least {imbalance.min_bytes}), the slowest and fastest "
         "processes differ by more than {imbalance.fraction} in bytes or in time (slowest "
         "at least {imbalance.min_seconds}); files written collectively through MPI-IO are "
         "judged at the MPI-IO layer, where aggregators do not show",
         "Collective operations finish when the slowest process does; the others wait.",
         "Give every process the same amount of data, or use collective I/O so aggregators "
         "even out the load; check the file's striping.",
         tm.imbalance_shared, "",
         {"POSIX": _imb("POSIX"), "STDIO": _imb("STDIO"),
          "MPI-IO": _imb("MPIIO") + MPIIO_OPS}),
    Rule("imbalance-ranks", "Imbalanced I/O across processes", "warning", (USER, DEV),
         "over all files, bytes per process or POSIX I/O time per process vary by more than "
         "{imbalance.fraction} (of the largest), and the slowest process spends at least "
         "{imbalance.min_seconds} in I/O; files accessed collectively through MPI-IO are "
         "left out (their aggregators carry the POSIX data by design)",
         "A job waits for its slowest process at the next synchronisation point.",
         "Distribute the I/O evenly or dedicate I/O processes deliberately (and overlap "
         "their work with computation).", tm.imbalance_ranks, "",
         {"POSIX": POSIX_IO, "MPI-IO": MPIIO_OPS},
         explains=("imbalance-shared", "dxt-stragglers")),
    Rule("mpiio-skew", "MPI-IO time far above POSIX time (skew)", "warning", (USER, DEV),
         "the slowest process's MPI-IO time is over {skew.ratio} the POSIX time beneath "
         "it, by at least {skew.min_seconds} and {skew.run_fraction} of the run",
         "Time spent in MPI-IO but not in the POSIX calls it makes is waiting: collective "
         "calls block until the last process arrives, so load imbalance in the computation "
         "shows up as I/O time (upstream Darshan's skew heuristic).",
         "Balance the work before the I/O phase, or use nonblocking/split collectives so "
         "early processes keep computing.", tm.mpiio_skew, "",
         {"MPI-IO": _m("F_READ_TIME", "F_WRITE_TIME", "F_META_TIME", "F_SLOWEST_RANK_TIME"),
          "POSIX": POSIX_IO + _p("F_SLOWEST_RANK_TIME")}),
    Rule("rank0-io", "Rank 0 does all the I/O", "warning", (DEV,),
         "in a job of {rank0.min_procs} or more processes, rank 0 moves at least "
         "{rank0.fraction} of the bytes (at least {rank0.min_bytes}) at the layer the "
         "application called (MPI-IO when used, where aggregators do not show; else POSIX "
         "and STDIO)",
         "Funnelling all data through one process serialises it on one node's network link "
         "while the others wait.",
         "Have every process (or one per node) write its part, e.g. with collective MPI-IO "
         "to a shared file.", tm.rank0_io,
         "MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);\n"
         "MPI_File_write_at_all(fh, rank * block, buf, block, MPI_BYTE, &status);",
         {"POSIX": POSIX_IO, "STDIO": STDIO_IO, "MPI-IO": _m("BYTES_READ", "BYTES_WRITTEN")},
         scaling="processes", explains=("imbalance-ranks", "imbalance-shared", "dxt-stragglers",
                                       "mpiio-skew")),
    Rule("no-collective", "Independent MPI-IO", "warning", (DEV,),
         "more than {collective.independent_fraction} of MPI-IO reads (or writes), at "
         "least {collective.min_count}, are independent, in a multi-process job",
         "Independent calls reach the file system as they are; collective calls let ROMIO "
         "merge and align them through a few aggregators.",
         "Use the collective calls (_all) for data every process accesses.",
         mpi.no_collective, "MPI_File_write_at_all(...) / MPI_File_read_at_all(...)",
         {"MPI-IO": MPIIO_OPS + _m("F_READ_TIME", "F_WRITE_TIME")},
         scaling="processes"),
    Rule("collective-used", "Collective MPI-IO in use", "ok", (DEV,),
         "most MPI-IO data operations are collective",
         "Collective buffering is the usual best practice on parallel file systems.",
         "Nothing to do.", mpi.collective_used, "", {"MPI-IO": MPIIO_OPS},
         costed=False, scaling="none"),
    Rule("blocking-mpiio", "Blocking MPI-IO", "info", (DEV,),
         "no nonblocking MPI-IO calls, while MPI-IO reads and writes take more than "
         "{blocking.io_fraction} of the run per process",
         "Nonblocking (MPI_File_iwrite_at_all) or split-collective calls let computation "
         "overlap I/O; worth it only when I/O is a real share of the run.",
         "Overlap I/O with computation using nonblocking MPI-IO.", mpi.blocking,
         "MPI_File_iwrite_at_all(fh, off, buf, n, type, &req);  /* compute */  MPI_Wait(&req, "
         "&status);", {"MPI-IO": MPIIO_OPS + _m("F_READ_TIME", "F_WRITE_TIME")},
         residual=True),
    Rule("aggregators", "MPI-IO aggregators versus nodes", "info", (USER, SYS),
         "collective MPI-IO in a job on at least {aggregators.min_nodes} nodes (job "
         "metadata or DXT host names) where the processes that do the file-system I/O of "
         "collectively accessed files (the aggregators, counted from the POSIX records; "
         "else the application's cb_nodes from job metadata) are fewer than the nodes. The "
         "log's 'h=' hints are the runtime's own, for writing the log, and are never taken "
         "as the application's",
         "With fewer aggregators than nodes some nodes' network links sit idle during "
         "collective I/O; more than nodes oversubscribes them.",
         "Set cb_nodes to the node count (or a multiple of the OST count).",
         mpi.aggregators, "",
         {"MPI-IO": MPIIO_OPS, "POSIX": _p("BYTES_READ", "BYTES_WRITTEN")},
         scaling="processes"),
    Rule("stdio-heavy", "Heavy use of STDIO", "warning", (DEV,),
         "STDIO moves more than {stdio.fraction} of the bytes (at least {stdio.min_bytes})",
         "fread/fwrite buffer in small (4 KiB-ish) pieces and do not parallelise.",
         "Use POSIX or MPI-IO for bulk data; keep STDIO for logs and small text.",
         mpi.stdio_heavy, "setvbuf(fp, NULL, _IOFBF, 4 << 20);  /* if STDIO must stay */",
         {"STDIO": STDIO_IO, "POSIX": _p("BYTES_READ", "BYTES_WRITTEN")}),
    Rule("no-mpiio", "No MPI-IO in a many-process job", "info", (DEV,),
         "a job of at least {no_mpiio.min_procs} processes moves at least "
         "{no_mpiio.min_bytes} and has no MPI-IO records",
         "Without MPI-IO there is no collective buffering, no hints and no aggregation; each "
         "process hits the file system on its own.",
         "Use MPI-IO (or HDF5/PnetCDF over it) for shared data.", mpi.no_mpiio, "",
         {"POSIX": POSIX_IO, "STDIO": STDIO_IO},
         residual=True),
    Rule("hdf5-chunking", "HDF5 chunking versus the access pattern", "warning", (DEV,),
         "a chunked dataset (at least {hdf5.min_count} accesses) has chunks below "
         "{hdf5.small_chunk}, or is accessed in selections that are not whole chunks",
         "Each chunk is a separate object with an index entry; tiny chunks multiply metadata "
         "and small I/O, partial chunks force read-modify-write.",
         "Choose chunk dimensions that match the access selection (about 1 MiB per chunk) "
         "and raise the chunk cache.", libs.hdf5_chunking,
         "H5Pset_chunk(dcpl, ndims, chunk_dims);   /* chunk = one access selection */\n"
         "H5Pset_chunk_cache(dapl, 521, 16 << 20, 0.75);",
         {"H5D": H5D_SHAPE}),
    Rule("hdf5-collective", "HDF5 without collective transfers", "warning", (DEV,),
         "files open through the MPI-IO driver, with dataset transfers all independent, in "
         "a multi-process job",
         "HDF5's default transfer mode is independent even over MPI-IO; collective transfers "
         "and collective metadata avoid many small uncoordinated requests.",
         "Set collective transfers and collective metadata operations.",
         libs.hdf5_collective,
         "H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);\n"
         "H5Pset_all_coll_metadata_ops(fapl, 1);\nH5Pset_coll_metadata_write(fapl, 1);",
         {"H5D": H5D_SHAPE, "H5F": ("H5F_USE_MPIIO", "H5F_F_META_TIME")}),
    Rule("hdf5-alignment", "HDF5 file layout misaligned", "info", (DEV,),
         "more than {alignment.fraction} of POSIX accesses to HDF5 files (at least "
         "{alignment.min_count}) are misaligned",
         "HDF5 packs objects tightly by default; on a striped file system each object "
         "should start on a stripe boundary.",
         "Set the alignment property on the file access property list.",
         libs.hdf5_alignment, "H5Pset_alignment(fapl, 2097152, 4194304);",
         {"H5F": ("H5F_USE_MPIIO",),
          "POSIX": _p("READS", "WRITES", "FILE_NOT_ALIGNED", "FILE_ALIGNMENT", "BYTES_READ",
                      "BYTES_WRITTEN")}),
    Rule("pnetcdf-independent", "PnetCDF independent mode", "warning", (DEV,),
         "more than {collective.independent_fraction} of PnetCDF variable accesses (at "
         "least {collective.min_count}) are independent",
         "PnetCDF's independent mode bypasses MPI-IO collective buffering.",
         "Use the collective API (ncmpi_put_vara_all) or nonblocking iput + ncmpi_wait_all "
         "to aggregate requests.", libs.pnetcdf_collective,
         "ncmpi_iput_vara(ncid, var, start, count, buf, &req[i]);\n"
         "ncmpi_wait_all(ncid, n, req, st);",
         {"PNETCDF_VAR": ("PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_INDEP_WRITES",
                          "PNETCDF_VAR_COLL_READS", "PNETCDF_VAR_COLL_WRITES",
                          "PNETCDF_VAR_NB_READS", "PNETCDF_VAR_NB_WRITES",
                          "PNETCDF_VAR_F_READ_TIME", "PNETCDF_VAR_F_WRITE_TIME")},
         scaling="processes"),
    Rule("lustre-striping", "Lustre striping versus file and access size", "warning",
         (USER, SYS),
         "a file of {lustre.large_file} or more, or a shared file moving "
         "{lustre.shared_min_bytes} or more, has stripe count 1; or a file's common access "
         "size is under {lustre.access_multiple} a stripe or not a multiple of it",
         "A file on one OST gets one server's bandwidth no matter how many processes write "
         "it; accesses that cut stripes in pieces make several clients contend for one "
         "stripe's lock.",
         "Stripe large shared files over many OSTs, with a stripe size that the access size "
         "is a multiple of.", place.lustre_striping, "lfs setstripe -c 16 -S 4M <dir>",
         {"POSIX": POSIX_IO + _p("MAX_BYTE_READ", "MAX_BYTE_WRITTEN", "ACCESS1_ACCESS")},
         scaling="processes", explains=("imbalance-shared",)),
    Rule("ost-usage", "Few OSTs used", "info", (USER, SYS),
         "a job moving at least {lustre.ost_min_bytes} uses under {lustre.ost_fraction} of "
         "the OSTs it could see (the count from job metadata, else the highest OST index + "
         "1)",
         "Aggregate bandwidth grows with the number of OSTs a job spreads its data over.",
         "Stripe output directories wider (lfs setstripe -c) or spread files over OSTs.",
         place.ost_usage, "", {"POSIX": _p("BYTES_READ", "BYTES_WRITTEN")}),
    Rule("slow-ost", "Slow storage targets (OSTs)", "warning", (USER, SYS),
         "a few Lustre OSTs (at most {slow_ost.max_fraction} of the OSTs that moved at least "
         "{slow_ost.min_bytes}, of which there are at least {slow_ost.min_osts}) take over "
         "{slow_ost.ratio} the median seconds per byte of the other OSTs, costing at least "
         "{slow_ost.min_seconds} more than that median rate would (time per OST from the DXT "
         "trace, else each file's POSIX times spread over its stripes)",
         "On a healthy file system a byte costs about the same on every OST; a target far "
         "slower than its peers (failing disk, rebuilding RAID, overloaded server, full OST) "
         "holds back every process whose files it stores, and equal bytes per OST hide it.",
         "Report the OSTs to the system administrators; meanwhile keep new files off them "
         "(lfs setstripe -o <good OST list>, or a pool that excludes them) and re-run.",
         ost.slow_osts, "lfs check osts\nlfs df -h <mount>   # look for full or degraded OSTs",
         {"POSIX": _p("F_READ_TIME", "F_WRITE_TIME")},
         scaling="per-process",
         explains=("dxt-stragglers", "imbalance-ranks", "imbalance-shared")),
    Rule("conflicting-writes", "Conflicting writes to a shared file", "warning", (DEV,),
         "(DXT) writes by different processes to overlapping bytes of one file, at least "
         "{conflict.min_bytes}, with no close or sync between them that the log can place: "
         "overlapping "
         "in time, or the first writer neither closed nor synced the file in between "
         "(files written through MPI-IO are not judged; docs/diagnosis.md)",
         "Which process's bytes end up in the file depends on timing: a correctness "
         "problem, not a speed one.  Concurrent overlapping writes race; sequential ones are "
         "safe only on file systems with strict POSIX coherence (not NFS or client caches, "
         "and not under MPI-IO's default consistency semantics).",
         "Give each process its own byte range; if ranges must be shared, order the writes "
         "(close or fsync, then a barrier, before the next process writes).",
         conflict.conflicting_writes,
         "pwrite(fd, buf, n, off);\nfsync(fd);\nMPI_Barrier(MPI_COMM_WORLD);  /* before "
         "another rank writes these bytes */",
         {"POSIX": _p("OPENS", "FSYNCS", "FDSYNCS", "MAX_BYTE_WRITTEN", "F_CLOSE_START_TIMESTAMP",
                      "F_CLOSE_END_TIMESTAMP")}, dxt=True,
         scaling="none", costed=False),
    Rule("read-by-all", "Every process reads the same file", "warning", (DEV,),
         "every process of a job of {read_by_all.min_procs} or more reads at least "
         "{read_by_all.coverage} of the same file (at least {read_by_all.min_bytes}), "
         "whether or not the job wrote it first",
         "N processes reading the same bytes multiply the load on the same OSTs by N; one "
         "read and a broadcast costs one read.",
         "Read once (rank 0, or one rank per node) and broadcast with MPI_Bcast.",
         place.read_by_all,
         "if (rank == 0) read(fd, buf, n);\nMPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);",
         {"POSIX": _p("BYTES_READ", "MAX_BYTE_READ", "F_READ_TIME", "BYTES_WRITTEN")},
         scaling="processes", explains=("redundant-reads",)),
    Rule("home-nfs", "I/O on a home or NFS file system", "warning", (USER,),
         "at least {home.min_bytes} or {home.min_opens} opens on an NFS-type mount or a "
         "home directory",
         "Home and NFS file systems are not built for parallel load; a job there is slow and "
         "slows every user of the system.",
         "Write to the scratch (parallel) file system; copy results home at the end.",
         place.home_nfs, "export OUTPUT_DIR=$SCRATCH/$SLURM_JOB_ID",
         {"POSIX": POSIX_IO + _p("OPENS"), "STDIO": STDIO_IO},
         scaling="processes"),
    Rule("node-local-shared", "Shared file on node-local storage", "warning", (USER, DEV),
         "in a job on 2 or more nodes (platform key nnodes), a file on a node-local mount "
         "(mntfs: tmpfs, local disk) is written by several processes or by all of them",
         "Node-local storage is private to each node: processes on different nodes that "
         "write \"the same\" file there write different files, none of them sees the others' "
         "data, and node-local storage is usually wiped when the job ends.",
         "Write files shared between nodes to the shared file system; keep node-local files "
         "per node (host or rank in the name) and copy them out before the job ends.",
         mounts.node_local_shared, "snprintf(path, n, \"%s/out.%d\", getenv(\"SCRATCH\"), rank);",
         {"POSIX": POSIX_IO},
         costed=False, scaling="none"),
    Rule("partial-log", "Partial log", "warning", (USER, SYS),
         "a module's partial flag is set in the log header",
         "Counts from a partial log undercount the job: every other finding may be "
         "understated.",
         "Give the runtime more record memory (or more DXT buffer) and run again.",
         place.partial_log, "export DARSHAN_MODMEM=64",
         costed=False, scaling="none"),
    Rule("tiny-files", "Many tiny files", "warning", (USER, DEV),
         "at least {tiny_files.count} files, and at least {tiny_files.fraction} of the "
         "files opened, have an extent under {tiny_files.size}",
         "Thousands of small files make I/O a metadata workload: each costs an open, a "
         "close and an inode, which one metadata server serialises.",
         "Pack small outputs into one file per process group (HDF5, ADIOS2, tar), or keep "
         "them in node-local storage.", place.tiny_files, "",
         {"POSIX": POSIX_IO + _p("OPENS", "MAX_BYTE_READ", "MAX_BYTE_WRITTEN")},
         scaling="processes", explains=("metadata-time", "open-close")),
    Rule("dxt-stragglers", "Straggling processes", "warning", (USER, DEV),
         "(DXT) a process's traced I/O time exceeds {dxt.straggler_ratio} the median and "
         "by at least {dxt.straggler_min_seconds}",
         "The slowest process sets the pace of collective I/O and of the next barrier.",
         "Check node health and striping of the files the slow ranks use; balance the data.",
         dxt.stragglers, "", dxt=True),
    Rule("dxt-phases", "Distinct I/O phases", "info", (DEV,),
         "(DXT) the trace (I/O in flight for at least {dxt.phase_min_seconds}) has "
         "{dxt.phase_min} or more bursts separated by idle gaps over "
         "{dxt.phase_gap_fraction} of the run",
         "Bursty I/O between compute phases is what asynchronous I/O and burst buffers hide.",
         "Consider asynchronous I/O (HDF5 async VOL, ADIOS2, nonblocking MPI-IO) to overlap "
         "the bursts with computation.", dxt.phases, "", dxt=True),
    Rule("dxt-rw-overlap", "Reads overlap writes", "info", (DEV,),
         "(DXT) one file is read and written during overlapping periods (at least "
         "{dxt.overlap_min_seconds})",
         "Concurrent reads and writes of one file contend for the same locks and may read "
         "stale data without synchronisation.",
         "Separate read and write phases, or make them touch disjoint stripes.",
         dxt.rw_overlap, "", dxt=True),
    Rule("daos-small-io", "Small DFS and DAOS transfers", "warning", (USER, DEV),
         "more than {small_io.fraction} of the DFS reads (or writes), or of the DAOS "
         "fetches/array reads (updates/array writes), are below {sizes.small_request} "
         "(the modules' size histograms), and at least {small_io.min_count} of them",
         "Each DFS or DAOS call is at least one RPC to the storage engines; at small sizes "
         "the round trip, not the bandwidth, sets the speed, and a DFS file's chunks "
         "(DFS_CHUNK_SIZE) are filled a piece at a time.",
         "Make transfers larger: buffer and write MiB-sized blocks (one sg list of several "
         "iovs, dfs_writex/daos_array_write with many ranges), or aggregate through MPI-IO "
         "collective buffering; keep transfers a multiple of the DFS chunk size.",
         daos.daos_small_io,
         "d_iov_set(&iov, buf, 8 << 20);   /* one 8 MiB dfs_write, not 8,192 of 1 KiB */",
         {m: tuple(size_bins(m, "READ") + size_bins(m, "WRITE"))
          + tuple(f"{m}_{n}" for n in ("BYTES_READ", "BYTES_WRITTEN", "F_READ_TIME",
                                       "F_WRITE_TIME"))
          + (("DFS_CHUNK_SIZE",) if m == "DFS" else ()) for m in ("DFS", "DAOS")},
         region_pattern="small"),
    Rule("daos-reopen", "DFS and DAOS objects opened over and over", "warning", (DEV,),
         "one process opens the same DFS file (dfs_open, dfs_lookup, dfs_dup) or DAOS object "
         "(object, array, key-value open) more than {daos_open.opens_per_object} times, "
         "moving less than {daos_open.bytes_per_open} per open",
         "A DFS open or lookup walks the namespace with RPCs to the directory objects; a "
         "DAOS open builds the object's layout; the close drops it, and the next open "
         "pays again.",
         "Open each file or object once and keep the handle (cache handles by name or "
         "object id) for as long as the run uses it.",
         daos.daos_reopen,
         "static dfs_obj_t *obj;   /* opened once, released at the end */",
         {m: daos.OPEN_COUNTERS[m] + tuple(f"{m}_{n}" for n in ("BYTES_READ", "BYTES_WRITTEN",
                                                               "F_META_TIME"))
          for m in ("DFS", "DAOS")}),
)


def by_id() -> dict:
    return {r.id: r for r in RULES}
