"""Where the data lives: Lustre striping and OSTs, home/NFS mounts, tiny files,
files every process reads, and logs that lost data."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .context import col
from .measure import io_time, per_process, size, total
from .model import Hit

PARALLEL_TYPES = ("lustre", "gpfs", "beegfs", "dvs", "orangefs", "pvfs2", "daos")
NFS_TYPES = ("nfs", "nfs4", "autofs", "cifs", "smbfs", "sshfs", "fuse.sshfs")


def _posix_with_lustre(ctx):
    frame, lus = ctx.frame("POSIX"), ctx.lustre
    if frame is None or not len(frame) or lus is None or not len(lus):
        return None
    merged = pd.DataFrame({"id": frame["id"].to_numpy(), "rank": frame["rank"].to_numpy(),
                           "bytes": total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"]),
                           "extent": np.maximum(col(frame, "POSIX_MAX_BYTE_READ"),
                                                col(frame, "POSIX_MAX_BYTE_WRITTEN")) + 1,
                           "access": col(frame, "POSIX_ACCESS1_ACCESS"),
                           "time": io_time(frame, "POSIX")})
    merged = merged[merged["id"].isin(lus["id"].to_numpy())]
    per_file = merged.groupby("id").agg(bytes=("bytes", "sum"), extent=("extent", "max"),
                                        access=("access", "max"), time=("time", "sum"),
                                        ranks=("rank", "nunique"), shared=("rank", "min"))
    per_file = per_file.join(lus.drop_duplicates("id").set_index("id"), how="inner")
    return per_file if len(per_file) else None


def lustre_striping(ctx):
    files = _posix_with_lustre(ctx)
    if files is None:
        ctx.skip("no Lustre layouts for the files with POSIX records")
        return None
    th = ctx.th["lustre"]
    shared = (files["shared"] < 0) | (files["ranks"] > 1)
    one_ost = (files["stripe_count"] == 1) & (
        (files["extent"] >= th["large_file"]) | (shared & (files["bytes"] >= th["shared_min_bytes"])))
    stripe = files["stripe_size"].clip(lower=1)
    acc = files["access"]
    odd = (acc > 0) & (files["bytes"] >= th["shared_min_bytes"]) & (
        (acc < th["access_multiple"] * stripe) | ((acc >= stripe) & (acc % stripe != 0)))
    if not (one_ost.any() or odd.any()):
        return None
    lines, names = [], []
    for rid, row in files[one_ost].sort_values("bytes", ascending=False).head(3).iterrows():
        name = ctx.name(rid)
        names.append(name)
        lines.append(f"  {name}: {size(row['extent'])}, {size(row['bytes'])} moved by "
                     f"{'all processes' if row['shared'] < 0 else str(int(row['ranks'])) + ' processes'}"
                     f", striped over 1 OST ({size(row['stripe_size'])} stripes)")
    if one_ost.any():
        lines.insert(0, f"{int(one_ost.sum())} large or shared files sit on a single OST: one "
                     "server carries all their traffic")
    if odd.any():
        lines.append(f"{int(odd.sum())} files are accessed in sizes that do not match their "
                     "stripe size:")
        for rid, row in files[odd].sort_values("bytes", ascending=False).head(3).iterrows():
            lines.append(f"  {ctx.name(rid)}: common access {size(row['access'])}, stripe "
                         f"{size(row['stripe_size'])}")
            names.append(ctx.name(rid))
    want = max(4, min(ctx.nprocs, 64))
    return Hit("Lustre striping does not fit the files", lines,
               per_process(float(files[one_ost | odd]["time"].sum()), ctx.nprocs),
               "POSIX I/O seconds on the affected files per process: an upper bound",
               {"one_ost_files": int(one_ost.sum()), "mismatched_files": int(odd.sum())},
               sorted(set(names)), severity="critical" if one_ost.any() else None,
               snippet=f"lfs setstripe -c {want} -S 4M <output directory>   # before creating "
                       "the files\nMPI_Info_set(info, \"striping_factor\", \"" + str(want) + "\");")


def ost_usage(ctx):
    lus = ctx.lustre
    if lus is None or not len(lus):
        ctx.skip("no Lustre layouts in the log")
        return None
    # every component's OSTs (a PFL file reaches more than its first component's)
    layouts = ctx.view.lustre()
    every = layouts["ost_ids"] if layouts is not None else lus["osts"]
    used = set(ctx.view.ost["ost"].astype(int).tolist())
    for osts in every:
        used.update(int(o) for o in np.asarray(osts).ravel())
    known = ctx.meta_int("lustre_osts", "ost_count", "osts")
    source = "job metadata"
    if not known:
        known, source = (max(used) + 1 if used else 0), "highest OST index seen + 1 (a lower bound)"
    frame = ctx.frame("POSIX")
    moved = total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"]).sum() if frame is not None else 0
    if not known:
        ctx.skip("the number of OSTs is unknown")
        return None
    big = ctx.gate("bytes moved", moved, ">=", "lustre.ost_min_bytes")
    few = ctx.gate("OSTs used / OSTs seen", len(used) / known, "<", "lustre.ost_fraction")
    if not (big and few):
        return None
    return Hit("The job used few of the file system's OSTs",
               [f"{len(used)} distinct OSTs of at least {known} ({source}) served "
                f"{size(moved)} from {len(lus)} Lustre files"],
               0.0, "not estimated: depends on the servers' bandwidth",
               {"osts_used": len(used), "osts_known": known, "bytes": moved},
               snippet="lfs setstripe -c -1 <output directory>   # stripe big shared files over all OSTs")


def read_by_all(ctx):
    """Files every process reads whole.  A file the job wrote first counts too:
    reading back what one process wrote, on every process, is the same load."""
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    if not ctx.gate("processes", ctx.nprocs, ">=", "read_by_all.min_procs"):
        return None
    read = col(frame, "POSIX_BYTES_READ")
    extent = col(frame, "POSIX_MAX_BYTE_READ") + 1
    ranks = frame["rank"].to_numpy()
    df = pd.DataFrame({"id": frame["id"].to_numpy(), "rank": ranks, "read": read,
                       "extent": extent, "time": col(frame, "POSIX_F_READ_TIME")})
    df = df[df["read"] > 0]
    # Only a shared record (it stands for every process) or an id read by several
    # per-process records can be read by all; group just those.
    many = df["id"].duplicated(keep=False).to_numpy() | (df["rank"].to_numpy() < 0)
    df = df[many]
    if not len(df):
        ctx.skip("no file is read by more than one process")
        return None
    g = df.groupby("id").agg(read=("read", "sum"), extent=("extent", "max"),
                             time=("time", "sum"), readers=("rank", "nunique"),
                             shared=("rank", "min"))
    readers = np.where(g["shared"] < 0, ctx.nprocs, g["readers"])
    coverage = g["read"] / (ctx.nprocs * g["extent"])
    everyone = readers >= ctx.nprocs
    ctx.measure("files read by every process", int(everyone.sum()))
    whole = everyone & ctx.gate_each("read / (processes x file extent)", coverage, ">=",
                                     "read_by_all.coverage")
    hit = whole & ctx.gate_each("file extent", g["extent"], ">=", "read_by_all.min_bytes")
    if not hit.any():
        return None
    sel = g[hit].sort_values("read", ascending=False)
    lines = [f"{int(hit.sum())} files are read whole by every one of the {ctx.nprocs} processes"]
    for rid, row in sel.head(3).iterrows():
        lines.append(f"  {ctx.name(rid)}: {size(row['extent'])} file, {size(row['read'])} read "
                     f"in total")
    lost = per_process(float(sel["time"].sum()) * (ctx.nprocs - 1) / ctx.nprocs, ctx.nprocs)
    return Hit("Every process reads the same file", lines, lost,
               "read seconds on these files per process, less the one read that remains",
               {"files": int(hit.sum())}, [ctx.name(r) for r in sel.head(5).index])


def _home_mount(ctx, path):
    point, fstype = ctx.mount_of(path)
    if fstype and fstype.lower() in NFS_TYPES:
        return f"{point} ({fstype})"
    for prefix in ctx.th["home"]["home_prefixes"]:
        deeper_parallel_fs = point and len(point) > len(prefix) and fstype in PARALLEL_TYPES
        if path.startswith(prefix) and not deeper_parallel_fs:
            return f"{prefix} (home directory{', ' + fstype if fstype else ''})"
    return None


def _candidates(ctx) -> tuple:
    """Path prefixes that can be home or NFS: NFS-type mount points and home prefixes."""
    points = [p.rstrip("/") + "/" for p, t in (ctx.log.mounts or []) if t.lower() in NFS_TYPES]
    return tuple(points + list(ctx.th["home"]["home_prefixes"]))


def home_nfs(ctx):
    th = ctx.th["home"]
    found = {}
    for module, p in (("POSIX", "POSIX"), ("STDIO", "STDIO")):
        frame = ctx.frame(module)
        if frame is None or not len(frame):
            continue
        # Only names under a candidate prefix are looked at (one pass), then each of
        # their directories is judged once, not each of perhaps a million records.
        names = frame["name"].fillna("").astype(str)
        near = names.str.startswith(_candidates(ctx)).to_numpy()
        if not near.any():
            continue
        dirs = names[near].str.rpartition("/")[0]
        sums = pd.DataFrame({
            "dir": dirs.to_numpy(),
            "bytes": total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"])[near],
            "opens": col(frame, f"{p}_OPENS")[near], "time": io_time(frame, module)[near],
            "files": np.ones(int(near.sum()))}).groupby("dir").sum()
        for d, row in sums.iterrows():
            where = _home_mount(ctx, d + "/") if d else None
            if where:
                acc = found.setdefault(where, np.zeros(4))
                acc += row[["bytes", "opens", "time", "files"]].to_numpy(dtype=float)
    bad = {k: v for k, v in found.items() if v[0] >= th["min_bytes"] or v[1] >= th["min_opens"]}
    ctx.gate("bytes on home/NFS mounts", sum(v[0] for v in found.values()), ">=",
             "home.min_bytes")
    ctx.gate("opens on home/NFS mounts", sum(v[1] for v in found.values()), ">=",
             "home.min_opens")
    if not bad:
        return None
    lines = [f"{where}: {int(n)} files, {size(b)} moved, {int(o):,} opens"
             for where, (b, o, _, n) in bad.items()]
    return Hit("I/O on a home or NFS file system", lines,
               per_process(sum(v[2] for v in bad.values()), ctx.nprocs),
               "I/O seconds on those mounts per process: an upper bound",
               {"bytes": sum(v[0] for v in bad.values())}, sorted(bad))


def tiny_files(ctx):
    th = ctx.th["tiny_files"]
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    extent = np.maximum(col(frame, "POSIX_MAX_BYTE_READ"), col(frame, "POSIX_MAX_BYTE_WRITTEN")) + 1
    touched = col(frame, "POSIX_OPENS") > 0
    tiny = touched & (extent < th["size"])
    n = len(pd.unique(frame["id"].to_numpy()[tiny]))
    opened = len(pd.unique(frame["id"].to_numpy()[touched]))
    many = ctx.gate("files below the size", n, ">=", "tiny_files.count")
    most = ctx.gate("their share of the files opened", n / opened if opened else 0.0, ">=",
                    "tiny_files.fraction")
    if not (many and most):
        return None
    meta = col(frame, "POSIX_F_META_TIME")
    moved = total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"])
    lines = [f"{n:,} files smaller than {size(th['size'])} (median "
             f"{size(np.median(extent[tiny]))}); they moved {size(moved[tiny].sum())} and cost "
             f"{meta[tiny].sum():.2f} s of metadata calls ({int(col(frame, 'POSIX_OPENS')[tiny].sum()):,} opens)"]
    if ctx.partial.get("POSIX"):
        lines.append("the POSIX module ran out of records, so there were more files than this")
    return Hit("Many tiny files: metadata load", lines,
               per_process(float((meta + col(frame, "POSIX_F_READ_TIME") +
                                  col(frame, "POSIX_F_WRITE_TIME"))[tiny].sum()), ctx.nprocs),
               "all POSIX seconds on the tiny files per process: an upper bound",
               {"tiny_files": n})


# What to set when a module ran out of room (runtime-behavior spec, settings table).
PARTIAL_FIX = {
    "DXT_POSIX": "MAX_RECORDS 16384 DXT_POSIX   # DXT budget in KiB (config file)",
    "DXT_MPIIO": "MAX_RECORDS 16384 DXT_MPIIO   # DXT budget in KiB (config file)",
    "HEATMAP": "(the heat map keeps at most 8 records; its bins merge instead)",
}


def partial_log(ctx):
    if not ctx.partial:
        return None
    mods = sorted(ctx.partial)
    snippet = ["export DARSHAN_MODMEM=64        # MiB for all module records (default 4)",
               "export DARSHAN_NAMEMEM=16       # MiB for file names"]
    for m in mods:
        snippet.append(PARTIAL_FIX.get(m, f"MAX_RECORDS 65536 {m.replace('-', '')}   "
                                          "# in $DARSHAN_CONFIG_PATH: records per process"))
    return Hit("Partial log: some data is missing",
               [f"{m}: the module ran out of memory for records or trace segments; files "
                "opened or operations issued after that are not in the log" for m in mods],
               0.0, "no time lost: the counts above undercount the job's I/O",
               {"partial_modules": len(mods)}, severity="warning", snippet="\n".join(snippet))
