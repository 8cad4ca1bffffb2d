"""HDF5 and PnetCDF: chunking against the access pattern, collective data and
metadata operations, alignment of the library's file layout."""
from __future__ import annotations

import numpy as np

from .checks_access import misaligned_counts
from .context import col
from .measure import file_lines, pct, per_process, size, top, total, view_seconds
from .model import Hit

DIMS = range(1, 6)


def _h5d(ctx):
    frame = ctx.frame("H5D")
    return frame if frame is not None and len(frame) else None


def hdf5_chunking(ctx):
    frame = _h5d(ctx)
    if frame is None:
        return None
    th = ctx.th["hdf5"]
    ndims = col(frame, "H5D_DATASPACE_NDIMS").astype(int)
    chunk = [col(frame, f"H5D_CHUNK_SIZE_D{d}") for d in DIMS]
    length = [col(frame, f"H5D_ACCESS1_LENGTH_D{d}") for d in DIMS]
    dtype = np.maximum(col(frame, "H5D_DATATYPE_SIZE"), 1)
    accesses = total(frame, ["H5D_READS", "H5D_WRITES"])
    chunked = chunk[0] > 0
    chunk_bytes = np.ones(len(frame))
    partial = np.zeros(len(frame), bool)
    for d in range(5):
        in_dim = ndims > d
        chunk_bytes *= np.where(in_dim & chunked, np.maximum(chunk[d], 1), 1)
        partial |= in_dim & chunked & (length[d] > 0) & (chunk[d] > 0) & \
            (np.mod(length[d], np.maximum(chunk[d], 1)) != 0)
    chunk_bytes *= dtype
    busy = ctx.gate_each("accesses of a chunked dataset", np.where(chunked, accesses, 0), ">=",
                         "hdf5.min_count")
    tiny = chunked & busy & ctx.gate_each("bytes per chunk", np.where(chunked & busy, chunk_bytes,
                                                                      np.inf), "<",
                                          "hdf5.small_chunk")
    partial &= busy
    if not (tiny.any() or partial.any()):
        return None
    lines = []
    if tiny.any():
        lines.append(f"{int(tiny.sum())} chunked datasets use chunks below "
                     f"{size(th['small_chunk'])} (smallest {size(chunk_bytes[tiny].min())}), "
                     "so every access touches many chunks and index entries")
        lines += file_lines(top(frame, accesses, ctx, 3, tiny), lambda v: f"{int(v):,} accesses")
    if partial.any():
        lines.append(f"{int(partial.sum())} chunked datasets are accessed with a selection that "
                     "is not a whole number of chunks in some dimension (chunks are read, "
                     "modified and written back)")
        lines += file_lines(top(frame, accesses, ctx, 3, partial), lambda v: f"{int(v):,} accesses")
    t = col(frame, "H5D_F_READ_TIME") + col(frame, "H5D_F_WRITE_TIME")
    return Hit("HDF5 chunking does not fit the access pattern", lines,
               per_process(float(t[tiny | partial].sum()), ctx.nprocs),
               "H5D read+write seconds of the affected datasets per process: an upper bound",
               {"tiny_chunk_datasets": tiny.sum(), "partial_chunk_datasets": partial.sum()})


