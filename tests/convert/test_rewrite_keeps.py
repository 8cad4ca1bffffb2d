"""Everything the format carries survives every rewrite: `iolens merge`, `convert`,
`convert --anonymize` and the job log of `iolens run` (merge's engine) keep the DXT
thread ids and trace versions, the LUSTRE layouts, the heat maps and the platform
data (docs/convert.md, "What a rewrite keeps").

The logs are our runtime's: under `iolens run`, a shell runs the Lustre probe of
tests/runtime twice on a directory that the Lustre shim makes look like a Lustre
mount, with DXT tracing and thread ids on; the first run writes from 3 threads.
Each rewrite is compared with its inputs decoded (every segment with its thread id,
every layout component, every heat-map bin, the job metadata), not only parsed, and
PyDarshan 3.5.0 reads what it can of these versions (LUSTRE, HEATMAP, the job; it
refuses DXT_POSIX version 2, docs/dxt.md).  Under MPI: DXT_MPIIO versions 2 and 3.
From the corpus: LUSTRE version 1 and version 2 logs merged together."""
import os
import subprocess
from collections import Counter

import pytest

from conv_helpers import run, start_shifts
from mpi_helpers import HERE as MPI_DIR, Mpi, find_mpi_runtime, one_log
from rt_helpers import SHARED
from test_runtime_lustre import EOF, INIT, composite, lustre_shim, md

iolens = pytest.importorskip("iolens")

THREADS = 3
KEPT_PLATFORM = ("nnodes", "ppn", "mntfs", "cpu", "cores", "mem_mib", "gpu")


