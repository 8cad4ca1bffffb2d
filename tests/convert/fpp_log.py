"""A generated log of a file-per-process job (one POSIX and one MPI-IO record per
rank, each rank writing its own file in 1 MiB operations), as a 1,000-process MPI
job would leave it.  Counter values vary per rank as real runs do (timings jitter,
a few ranks write a different amount), so compression sees realistic data."""
import numpy as np

import iolens


def _cols(module):
    info = iolens.module_info(module)
    return ({n: k for k, n in enumerate(info.counters)},
            {n: k for k, n in enumerate(info.fcounters)})


def write_fpp_log(path, nprocs=1000, seed=7):
    rng = np.random.default_rng(seed)
    names = [f"/lus/scratch/proj/run42/out/rank_{r:05d}.dat" for r in range(nprocs)]
    ids = np.array([iolens.record_id(n) for n in names], dtype=np.uint64)
    ranks = np.arange(nprocs)
    nops = np.where(rng.random(nprocs) < 0.05, 48, 64)
    mib = 1 << 20
    with iolens.Writer(path) as w:
        w.set_job(uid=1000, start_time_sec=1700000000, end_time_sec=1700000300,
                  nprocs=nprocs, jobid=4242, metadata="lib_ver=3.4.4\n",
                  exe="/home/user/bin/app -n 64", mounts=[("/lus/scratch", "lustre"), ("/", "ext4")])
        w.add_names(ids, names)
        for mod, p in (("POSIX", "POSIX"), ("MPI-IO", "MPIIO")):
            ic, fc = _cols(mod)
            ints = np.zeros((nprocs, len(ic)), dtype=np.int64)
            flts = np.zeros((nprocs, len(fc)), dtype=np.float64)
            ints[:, ic[f"{p}_BYTES_WRITTEN"]] = nops * mib
            if p == "POSIX":
                ints[:, ic["POSIX_OPENS"]] = 1
                ints[:, ic["POSIX_WRITES"]] = nops
                ints[:, ic["POSIX_SEQ_WRITES"]] = nops - 1
                ints[:, ic["POSIX_CONSEC_WRITES"]] = nops - 1
                ints[:, ic["POSIX_MAX_BYTE_WRITTEN"]] = nops * mib - 1
                ints[:, ic["POSIX_SIZE_WRITE_1M_4M"]] = nops
                ints[:, ic["POSIX_ACCESS1_ACCESS"]] = mib
                ints[:, ic["POSIX_ACCESS1_COUNT"]] = nops
                ints[:, ic["POSIX_MEM_ALIGNMENT"]] = 8
                ints[:, ic["POSIX_FILE_ALIGNMENT"]] = 4096
                ints[:, ic["POSIX_FASTEST_RANK"]] = ranks
                ints[:, ic["POSIX_SLOWEST_RANK"]] = ranks
            else:
                ints[:, ic["MPIIO_INDEP_OPENS"]] = 1
                ints[:, ic["MPIIO_INDEP_WRITES"]] = nops
                ints[:, ic["MPIIO_SIZE_WRITE_AGG_1M_4M"]] = nops
                ints[:, ic["MPIIO_ACCESS1_ACCESS"]] = mib
                ints[:, ic["MPIIO_ACCESS1_COUNT"]] = nops
                ints[:, ic["MPIIO_FASTEST_RANK"]] = ranks
                ints[:, ic["MPIIO_SLOWEST_RANK"]] = ranks
            start = 1.0 + rng.random(nprocs) * 0.01
            wtime = nops * (0.004 + rng.random(nprocs) * 0.001)
            flts[:, fc[f"{p}_F_OPEN_START_TIMESTAMP"]] = start
            flts[:, fc[f"{p}_F_OPEN_END_TIMESTAMP"]] = start + 0.0002
            flts[:, fc[f"{p}_F_WRITE_START_TIMESTAMP"]] = start + 0.0003
            flts[:, fc[f"{p}_F_WRITE_END_TIMESTAMP"]] = start + 0.0003 + wtime
            flts[:, fc[f"{p}_F_CLOSE_START_TIMESTAMP"]] = start + 0.0004 + wtime
            flts[:, fc[f"{p}_F_CLOSE_END_TIMESTAMP"]] = start + 0.0005 + wtime
            flts[:, fc[f"{p}_F_WRITE_TIME"]] = wtime
            flts[:, fc[f"{p}_F_META_TIME"]] = 0.0003
            w.put_records(mod, ids, ranks, ints, flts)
    return names