def hdf5_collective(ctx):
    frame = _h5d(ctx)
    if frame is None or ctx.nprocs < 2:
        return None
    h5f = ctx.frame("H5F")
    uses_mpiio = h5f is not None and len(h5f) and col(h5f, "H5F_USE_MPIIO").sum() > 0
    shared = frame["rank"].to_numpy() < 0
    coll = col(frame, "H5D_USE_MPIIO_COLLECTIVE")
    accesses = total(frame, ["H5D_READS", "H5D_WRITES"])
    indep = (coll == 0) & (accesses > 0) & (shared | bool(uses_mpiio))
    if not uses_mpiio or not indep.any():
        return None
    t = col(frame, "H5D_F_READ_TIME") + col(frame, "H5D_F_WRITE_TIME")
    meta = col(h5f, "H5F_F_META_TIME").sum() + col(frame, "H5D_F_META_TIME").sum()
    lines = [f"{int(indep.sum())} of {len(frame)} dataset records use the MPI-IO driver "
             f"but independent transfers ({int(accesses[indep].sum()):,} accesses)",
             f"HDF5 metadata time: {per_process(float(meta), ctx.nprocs):.2f} s per process"]
    lines += file_lines(top(frame, accesses, ctx, 3, indep), lambda v: f"{int(v):,} accesses")
    return Hit("HDF5 over MPI-IO without collective transfers", lines,
               per_process(float(t[indep].sum()), ctx.nprocs),
               "H5D read+write seconds of the independent datasets per process: an upper bound",
               {"independent_datasets": indep.sum()})


def hdf5_alignment(ctx):
    """HDF5 files whose POSIX accesses are misaligned: H5Pset_alignment fixes that."""
    h5f, posix = ctx.frame("H5F"), ctx.frame("POSIX")
    if h5f is None or not len(h5f) or posix is None or not len(posix):
        ctx.skip("needs H5F and POSIX records")
        return None
    h5_ids = set(h5f["id"].to_numpy().tolist())
    is_h5 = np.array([i in h5_ids for i in posix["id"].to_numpy().tolist()], bool)
    found = misaligned_counts(ctx, "POSIX_FILE_NOT_ALIGNED", is_h5)
    if found is None:
        return None
    _, count, bad = found
    unit = int(col(posix, "POSIX_FILE_ALIGNMENT")[is_h5].max() or 4096)
    lus = ctx.lustre
    if lus is not None and len(lus) and lus["stripe_size"].max() > 0:
        unit = int(lus["stripe_size"].max())
    return Hit("HDF5 file layout is misaligned",
               [f"{int(bad.sum()):,} of {int(count.sum()):,} POSIX accesses to HDF5 files "
                f"({pct(bad.sum(), count.sum())}) are not aligned to {size(unit)}"]
               + file_lines(top(posix, bad, ctx, 3, bad > 0), lambda v: f"{int(v):,} misaligned"),
               0.0, "not estimated separately (see the misaligned-file finding)",
               {"misaligned": bad.sum()},
               snippet=f"H5Pset_alignment(fapl, {unit // 2}, {unit});  /* objects >= half a "
                       f"unit start on a {size(unit)} boundary */")


def pnetcdf_collective(ctx):
    frame = ctx.frame("PNETCDF_VAR")
    if frame is None or not len(frame) or ctx.nprocs < 2:
        return None
    indep = total(frame, ["PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_INDEP_WRITES"])
    coll = total(frame, ["PNETCDF_VAR_COLL_READS", "PNETCDF_VAR_COLL_WRITES"])
    nb = total(frame, ["PNETCDF_VAR_NB_READS", "PNETCDF_VAR_NB_WRITES"])
    many = ctx.gate("independent PnetCDF variable accesses", indep.sum(), ">=",
                    "collective.min_count")
    both = indep.sum() + coll.sum()
    most = ctx.gate("independent / all accesses", indep.sum() / both if both else 0.0, ">",
                    "collective.independent_fraction")
    if not (many and most):
        return None
    return Hit("PnetCDF independent mode",
               [f"{int(indep.sum()):,} independent and {int(coll.sum()):,} collective PnetCDF "
                f"variable accesses; {int(nb.sum()):,} nonblocking (iput/iget)"]
               + file_lines(top(frame, indep, ctx, 3, indep > 0), lambda v: f"{int(v):,}"),
               view_seconds(ctx, ("PNETCDF_VAR",)).mean(),
               "PnetCDF variable I/O seconds per process (the view's per-process time, "
               "averaged): an upper bound",
               {"independent": indep.sum(), "collective": coll.sum()})
