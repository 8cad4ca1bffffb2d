"""Every rule, both ways: a log with the pattern makes it fire, a log without it
leaves it silent.  A rule without a scenario here fails test_every_rule_tested."""
from __future__ import annotations

import pytest

from diag_logs import MiB, LustreLog, build, rec, seg
from test_diagnose_ost_conflict import per_process as slow_ost_log, two_writers
from iolens.diagnose import RULES, diagnose, diagnose_log
from iolens._meta import module_info

GiB = 1 << 30
P = "POSIX"


def posix(name="/scratch/out.dat", rank=0, **c):
    return rec(name, rank, **c)


def small(bin_name):
    return dict(POSIX=[posix(POSIX_READS=5000, POSIX_SEQ_READS=5000,
                             **{f"POSIX_SIZE_READ_{bin_name}": 5000}, POSIX_F_READ_TIME=10.0)])


def shared_small(rank):
    return dict(POSIX=[posix(rank=rank, POSIX_WRITES=4000, POSIX_SEQ_WRITES=4000,
                             POSIX_SIZE_WRITE_1K_10K=4000, POSIX_F_WRITE_TIME=8.0)])


def per_rank_bytes(values, **extra):
    return dict(POSIX=[posix(f"/scratch/r{r}", r, POSIX_BYTES_WRITTEN=v,
                             POSIX_MAX_BYTE_WRITTEN=v - 1, POSIX_WRITES=1,
                             POSIX_F_WRITE_TIME=v / (10 * MiB), **extra)
                       for r, v in enumerate(values)])


def mpiio(**c):
    return dict(MPI_IO=[rec("/scratch/out.dat", -1, **c)],
                POSIX=[posix(rank=-1, POSIX_WRITES=10, POSIX_BYTES_WRITTEN=10 * MiB,
                             POSIX_SIZE_WRITE_1M_4M=10)])