# ---------------------------------------------------------------- the logs
@pytest.fixture(scope="module")
def job(tool, runtime, tmp_path_factory):
    """{"job": the job log of `iolens run`, "procs": the two probe logs in the order
    their processes started, "dir": the work directory}."""
    shim, probe = lustre_shim(runtime)
    d = tmp_path_factory.mktemp("keeps")
    mnt, layouts, logs, mmap = d / "mnt", d / "layouts", d / "logs", d / "mmap"
    for p in (mnt, layouts, logs, mmap):
        p.mkdir()
    # every file: a PFL layout whose second component is in an OST pool; plain.dat: v1
    (layouts / "default.lov").write_bytes(composite([
        (1, INIT, 0, 1 << 20, md(1, 1 << 20, 1, [2])),
        (2, INIT, 1 << 20, EOF, md(1, 1 << 20, 4, [20, 21, 22, 23], pool="flash"))]))
    (layouts / "plain.dat.lov").write_bytes(md(1, 4 << 20, 2, [7, 3]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_"))}
    env.update({"IOLENS_RUNTIME": str(runtime), "LD_PRELOAD": str(shim),
                "DARSHAN_MMAP_LOGPATH": str(mmap), "DXT_ENABLE_IO_TRACE": "1",
                "DXT_THREAD_IDS": "1", "IOLENS_TEST_LUSTRE_DIR": str(mnt.resolve()),
                "IOLENS_TEST_LUSTRE_LAYOUTS": str(layouts),
                # one job id for both processes, as a scheduler's job gives them
                "DARSHAN_JOBID": "KEEPS_TEST_JOB", "KEEPS_TEST_JOB": "4242"})
    script = (f"{probe} --threads {THREADS} {mnt} && "
              f"{probe} {mnt}/shared.dat {mnt}/plain.dat {mnt}/second.stdio")
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--keep-process-logs", "--",
                        "sh", "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    job_log = next(logs.glob("*_job.darshan"))
    procs = [p for p in logs.glob("*lustre_probe*.darshan")]
    assert len(procs) == 2, r.stderr
    procs.sort(key=lambda p: (iolens.open(p).job["start_time_sec"],
                              iolens.open(p).job["start_time_nsec"]))
    key = d / "key"
    run(tool, "keygen", key)
    return {"job": job_log, "procs": procs, "dir": d, "key": key}


# ---------------------------------------------------------------- decoded content
def dxt_rows(lg, anonymous=False):
    """Every DXT_POSIX segment: (rank, file, op, offset, length, start, end, thread id)."""
    d = lg.dxt("POSIX")
    names = [None] * len(d) if anonymous else d["name"].astype(object).tolist()
    threads = d["thread_id"].tolist() if "thread_id" in d else [None] * len(d)  # (none: lost)
    return Counter(zip(d["rank"].tolist(), names, d["op"].astype(str).tolist(),
                       d["offset"].tolist(), d["length"].tolist(), d["start"].tolist(),
                       d["end"].tolist(), threads))


def lustre_rows(lg, anonymous=False):
    """Every layout component: (rank, file, component, 7 counters, pool, OST ids)."""
    df = lg.lustre()
    counters = [c for c in df.columns if c.startswith("LUSTRE_COMP_")]
    rows = Counter()
    for r in df.to_dict("records"):
        pool = bool(r["pool_name"]) if anonymous else r["pool_name"]
        rows[(r["rank"], None if anonymous else r["name"], r["component"],
              *(r[c] for c in counters), pool, tuple(r["ost_ids"]))] += 1
    return rows


def heatmap_bins(lg):
    """{(api, rank): (bin width, read bins, write bins)}."""
    out = {}
    for (api, rank), g in lg.heatmap().groupby(["api", "rank"]):
        g = g.sort_values("bin")
        out[(api, rank)] = (g["width"].iloc[0], tuple(g["read_bytes"]), tuple(g["write_bytes"]))
    return out


def content(path, anonymous=False):
    with iolens.open(path) as lg:
        return {"versions": {m: v["version"] for m, v in lg.modules.items()},
                "partial": lg.partial_flag, "nprocs": lg.job["nprocs"],
                "metadata": None if anonymous else lg.job["metadata"],
                "dxt": dxt_rows(lg, anonymous), "lustre": lustre_rows(lg, anonymous),
                "heatmap": heatmap_bins(lg)}


def renumbered(rows, rank):
    return Counter({(rank, *k[1:]): n for k, n in rows.items()})


def moved_segments(rows, rank, shift):
    """DXT rows renumbered and their start and end moved by `shift` seconds (merge
    counts them from the merged job's start)."""
    return Counter({(rank, *k[1:5], k[5] + shift, k[6] + shift, k[7]): n
                    for k, n in rows.items()})


def expected_merge(procs, merged):
    """The merge of the probe logs (both single processes) into `merged`: input
    i's records get rank i, its DXT segments are moved to the merged job's start;
    a file both hold (shared.dat) keeps one layout record, the first's, as a shared
    record (rank -1), as the POSIX records are reduced."""
    ins = [content(p) for p in procs]
    shifts = start_shifts(procs, merged)
    dxt, lustre = Counter(), Counter()
    for i, c in enumerate(ins):
        dxt += moved_segments(c["dxt"], i, shifts[i])
        lustre += renumbered(c["lustre"], i)
    files = [{k[1] for k in c["lustre"]} for c in ins]
    both = files[0] & files[1]
    lustre = Counter({k: n for k, n in lustre.items()
                      if k[1] not in both})
    lustre += Counter({(-1, *k[1:]): n for k, n in ins[0]["lustre"].items() if k[1] in both})
    meta = dict(ins[0]["metadata"], merged="2")
    return ins, dxt, lustre, meta


def heatmap_totals(bins):
    return {k: (sum(r), sum(w)) for k, (_w, r, w) in bins.items()}


# ---------------------------------------------------------------- PyDarshan
def pydarshan_agrees(path):
    """PyDarshan 3.5.0 reads the layouts, heat maps and job metadata as we do."""
    darshan = pytest.importorskip("darshan", reason="PyDarshan (darshan==3.5.0) not installed")
    with iolens.open(path) as lg:
        ours_lustre = lg.lustre()
        ours_hm = lg.heatmap()
        meta = lg.job["metadata"]
    with darshan.DarshanReport(str(path), read_all=True, dtype="dict") as rep:
        assert rep.metadata["job"]["metadata"] == meta
        theirs = Counter()
        for rec in rep.records["LUSTRE"]:
            for c, comp in enumerate(rec["components"]):
                theirs[(rec["rank"], rec["id"], c, *comp["counters"].values(), comp["pool_name"],
                        tuple(comp["ost_ids"]))] += 1
        counters = [c for c in ours_lustre.columns if c.startswith("LUSTRE_COMP_")]
        ours = Counter((r["rank"], r["id"], r["component"], *(r[c] for c in counters),
                        r["pool_name"], tuple(r["ost_ids"]))
                       for r in ours_lustre.to_dict("records"))
        assert theirs == ours
        for api, hm in rep.heatmaps.items():
            for op in ("read", "write"):
                for rank, bins in hm._data[op].items():
                    mine = ours_hm[(ours_hm["api"] == api) & (ours_hm["rank"] == rank)]
                    assert list(bins) == mine.sort_values("bin")[f"{op}_bytes"].tolist()
        assert set(rep.heatmaps) == set(ours_hm["api"])


# ---------------------------------------------------------------- tests
def test_the_logs_hold_what_is_checked(job):
    """The inputs have thread ids from several threads, layouts of v1 and PFL
    files, heat maps and platform data, so that the checks below mean something."""
    a = content(job["procs"][0])
    assert a["versions"]["DXT_POSIX"] == 2 and a["versions"]["LUSTRE"] == 2
    assert len({k[-1] for k in a["dxt"]}) == THREADS and 0 not in {k[-1] for k in a["dxt"]}
    assert {k[2] for k in a["lustre"]} == {0, 1}
    assert any(k[-2] == "flash" for k in a["lustre"])
    assert {k[0] for k in a["heatmap"]} == {"POSIX", "STDIO"}
    with iolens.open(job["procs"][0]) as lg:
        assert {"nnodes", "cpu", "hosts"} <= set(lg.platform)


@pytest.mark.parametrize("how", ["merge", "run"])
def test_merge_and_job_log_keep_everything(tool, job, how):
    """`iolens merge` of the two process logs and `iolens run`'s job log: every
    segment with its thread id (DXT_POSIX stays version 2), every layout (one
    shared record for the file both processes wrote), every heat-map byte and the
    first process's platform data."""
    out = job["dir"] / "merged.darshan"
    if how == "merge" and not out.exists():
        run(tool, "merge", "-o", out, *job["procs"])
    path = out if how == "merge" else job["job"]
    ins, dxt, lustre, meta = expected_merge(job["procs"], path)
    got = content(path)
    assert got["versions"]["DXT_POSIX"] == 2, got["versions"]
    assert got["dxt"] == dxt
    assert got["lustre"] == lustre
    assert got["metadata"] == meta and got["nprocs"] == 2
    with iolens.open(path) as lg, iolens.open(job["procs"][0]) as first:
        assert lg.platform == first.platform
    # heat maps: one grid for all (re-binned from each process's start), bytes kept
    want = {}
    for i, c in enumerate(ins):
        want.update({(api, i): t for (api, _r), t in heatmap_totals(c["heatmap"]).items()})
    assert heatmap_totals(got["heatmap"]) == want
    assert len({(w, len(r)) for w, r, _ in got["heatmap"].values()}) == 1
    pydarshan_agrees(path)


def test_job_log_equals_merge(tool, job):
    """`iolens run` and `iolens merge` are one engine: the same log content."""
    out = job["dir"] / "merged-again.darshan"
    run(tool, "merge", "-o", out, *job["procs"])
    assert content(out) == content(job["job"])


@pytest.mark.parametrize("opts", [[], ["--condense"], ["--bzip2"]])
@pytest.mark.parametrize("which", ["job", "proc"])
def test_convert_keeps_everything(tool, job, opts, which):
    src = job["job"] if which == "job" else job["procs"][0]
    out = job["dir"] / f"conv-{which}{''.join(opts)}.darshan"
    run(tool, "convert", *opts, src, out)
    assert content(out) == content(src)
    with iolens.open(out) as a, iolens.open(src) as b:
        assert a.names == b.names and a.job == b.job and a.mounts == b.mounts
    if "--bzip2" not in opts:       # (the PyDarshan wheel has no bzip2, docs/convert.md)
        pydarshan_agrees(out)


@pytest.mark.parametrize("which", ["job", "proc"])
def test_anonymize_keeps_everything_but_names(tool, job, which):
    """--anonymize changes names, ids, hosts and pool names only: every segment
    (thread ids too), layout component, heat-map bin and kept platform fact stays."""
    src = job["job"] if which == "job" else job["procs"][0]
    out = job["dir"] / f"anon-{which}.darshan"
    run(tool, "convert", "--anonymize", job["key"], src, out)
    assert content(out, anonymous=True) == content(src, anonymous=True)
    with iolens.open(out) as a, iolens.open(src) as b:
        posix = set(a.records("POSIX")["id"]) | set(a.records("STDIO")["id"])
        assert set(a.dxt("POSIX")["id"]) <= posix       # a trace still names its file
        assert set(a.lustre()["id"]) <= posix
        assert {k: a.platform.get(k) for k in KEPT_PLATFORM} == \
            {k: b.platform.get(k) for k in KEPT_PLATFORM}
        assert a.job["metadata"]["lib_ver"] == b.job["metadata"]["lib_ver"]
        assert set(a.platform["hosts"].split(",")) == set(a.dxt_records("POSIX")["hostname"])
    pydarshan_agrees(out)


# ---------------------------------------------------------------- MPI: DXT_MPIIO
@pytest.mark.parametrize("thread_ids", [True, False], ids=["v3", "v2"])
def test_mpiio_trace_versions_kept(tool, tmp_path, thread_ids):
    """DXT_MPIIO version 3 (thread ids) and 2, DXT_POSIX 2 and 1, from the MPI
    runtime: merge, convert and --anonymize keep the version and every segment."""
    rt = find_mpi_runtime("openmpi")
    if rt is None:
        pytest.skip("libiolens-mpi.so (Open MPI) not built")
    mpi = Mpi("openmpi", rt)
    exe = mpi.compile(MPI_DIR / "progs" / "dxt_threads.c", tmp_path / "dxt_threads")
    (tmp_path / "work").mkdir()
    env = {"DXT_ENABLE_IO_TRACE": "1", "IOLENS_DXT_MPIIO_OFFSETS": "1"}
    if thread_ids:
        env["DXT_THREAD_IDS"] = "1"
    r = mpi.run([exe, tmp_path / "work"], tmp_path / "logs", 2, env=env, check=False)
    if r.returncode == 77 or "no MPI_THREAD_MULTIPLE" in r.stderr:
        pytest.skip("Open MPI does not provide MPI_THREAD_MULTIPLE here")
    assert r.returncode == 0, r.stderr
    log = one_log(tmp_path / "logs")
    want = {"DXT_POSIX": 2, "DXT_MPIIO": 3} if thread_ids else {"DXT_POSIX": 1, "DXT_MPIIO": 2}

    def segments(path, anonymous=False):
        with iolens.open(path) as lg:
            out = {}
            for m in ("POSIX", "MPIIO"):
                d = lg.dxt(m)
                assert d.attrs["stored_version"] == want["DXT_" + m]
                cols = ["rank", "op", "offset", "length", "start", "end"]
                cols += ["thread_id"] if thread_ids else []
                if not anonymous:
                    cols.append("name")
                out[m] = Counter(map(tuple, d[cols].astype(object).values.tolist()))
            return out

    key = tmp_path / "key"
    run(tool, "keygen", key)
    outs = {"merge": tmp_path / "m.darshan", "convert": tmp_path / "c.darshan",
            "anon": tmp_path / "a.darshan"}
    run(tool, "merge", "-o", outs["merge"], log)
    run(tool, "convert", log, outs["convert"])
    run(tool, "convert", "--anonymize", key, log, outs["anon"])
    for how, out in outs.items():
        with iolens.open(out) as lg:
            assert {m: lg.modules[m]["version"] for m in want} == want, how
        assert segments(out, how == "anon") == segments(log, how == "anon"), how


# ---------------------------------------------------------------- corpus: LUSTRE v1 + v2
def test_lustre_versions_merged_together(tool, tmp_path):
    """A LUSTRE version 1 log and a version 2 log merged (--workflow): both logs'
    layouts, v1 upgraded to one component (log-format 8.4), their ranks moved."""
    corpus = SHARED / "corpus" / "logs"
    v1 = corpus / "apmpi" / "darshan-apmpi-2nodes-64mpi.darshan"
    v2 = next(iter(sorted((corpus / "dlio_logs").glob("*.darshan"))), None) \
        if (corpus / "dlio_logs").is_dir() else None
    if not v1.exists() or v2 is None:
        pytest.skip(f"upstream log corpus not found at {corpus} (../shared)")
    with iolens.open(v1) as a, iolens.open(v2) as b:
        assert a.modules["LUSTRE"]["version"] == 1 and b.modules["LUSTRE"]["version"] == 2
        want = renumbered_lustre(a, 0) + renumbered_lustre(b, a.job["nprocs"])
    out = tmp_path / "wf.darshan"
    run(tool, "merge", "--workflow", "-o", out, v1, v2)
    with iolens.open(out) as m:
        assert m.modules["LUSTRE"]["version"] == 2
        assert lustre_rows(m) == want
    pydarshan_agrees(out)


def renumbered_lustre(lg, offset):
    """Layout rows with ranks moved by `offset`, a shared record (rank -1) to the
    job's first rank, as --workflow places every record (docs/convert.md)."""
    return Counter({(offset if k[0] < 0 else k[0] + offset, *k[1:]): n
                    for k, n in lustre_rows(lg).items()})


# ---------------------------------------------------------------- damaged inputs
@pytest.mark.parametrize("module", ["DXT_POSIX", "LUSTRE", "HEATMAP", "POSIX", "STDIO"])
def test_merge_names_why_a_region_cannot_be_read(tool, job, module, tmp_path):
    """An input whose module region is damaged (bytes of its compressed stream
    flipped) fails the merge -- no module is left out silently -- with one line
    that names that input and the reason, never an empty one."""
    src = job["procs"][1]
    with iolens.open(src) as lg:
        reg = lg.modules[module]
    data = bytearray(src.read_bytes())
    mid = reg["offset"] + reg["length"] // 2
    for i in range(mid - 4, mid + 4):
        data[i] ^= 0xFF
    bad = tmp_path / "damaged.darshan"
    bad.write_bytes(bytes(data))
    out = tmp_path / "out.darshan"
    r = run(tool, "merge", "-o", out, job["procs"][0], bad, check=False)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    prefix = f"iolens merge: {bad}: "
    assert lines[0].startswith(prefix) and module in lines[0], lines[0]
    assert lines[0][len(prefix):].strip(), lines[0]
    assert not out.exists()


# ---------------------------------------------------------------- corpus: record references
def test_merge_keeps_record_references(tool, corpus_logs, tmp_path):
    """H5D and PNETCDF_VAR records name their file's record (file_rec_id): a merge
    keeps the reference, and every other column, of every counter module; the
    platform module BG/Q too."""
    picked = []
    for log in corpus_logs:
        try:
            with iolens.open(log) as lg:
                if {"H5D", "PNETCDF_VAR", "BG/Q"} & set(lg.modules):
                    picked.append(log)
        except iolens.LogError:
            continue
    if not picked:
        pytest.skip("no corpus log with H5D, PNETCDF_VAR or BG/Q records")
    for i, log in enumerate(picked):
        out = tmp_path / f"m{i}.darshan"
        run(tool, "merge", "-o", out, log)
        with iolens.open(log) as a, iolens.open(out) as b:
            for mod, info in a.modules.items():
                if iolens.module_info(mod).kind != "counters":
                    continue
                want, got = a.records(mod), b.records(mod)
                if mod == "STDIO":      # upstream's rule: idle standard streams left out
                    idle = want["name"].isin(["<STDIN>", "<STDOUT>", "<STDERR>"]) & \
                        (want["STDIO_READS"] == 0) & (want["STDIO_WRITES"] == 0)
                    want = want[~idle]
                key = ["rank", "id"]
                want = want.sort_values(key).reset_index(drop=True)
                got = got.sort_values(key).reset_index(drop=True)
                assert got.equals(want), (log.name, mod)
                if "file_rec_id" in want:
                    assert (got["file_rec_id"] != 0).any(), (log.name, mod)


def test_selected_records_keep_their_thread_ids(tool, job):
    """convert --include-glob: the segments of the records kept, thread ids with
    them (the selection moves each segment's thread id with the segment)."""
    src = job["procs"][0]
    out = job["dir"] / "selected.darshan"
    run(tool, "convert", "--include-glob", "*thread-1.dat", src, out)
    with iolens.open(src) as a:
        want = Counter({k: n for k, n in dxt_rows(a).items() if k[1].endswith("thread-1.dat")})
    with iolens.open(out) as b:
        assert b.modules["DXT_POSIX"]["version"] == 2
        assert dxt_rows(b) == want and want


def test_merge_of_traces_with_and_without_thread_ids(tool, runtime, job, tmp_path):
    """A process traced without thread ids (DXT_POSIX 1) merged with one traced
    with them (2): the merged trace has thread ids (version 2), 0 ("unknown") for
    the segments of the first, every segment of both kept."""
    from rt_helpers import logs_in, run_under
    _shim, probe = lustre_shim(runtime)
    run_under(runtime, [probe, tmp_path / "plain-trace.dat"], tmp_path / "logs",
              {"DXT_ENABLE_IO_TRACE": "1", "DARSHAN_JOBID": "KEEPS_TEST_JOB",
               "KEEPS_TEST_JOB": "4242"})
    (plain,) = logs_in(tmp_path / "logs")
    with iolens.open(plain) as lg:
        assert lg.modules["DXT_POSIX"]["version"] == 1
        without = dxt_rows(lg)
    out = tmp_path / "mixed.darshan"
    run(tool, "merge", "-o", out, job["procs"][0], plain)
    shifts = start_shifts([job["procs"][0], plain])
    with iolens.open(job["procs"][0]) as a, iolens.open(out) as m:
        want = moved_segments(dxt_rows(a), 0, shifts[0])
        want += moved_segments(Counter({(*k[:-1], 0): n for k, n in without.items()}), 1,
                               shifts[1])
        assert m.modules["DXT_POSIX"]["version"] == 2
        assert dxt_rows(m) == want