def collective_on(nodes, aggregators, metadata=""):
    """A job of `nodes` processes on `nodes` nodes writing one file collectively;
    the first `aggregators` ranks do its POSIX I/O."""
    return dict(nprocs=nodes, metadata=f"nnodes={nodes}\n{metadata}",
                MPI_IO=[rec("/scratch/out.dat", -1, MPIIO_COLL_WRITES=10 * nodes,
                            MPIIO_BYTES_WRITTEN=10 * nodes * MiB)],
                POSIX=[posix(rank=r, POSIX_WRITES=10, POSIX_BYTES_WRITTEN=nodes * 10 * MiB
                             // aggregators) for r in range(aggregators)])


def h5(coll, chunk=(512, 512), length=(512, 512)):
    return dict(nprocs=4, H5F=[rec("/scratch/f.h5", -1, H5F_OPENS=4, H5F_USE_MPIIO=1)],
                H5D=[rec("/scratch/f.h5:/data", -1, file="/scratch/f.h5", H5D_WRITES=400,
                         H5D_DATASPACE_NDIMS=2, H5D_DATATYPE_SIZE=8,
                         H5D_CHUNK_SIZE_D1=chunk[0], H5D_CHUNK_SIZE_D2=chunk[1],
                         H5D_ACCESS1_LENGTH_D1=length[0], H5D_ACCESS1_LENGTH_D2=length[1],
                         H5D_USE_MPIIO_COLLECTIVE=coll, H5D_F_WRITE_TIME=20.0)])


def h5_posix(not_aligned):
    return dict(H5F=[rec("/scratch/f.h5", 0, H5F_OPENS=1)],
                POSIX=[posix("/scratch/f.h5", 0, POSIX_WRITES=5000, POSIX_SEQ_WRITES=5000,
                             POSIX_BYTES_WRITTEN=5000 * MiB, POSIX_FILE_ALIGNMENT=4096,
                             POSIX_FILE_NOT_ALIGNED=not_aligned)])


def dxt(segs, nprocs=4):
    return dict(nprocs=nprocs, POSIX=[posix(rank=-1, POSIX_WRITES=10)], dxt={"POSIX": segs})


def straggle(slow_end):
    return dxt([seg("/scratch/a", r, "write", 0, slow_end if r == 3 else 1.0)
                for r in range(4)])


POSIX_ID = module_info("POSIX").id
LOCAL_MOUNTS = [("/", "ext4"), ("/scratch", "lustre"), ("/local/ssd", "xfs")]

# rule id -> (build kwargs that trigger it, build kwargs that leave it silent)
def dfs_reads(bin_name, each):
    return dict(DFS=[rec("/dfs/in.dat", 0, DFS_READS=5000, DFS_BYTES_READ=5000 * each,
                         **{f"DFS_SIZE_READ_{bin_name}": 5000}, DFS_F_READ_TIME=10.0)])


def dfs_appends(opens):
    """400 appends of 100 bytes to one DFS file, opened for each or once."""
    return dict(DFS=[rec("/dfs/log", 0, DFS_OPENS=opens, DFS_WRITES=400,
                         DFS_BYTES_WRITTEN=400 * 100, DFS_SIZE_WRITE_0_100=400,
                         DFS_F_WRITE_TIME=1.0, DFS_F_META_TIME=0.01 * opens)])


SCENARIOS = {
    "small-io": (small("1K_10K"), small("1M_4M")),
    "small-io-shared": (shared_small(-1), shared_small(0)),
    "misaligned-file": (
        dict(POSIX=[posix(POSIX_WRITES=5000, POSIX_FILE_NOT_ALIGNED=4000, POSIX_FILE_ALIGNMENT=4096,
                          POSIX_BYTES_WRITTEN=5000 * MiB)]),
        dict(POSIX=[posix(POSIX_WRITES=5000, POSIX_FILE_NOT_ALIGNED=10, POSIX_FILE_ALIGNMENT=4096,
                          POSIX_BYTES_WRITTEN=5000 * MiB)])),
    "misaligned-memory": (
        dict(POSIX=[posix(POSIX_WRITES=5000, POSIX_MEM_NOT_ALIGNED=5000, POSIX_MEM_ALIGNMENT=8,
                          POSIX_BYTES_WRITTEN=5000 * MiB)]),
        dict(POSIX=[posix(POSIX_WRITES=5000, POSIX_MEM_NOT_ALIGNED=0, POSIX_MEM_ALIGNMENT=8,
                          POSIX_BYTES_WRITTEN=5000 * MiB)])),
    "redundant-reads": (
        dict(POSIX=[posix(POSIX_READS=100, POSIX_BYTES_READ=100 * MiB,
                          POSIX_MAX_BYTE_READ=10 * MiB - 1, POSIX_F_READ_TIME=5.0)]),
        dict(POSIX=[posix(POSIX_READS=100, POSIX_BYTES_READ=10 * MiB,
                          POSIX_MAX_BYTE_READ=10 * MiB - 1, POSIX_F_READ_TIME=5.0)])),
    "redundant-writes": (
        dict(POSIX=[posix(POSIX_WRITES=100, POSIX_BYTES_WRITTEN=100 * MiB,
                          POSIX_MAX_BYTE_WRITTEN=10 * MiB - 1)]),
        dict(POSIX=[posix(POSIX_WRITES=100, POSIX_BYTES_WRITTEN=100 * MiB,
                          POSIX_MAX_BYTE_WRITTEN=100 * MiB - 1)])),
    "random-access": (
        dict(POSIX=[posix(POSIX_READS=5000, POSIX_SEQ_READS=1000, POSIX_F_READ_TIME=3.0)]),
        dict(POSIX=[posix(POSIX_READS=5000, POSIX_SEQ_READS=4990, POSIX_F_READ_TIME=3.0)])),
    "metadata-time": (
        dict(run_time=1000, POSIX=[posix(POSIX_OPENS=10, POSIX_F_META_TIME=40.0)]),
        dict(run_time=1000, POSIX=[posix(POSIX_OPENS=10, POSIX_F_META_TIME=0.5)])),
    "open-close": (
        dict(POSIX=[posix(POSIX_OPENS=500, POSIX_F_META_TIME=8.0, POSIX_F_WRITE_TIME=1.0)]),
        dict(POSIX=[posix(POSIX_OPENS=1, POSIX_F_META_TIME=0.01, POSIX_F_WRITE_TIME=8.0)])),
    "imbalance-shared": (
        dict(POSIX=[posix(rank=-1, POSIX_BYTES_WRITTEN=200 * MiB, POSIX_SLOWEST_RANK_BYTES=100 * MiB,
                          POSIX_FASTEST_RANK_BYTES=10 * MiB, POSIX_F_SLOWEST_RANK_TIME=10.0,
                          POSIX_F_FASTEST_RANK_TIME=1.0)]),
        dict(POSIX=[posix(rank=-1, POSIX_BYTES_WRITTEN=200 * MiB, POSIX_SLOWEST_RANK_BYTES=50 * MiB,
                          POSIX_FASTEST_RANK_BYTES=50 * MiB, POSIX_F_SLOWEST_RANK_TIME=10.0,
                          POSIX_F_FASTEST_RANK_TIME=9.5)])),
    "imbalance-ranks": (per_rank_bytes([400 * MiB, 40 * MiB, 40 * MiB, 40 * MiB]),
                        per_rank_bytes([100 * MiB] * 4)),
    "rank0-io": (dict(nprocs=8, POSIX=[posix(POSIX_BYTES_WRITTEN=500 * MiB, POSIX_WRITES=500,
                                             POSIX_F_WRITE_TIME=20.0)]),
                 per_rank_bytes([100 * MiB] * 4)),
    "mpiio-skew": (dict(run_time=200, MPI_IO=[rec("/scratch/out.dat", r, MPIIO_COLL_WRITES=10,
                                                  MPIIO_F_WRITE_TIME=60.0) for r in range(4)],
                        POSIX=[posix("/scratch/out.dat", r, POSIX_F_WRITE_TIME=5.0) for r in range(4)]),
                   dict(run_time=200, MPI_IO=[rec("/scratch/out.dat", r, MPIIO_COLL_WRITES=10,
                                                  MPIIO_F_WRITE_TIME=6.0) for r in range(4)],
                        POSIX=[posix("/scratch/out.dat", r, POSIX_F_WRITE_TIME=5.0) for r in range(4)])),
    "no-collective": (mpiio(MPIIO_INDEP_WRITES=1000, MPIIO_F_WRITE_TIME=4.0),
                      mpiio(MPIIO_COLL_WRITES=1000, MPIIO_F_WRITE_TIME=4.0)),
    "collective-used": (mpiio(MPIIO_COLL_WRITES=1000), mpiio(MPIIO_INDEP_WRITES=1000)),
    "blocking-mpiio": (mpiio(MPIIO_COLL_WRITES=1000, MPIIO_F_WRITE_TIME=200.0),
                       mpiio(MPIIO_COLL_WRITES=1000, MPIIO_NB_WRITES=10, MPIIO_F_WRITE_TIME=200.0)),
    # 8 nodes; the POSIX I/O of the collectively written file done by 2 ranks
    # (aggregators), or by all 8 ranks, one per node
    "aggregators": (collective_on(8, aggregators=2), collective_on(8, aggregators=8)),
    "stdio-heavy": (
        dict(STDIO=[rec("/scratch/log.txt", 0, STDIO_WRITES=1000, STDIO_BYTES_WRITTEN=100 * MiB)]),
        dict(STDIO=[rec("/scratch/log.txt", 0, STDIO_WRITES=10, STDIO_BYTES_WRITTEN=1000)],
             POSIX=[posix(POSIX_BYTES_WRITTEN=GiB)])),
    "no-mpiio": (dict(nprocs=16, **per_rank_bytes([100 * MiB] * 16)),
                 dict(nprocs=16, MPI_IO=[rec("/scratch/r0", 0, MPIIO_COLL_WRITES=1)],
                      **per_rank_bytes([100 * MiB] * 16))),
    "hdf5-chunking": (h5(1, chunk=(16, 16), length=(16, 16)), h5(1)),
    "hdf5-collective": (h5(0), h5(1)),
    "hdf5-alignment": (h5_posix(4000), h5_posix(0)),
    "pnetcdf-independent": (
        dict(PNETCDF_VAR=[rec("/scratch/f.nc:T", -1, file="/scratch/f.nc",
                              PNETCDF_VAR_INDEP_WRITES=1000)]),
        dict(PNETCDF_VAR=[rec("/scratch/f.nc:T", -1, file="/scratch/f.nc",
                              PNETCDF_VAR_COLL_WRITES=1000)])),
    "read-by-all": (
        dict(POSIX=[posix("/scratch/in.dat", r, POSIX_READS=10, POSIX_BYTES_READ=10 * MiB,
                          POSIX_MAX_BYTE_READ=10 * MiB - 1) for r in range(4)]),
        dict(POSIX=[posix("/scratch/in.dat", 0, POSIX_READS=10, POSIX_BYTES_READ=10 * MiB,
                          POSIX_MAX_BYTE_READ=10 * MiB - 1)])),
    "home-nfs": (
        dict(mounts=[("/", "ext4"), ("/home", "nfs")],
             POSIX=[posix("/home/u/out.dat", POSIX_BYTES_WRITTEN=200 * MiB)]),
        dict(mounts=[("/", "ext4"), ("/home", "nfs"), ("/scratch", "lustre")],
             POSIX=[posix("/scratch/out.dat", POSIX_BYTES_WRITTEN=200 * MiB)])),
    # mntfs tokens follow the mount table longest first: /local/ssd (xfs), /scratch, /
    "node-local-shared": (
        dict(metadata="nnodes=4\nmntfs=l4K,s1M,l4K\n", mounts=LOCAL_MOUNTS,
             POSIX=[posix("/local/ssd/out.dat", -1, POSIX_BYTES_WRITTEN=MiB)]),
        dict(metadata="nnodes=4\nmntfs=l4K,s1M,l4K\n", mounts=LOCAL_MOUNTS,
             POSIX=[posix("/scratch/out.dat", -1, POSIX_BYTES_WRITTEN=MiB),
                    posix("/local/ssd/mine.0", 0, POSIX_BYTES_WRITTEN=MiB)])),
    # rank 9 in a 4-process job: set aside, and named once
    "damaged-log": (dict(POSIX=[posix(POSIX_OPENS=1), posix("/scratch/x", 9, POSIX_OPENS=1)]),
                    dict(POSIX=[posix(POSIX_OPENS=1), posix("/scratch/x", -1, POSIX_OPENS=1)])),
    "partial-log": (dict(partial=1 << POSIX_ID, POSIX=[posix(POSIX_OPENS=1)]),
                    dict(POSIX=[posix(POSIX_OPENS=1)])),
    "tiny-files": (
        dict(POSIX=[posix(f"/scratch/t/{i}", 0, POSIX_OPENS=1, POSIX_WRITES=1,
                          POSIX_BYTES_WRITTEN=100, POSIX_MAX_BYTE_WRITTEN=99) for i in range(1500)]),
        dict(POSIX=[posix(f"/scratch/t/{i}", 0, POSIX_OPENS=1, POSIX_WRITES=1,
                          POSIX_BYTES_WRITTEN=100, POSIX_MAX_BYTE_WRITTEN=99) for i in range(50)])),
    "dxt-stragglers": (straggle(12.0), straggle(1.2)),
    "dxt-phases": (dxt([seg("/scratch/a", r, "write", t, t + 3) for r in range(4) for t in (0, 60)]),
                   dxt([seg("/scratch/a", r, "write", 0, 60) for r in range(4)])),
    "dxt-rw-overlap": (dxt([seg("/scratch/a", 0, "write", 0, 5), seg("/scratch/a", 1, "read", 1, 4)]),
                       dxt([seg("/scratch/a", 0, "write", 0, 5), seg("/scratch/a", 1, "read", 6, 8)])),
    # (more cases in test_diagnose_ost_conflict.py)
    "slow-ost": (slow_ost_log(546.0), slow_ost_log(12.0)),
    "conflicting-writes": (two_writers(MiB // 2), two_writers(MiB)),
    # (real runs through the DAOS emulation: tests/daos/test_daos_diagnose.py)
    "daos-small-io": (dfs_reads("1K_10K", 4 << 10), dfs_reads("1M_4M", 2 * MiB)),
    "daos-reopen": (dfs_appends(400), dfs_appends(1)),
}

# Lustre rules: the LUSTRE layout comes next to a written log (see diag_logs.LustreLog).
BIG_SHARED = dict(nprocs=16, POSIX=[posix("/scratch/big", -1, POSIX_WRITES=2048,
                                          POSIX_BYTES_WRITTEN=4 * GiB,
                                          POSIX_MAX_BYTE_WRITTEN=4 * GiB - 1,
                                          POSIX_ACCESS1_ACCESS=4 * MiB, POSIX_F_WRITE_TIME=50.0)])
LUSTRE = {
    "lustre-striping": ((BIG_SHARED, [("/scratch/big", 4 * MiB, 1, [3])]),
                        (BIG_SHARED, [("/scratch/big", 4 * MiB, 16, list(range(16)))])),
    "ost-usage": ((dict(metadata="lustre_osts=100\n", **BIG_SHARED) | dict(
        POSIX=[posix("/scratch/big", -1, POSIX_BYTES_WRITTEN=20 * GiB)]),
        [("/scratch/big", 4 * MiB, 2, [3, 4])]),
        (dict(metadata="lustre_osts=100\n", **BIG_SHARED) | dict(
            POSIX=[posix("/scratch/big", -1, POSIX_BYTES_WRITTEN=20 * GiB)]),
         [("/scratch/big", 4 * MiB, 80, list(range(80)))])),
}


def fired(tmp_path, name, kwargs, layouts=None):
    path = build(str(tmp_path / f"{name}.darshan"), **kwargs)
    if layouts is None:
        diag = diagnose(path)
    else:
        with LustreLog(path, layouts) as log:
            diag = diagnose_log(log)
    assert not diag.notes, diag.notes
    return {f.rule.id: f for f in diag.findings}


def test_every_rule_tested():
    assert {r.id for r in RULES} == set(SCENARIOS) | set(LUSTRE)


@pytest.mark.parametrize("rule", sorted(SCENARIOS))
def test_rule_fires(tmp_path, rule):
    found = fired(tmp_path, "yes", SCENARIOS[rule][0])
    assert rule in found, sorted(found)
    f = found[rule]
    assert f.hit.evidence and f.hit.message
    assert f.hit.time_lost >= 0 and (f.hit.time_lost == 0 or f.hit.time_basis)


@pytest.mark.parametrize("rule", sorted(SCENARIOS))
def test_rule_silent(tmp_path, rule):
    assert rule not in fired(tmp_path, "no", SCENARIOS[rule][1])


@pytest.mark.parametrize("rule", sorted(LUSTRE))
def test_lustre_rule_both_ways(tmp_path, rule):
    (yes, yes_layout), (no, no_layout) = LUSTRE[rule]
    assert rule in fired(tmp_path, "yes", yes, yes_layout)
    assert rule not in fired(tmp_path, "no", no, no_layout)


def test_misaligned_on_node_local_storage_is_info(tmp_path):
    """Alignment costs on servers shared by nodes: the same misaligned accesses on a
    mount the log calls node-local (mntfs) are reported as info, with no time; on a
    shared one they are judged from their cost."""
    def scenario(path):
        return dict(metadata="mntfs=l4K,s1M,l4K\n", mounts=LOCAL_MOUNTS,
                    POSIX=[posix(path, POSIX_WRITES=5000, POSIX_FILE_NOT_ALIGNED=4000,
                                 POSIX_FILE_ALIGNMENT=4096, POSIX_BYTES_WRITTEN=5000 * MiB,
                                 POSIX_F_WRITE_TIME=50.0)])
    local = fired(tmp_path, "local", scenario("/local/ssd/out.dat"))["misaligned-file"]
    assert local.severity == "info" and local.hit.time_lost == 0
    assert "node-local" in local.hit.message
    shared = fired(tmp_path, "shared", scenario("/scratch/out.dat"))["misaligned-file"]
    assert shared.hit.time_lost > 0 and "node-local" not in shared.hit.message


def test_node_local_rule_needs_several_nodes(tmp_path):
    one_node = dict(SCENARIOS["node-local-shared"][0], metadata="nnodes=1\nmntfs=l4K,s1M,l4K\n")
    assert "node-local-shared" not in fired(tmp_path, "one", one_node)


def test_ior_4k_mpiio_is_small_io(tmp_path):
    """The issue's IOR case: 4 KiB transfers through independent MPI-IO are small I/O
    (Drishti reports stragglers and nonblocking I/O instead)."""
    kw = dict(nprocs=8, MPI_IO=[rec("/scratch/ior.dat", -1, MPIIO_INDEP_WRITES=80000,
                                    MPIIO_SIZE_WRITE_AGG_1K_10K=80000,
                                    MPIIO_F_WRITE_TIME=40.0, MPIIO_BYTES_WRITTEN=80000 * 4096)],
              POSIX=[posix("/scratch/ior.dat", -1, POSIX_WRITES=80000, POSIX_SEQ_WRITES=80000,
                           POSIX_SIZE_WRITE_1K_10K=80000, POSIX_F_WRITE_TIME=38.0)])
    found = fired(tmp_path, "ior", kw)
    assert {"small-io", "small-io-shared", "no-collective"} <= set(found)
    small = found["small-io"]
    assert small.hit.numbers["small_writes"] == 80000
    # 40 s of MPI-IO write time over 8 processes, all of it in small writes
    assert small.hit.time_lost == pytest.approx(5.0)


def test_metadata_counted_per_process(tmp_path):
    """3000 files of 0.02 s metadata each on one process: 60 s on that process, which
    a per-record test (Drishti's) never sees."""
    kw = dict(nprocs=4, run_time=1000,
              POSIX=[posix(f"/scratch/m/{i}", 0, POSIX_OPENS=1, POSIX_F_META_TIME=0.02)
                     for i in range(3000)])
    found = fired(tmp_path, "meta", kw)
    assert found["metadata-time"].hit.time_lost == pytest.approx(60.0)
    assert found["metadata-time"].hit.ranks == [0]
    assert "tiny-files" in found
